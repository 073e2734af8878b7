/**
 * The worker: all workflows and activities, one task queue per rate-limited scope group, each with
 * maxTaskQueueActivitiesPerSecond matching the API's limit (on top of the client's own limiter).
 * Any number of workers may poll the same queues (`newsflow worker` on one or many machines): the
 * task-queue rate is enforced by the Temporal server for the queue as a whole, so N workers
 * together keep the API's rate per key; the client's limiter and the activity concurrency are per
 * process, so the concurrency is split across NEWSFLOW_WORKERS (the number of workers sharing one
 * key, default 1), and so is the rate of distribution walks (one activity, many requests). On shutdown, running activities get DRAIN_MS to finish before they are cancelled
 * (and retried by another worker: every landing is idempotent).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type Logger } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { DEFAULT_LIMITS, parseLimits, type LimitsConfig } from '../spec/index.js';
import { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createNewsIngestActivities } from '../activities/news-ingest.js';
import { createDistributionActivities } from '../activities/distribution-pull.js';
import { createAlertRunnerActivities } from '../activities/alert-runner.js';
import { createStoryTrackerActivities } from '../activities/story-tracker.js';
import { createIndexCountSamplerActivities } from '../activities/index-count-sampler.js';
import { createEntityGraphActivities } from '../activities/entity-graph.js';
import { createDeepResearchActivities } from '../activities/deep-research.js';

const require = createRequire(import.meta.url);
import { TASK_QUEUES } from './queues.js';
import { TemporalSetupError } from './temporal.js';
export { TASK_QUEUES };

export interface WorkerDeps {
  address: string;
  namespace: string;
  client: NewsClient;
  warehouse: Warehouse;
  /** per-group rates for maxTaskQueueActivitiesPerSecond (default: $NEWSFLOW_LIMITS over the interface defaults) */
  limits?: LimitsConfig;
  onPage?: (page: number) => void;
  /** email triggers go out through this SMTP URL (default $NEWSFLOW_SMTP_URL; unset: recorded as skipped) */
  smtpUrl?: string | null;
  /** where the webpack report of the workflow bundle goes (default: the Runtime's logger) */
  bundlerLogger?: Logger;
  /** workers sharing the API key (default $NEWSFLOW_WORKERS, else 1): each runs concurrency / workers activities at once */
  workers?: number;
  /** keep the workflow bundle here, keyed by the workflows' sources (default: bundle every time) */
  bundleCacheDir?: string;
}

/** The workflow bundle: webpack once per version of the workflow sources, then read from `cacheDir`. */
export async function workflowBundle(opts: { cacheDir?: string; logger?: Logger } = {}): Promise<{ code: string }> {
  const workflowsPath = require.resolve('../workflows/index.ts');
  const build = async () => ({ code: (await bundleWorkflowCode({ workflowsPath, logger: opts.logger ?? Runtime.instance().logger })).code });
  if (!opts.cacheDir) return build();
  const root = path.resolve(path.dirname(workflowsPath), '..');
  const h = crypto.createHash('sha1');
  const sources = [
    ...fs.readdirSync(path.dirname(workflowsPath)).map((f) => path.join(path.dirname(workflowsPath), f)),
    path.join(root, 'pipelines', 'queues.ts'),
    path.join(root, 'package-lock.json'),
  ]
    .filter((f) => fs.existsSync(f) && fs.statSync(f).isFile())
    .sort();
  for (const f of sources) h.update(path.relative(root, f)).update(fs.readFileSync(f));
  const file = path.join(opts.cacheDir, `workflows-${h.digest('hex').slice(0, 24)}.js`);
  try {
    return { code: fs.readFileSync(file, 'utf8') };
  } catch {
    const bundle = await build();
    fs.mkdirSync(opts.cacheDir, { recursive: true });
    fs.writeFileSync(`${file}.${process.pid}.tmp`, bundle.code);
    fs.renameSync(`${file}.${process.pid}.tmp`, file);
    return bundle;
  }
}

/** How long running activities may finish after shutdown() before they are cancelled. */
export const DRAIN_MS = 5000;

/** NEWSFLOW_WORKERS: a positive integer, else an error naming it. */
export function workerShare(text: string | undefined): number {
  if (text === undefined || text === '') return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`NEWSFLOW_WORKERS must be a positive integer (the number of workers sharing one API key); got ${JSON.stringify(text)}`);
  return n;
}

/**
 * The worker's connection, tried again for a few seconds: a server that just started may not
 * answer yet. Past that, a TemporalSetupError that names the address.
 */
async function connectWorker(address: string, ms = 10_000): Promise<NativeConnection> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await NativeConnection.connect({ address });
    } catch (e) {
      if (Date.now() >= until) throw new TemporalSetupError(`the worker cannot reach the Temporal server at ${address}: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export async function createWorkers(deps: WorkerDeps): Promise<{ run(): Promise<void>; shutdown(): void }> {
  const connection = await connectWorker(deps.address);
  const limits = deps.limits ?? parseLimits(process.env.NEWSFLOW_LIMITS, DEFAULT_LIMITS);
  const share = deps.workers ?? workerShare(process.env.NEWSFLOW_WORKERS);
  const concurrency = (n: number) => Math.max(1, Math.floor(n / share));
  let temporal: Promise<Client> | null = null;
  const temporalClient = () =>
    (temporal ??= Connection.connect({ address: deps.address }).then((c) => new Client({ connection: c, namespace: deps.namespace })));
  const activities = {
    ...createNewsIngestActivities({ client: deps.client, warehouse: deps.warehouse }),
    ...createAlertRunnerActivities({
      client: deps.client,
      warehouse: deps.warehouse,
      temporal: temporalClient,
      taskQueue: TASK_QUEUES.alerts,
      smtpUrl: deps.smtpUrl !== undefined ? deps.smtpUrl : (process.env.NEWSFLOW_SMTP_URL ?? null),
    }),
    ...createDistributionActivities({
      client: deps.client,
      warehouse: deps.warehouse,
      onPage: deps.onPage,
      walkShare: share > 1 ? { rate: limits.distribution.rate / share, burst: Math.max(1, Math.floor(limits.distribution.burst / share)) } : undefined,
    }),
    ...createIndexCountSamplerActivities({ client: deps.client, warehouse: deps.warehouse }),
    ...createStoryTrackerActivities({ client: deps.client, warehouse: deps.warehouse }),
    ...createEntityGraphActivities({ client: deps.client, warehouse: deps.warehouse }),
    ...createDeepResearchActivities({ client: deps.client, warehouse: deps.warehouse }),
  };
  // one bundle for the five workers (was one webpack run, and report, each)
  const { code } = await workflowBundle({ cacheDir: deps.bundleCacheDir, logger: deps.bundlerLogger });
  const common = { connection, namespace: deps.namespace, workflowBundle: { code }, activities, shutdownGraceTime: DRAIN_MS };
  const news = await Worker.create({
    ...common,
    taskQueue: TASK_QUEUES.news,
    maxTaskQueueActivitiesPerSecond: limits.news.rate,
  });
  const distribution = await Worker.create({
    ...common,
    taskQueue: TASK_QUEUES.distribution,
    maxTaskQueueActivitiesPerSecond: limits.distribution.rate,
    maxConcurrentActivityTaskExecutions: concurrency(limits.distribution.concurrency),
  });
  const alerts = await Worker.create({
    ...common,
    taskQueue: TASK_QUEUES.alerts,
    maxTaskQueueActivitiesPerSecond: limits.chat.rate,
    maxConcurrentActivityTaskExecutions: concurrency(limits.chat.concurrency),
  });
  const deliveries = await Worker.create({ ...common, taskQueue: TASK_QUEUES.deliveries, maxConcurrentActivityTaskExecutions: 10 });
  const stories = await Worker.create({
    ...common,
    taskQueue: TASK_QUEUES.stories,
    maxTaskQueueActivitiesPerSecond: limits.stories.rate,
    maxConcurrentActivityTaskExecutions: concurrency(limits.stories.concurrency),
  });
  const research = await Worker.create({
    ...common,
    taskQueue: TASK_QUEUES.research,
    maxTaskQueueActivitiesPerSecond: limits.deepnews.rate,
    maxConcurrentActivityTaskExecutions: concurrency(limits.deepnews.concurrency),
  });
  // >>> feeds (issue 27): the feed poller's activities on their own queue (workflows/feed-poll.ts, activities/feed-poll.ts)
  const { createFeedPollActivities } = await import('../activities/feed-poll.js');
  const feeds = await Worker.create({
    ...common,
    activities: { ...activities, ...createFeedPollActivities({ client: deps.client, warehouse: deps.warehouse }) },
    taskQueue: TASK_QUEUES.feeds,
    maxConcurrentActivityTaskExecutions: 4,
  });
  const workers = [news, distribution, alerts, deliveries, stories, research, feeds];
  // <<< feeds
  return {
    run: async () => {
      await Promise.all(workers.map((w) => w.run()));
      await connection.close();
      if (temporal) await (await temporal).connection.close();
    },
    shutdown: () => workers.forEach((w) => w.shutdown()),
  };
}
