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
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type Logger } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { DEFAULT_LIMITS, type LimitsConfig } from '../../spec/index.js';
import { NewsClient } from '../../client/index.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { createNewsIngestActivities } from '../../activities/news-ingest.js';
import { createDistributionActivities } from '../../activities/distribution-pull.js';
import { createAlertRunnerActivities, type AlertRunnerDeps } from '../../activities/alert-runner.js';
import { createNoticesActivities, type NotifyConfig } from '../../activities/notices.js';
import { createStoryTrackerActivities } from '../../activities/story-tracker.js';
import { createIndexCountSamplerActivities } from '../../activities/index-count-sampler.js';
import { createEntityGraphActivities } from '../../activities/entity-graph.js';
import { createDeepResearchActivities } from '../../activities/deep-research.js';
import { createFeedPollActivities } from '../../activities/feed-poll.js';
import { createMaintenanceActivities } from '../../activities/maintenance.js';
import { createRecordLoadActivities } from '../../activities/record-load.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { TemporalSetupError } from '../../temporal/index.js';
import { SOURCE_EXT } from '../../lib/package-root.js';
import { ExtensionError, type LoadedPipelines } from './extensions.js';
import { kinds } from '../config/kinds/index.js';
import { fileURLToPath } from 'node:url';
import type { FetchPolicy } from '../../lib/fetch/policy.js';

const require = createRequire(import.meta.url);
export { TASK_QUEUES };

export interface WorkerDeps {
  address: string;
  namespace: string;
  client: NewsClient;
  warehouse: Warehouse;
  /** per-group rates for maxTaskQueueActivitiesPerSecond (default: the interface's; the project's limits, NEWSFLOW_LIMITS included) */
  limits?: LimitsConfig;
  onPage?: (page: number) => void;
  /** email triggers go out through this SMTP URL (the project's NEWSFLOW_SMTP_URL; unset: recorded as skipped) */
  smtpUrl?: string | null;
  /** what the fetch policy allows beyond public addresses: the feeds polled, the webhooks POSTed (the project's `fetchPolicy`; default: public addresses only) */
  fetchPolicy?: FetchPolicy;
  /** the resolver (and a policy of their own) of webhook POSTs, for tests (default: `fetchPolicy` and the system resolver) */
  webhookFetch?: AlertRunnerDeps['webhookFetch'];
  /** where notices go (the project file's `notify:`; unset: a notices round fails, saying so) */
  notify?: NotifyConfig | null;
  /** where the webpack report of the workflow bundle goes (default: the Runtime's logger) */
  bundlerLogger?: Logger;
  /** workers sharing the API key (the project's `workers`, default 1): each runs concurrency / workers activities at once */
  workers?: number;
  /** keep the workflow bundle here, keyed by the workflows' sources (default: bundle every time) */
  bundleCacheDir?: string;
  /** your own pipelines (the project file's `workflows:`), loaded */
  extension?: LoadedPipelines;
}

/**
 * The workflow bundle: webpack once per version of the workflow sources, then read from `cacheDir`.
 * With your own workflows (`extra`), the bundle's entry exports newsflow's and yours.
 */
export async function workflowBundle(opts: { cacheDir?: string; logger?: Logger; extra?: string[] } = {}): Promise<{ code: string }> {
  const extra = opts.extra ?? [];
  const ours = require.resolve(`../../workflows/index${SOURCE_EXT}`);
  const root = path.resolve(path.dirname(ours), '..');
  const h = crypto.createHash('sha1');
  // what the bundle can include: workflows/, what they import of activities/ (types, erased, and
  // pure helpers such as activities/distribution-walk.ts, bundled), the packages, and your workflows' folder
  const filesOf = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : []);
  const sources = [
    ...filesOf(path.join(root, 'workflows')),
    ...filesOf(path.join(root, 'activities')),
    path.join(root, 'package-lock.json'),
    ...[...new Set(extra.map((e) => path.dirname(e)))].flatMap(filesOf),
  ]
    .filter((f) => fs.existsSync(f) && fs.statSync(f).isFile())
    .sort();
  for (const f of sources) h.update(f).update(fs.readFileSync(f));
  const key = h.digest('hex').slice(0, 24);
  let workflowsPath = ours;
  if (extra.length) {
    // an entry beside nothing of ours: webpack resolves each import from the file that makes it
    const dir = opts.cacheDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bundle-'));
    fs.mkdirSync(dir, { recursive: true });
    workflowsPath = path.join(dir, `entry-${key}.mjs`);
    fs.writeFileSync(workflowsPath, [ours, ...extra].map((m) => `export * from ${JSON.stringify(m)};\n`).join(''));
  }
  // the entry of a bundle with your workflows sits in the cache dir: the packages resolve from where ours are
  const ourModules = path.resolve(path.dirname(require.resolve('@temporalio/workflow/package.json')), '..', '..');
  const build = async () => ({
    code: (
      await bundleWorkflowCode({
        workflowsPath,
        logger: opts.logger ?? Runtime.instance().logger,
        webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? ['node_modules']), ourModules] } }),
      })
    ).code,
  });
  if (!opts.cacheDir) return build();
  const file = path.join(opts.cacheDir, `workflows-${key}.js`);
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

export async function createWorkers(
  deps: WorkerDeps,
): Promise<{ run(): Promise<void>; shutdown(): void; states(): Record<string, ReturnType<Worker['getState']>> }> {
  const connection = await connectWorker(deps.address);
  const limits = deps.limits ?? DEFAULT_LIMITS;
  const share = deps.workers ?? 1;
  const concurrency = (n: number) => Math.max(1, Math.floor(n / share));
  let temporal: Promise<Client> | null = null;
  const temporalClient = () =>
    (temporal ??= Connection.connect({ address: deps.address }).then((c) => new Client({ connection: c, namespace: deps.namespace })));
  const webhookFetch = { policy: deps.fetchPolicy, ...deps.webhookFetch };
  const activities = {
    ...createRecordLoadActivities({ warehouse: deps.warehouse }),
    ...createNewsIngestActivities({ client: deps.client, warehouse: deps.warehouse }),
    ...createAlertRunnerActivities({
      client: deps.client,
      warehouse: deps.warehouse,
      temporal: temporalClient,
      taskQueue: TASK_QUEUES.alerts,
      smtpUrl: deps.smtpUrl ?? null,
      webhookFetch,
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
    ...createFeedPollActivities({ client: deps.client, warehouse: deps.warehouse, fetch: { policy: deps.fetchPolicy } }),
    ...createMaintenanceActivities({ warehouse: deps.warehouse }),
    ...createNoticesActivities({
      warehouse: deps.warehouse,
      temporal: temporalClient,
      smtpUrl: deps.smtpUrl ?? null,
      webhookFetch,
      notify: deps.notify ?? null,
    }),
  };
  if (deps.extension) {
    const yours = deps.extension.activities({ client: deps.client, warehouse: deps.warehouse });
    const clash = Object.keys(yours).filter((k) => k in activities);
    if (clash.length) throw new ExtensionError(`workflows: your activities ${clash.join(', ')} have the names of newsflow's: rename them`);
    Object.assign(activities, yours);
  }
  // kinds registered beside newsflow's (pipelines/config/kinds): their activities and workflows
  const extra = deps.extension ? [deps.extension.workflowsPath] : [];
  for (const k of kinds()) {
    if (!k.worker) continue;
    const theirs = k.worker.activities?.({ client: deps.client, warehouse: deps.warehouse }) ?? {};
    const clash = Object.keys(theirs).filter((a) => a in activities);
    if (clash.length) throw new ExtensionError(`kind ${k.name}: its activities ${clash.join(', ')} have the names of others: rename them`);
    Object.assign(activities, theirs);
    const w = k.worker.workflows;
    extra.push(w instanceof URL || w.startsWith('file:') ? fileURLToPath(w) : w);
  }
  // one bundle for every queue's worker (was one webpack run, and report, each)
  const { code } = await workflowBundle({ cacheDir: deps.bundleCacheDir, logger: deps.bundlerLogger, extra });
  const common = { connection, namespace: deps.namespace, workflowBundle: { code }, activities, shutdownGraceTime: DRAIN_MS };
  // one worker per task queue: its activity rate (the API's, per queue for all workers together)
  // and its concurrency (this process's share of the key's)
  const queues: { taskQueue: string; rate?: number; concurrency?: number }[] = [
    { taskQueue: TASK_QUEUES.news, rate: limits.news.rate },
    { taskQueue: TASK_QUEUES.distribution, rate: limits.distribution.rate, concurrency: concurrency(limits.distribution.concurrency) },
    { taskQueue: TASK_QUEUES.alerts, rate: limits.chat.rate, concurrency: concurrency(limits.chat.concurrency) },
    { taskQueue: TASK_QUEUES.deliveries, concurrency: 10 },
    { taskQueue: TASK_QUEUES.stories, rate: limits.stories.rate, concurrency: concurrency(limits.stories.concurrency) },
    { taskQueue: TASK_QUEUES.research, rate: limits.deepnews.rate, concurrency: concurrency(limits.deepnews.concurrency) },
    // feed polling: fetches of feeds (politeness per host in lib/feeds); its index_urls calls go through the client's limiter
    { taskQueue: TASK_QUEUES.feeds, concurrency: 4 },
    // lake maintenance: no API calls; one run at a time
    { taskQueue: TASK_QUEUES.maintenance, concurrency: 1 },
  ];
  // a registered kind's own queue: no rate of the API's (its activities' calls go through the client's limiter)
  for (const k of kinds()) if (!queues.some((q) => q.taskQueue === k.taskQueue)) queues.push({ taskQueue: k.taskQueue });
  const workers: Worker[] = [];
  for (const q of queues) {
    workers.push(
      await Worker.create({
        ...common,
        taskQueue: q.taskQueue,
        ...(q.rate !== undefined ? { maxTaskQueueActivitiesPerSecond: q.rate } : {}),
        ...(q.concurrency !== undefined ? { maxConcurrentActivityTaskExecutions: q.concurrency } : {}),
      }),
    );
  }
  return {
    run: async () => {
      await Promise.all(workers.map((w) => w.run()));
      await connection.close();
      if (temporal) await (await temporal).connection.close();
    },
    shutdown: () => workers.forEach((w) => w.shutdown()),
    /** each task queue's worker state (RUNNING while it polls): the worker's /healthz */
    states: () => Object.fromEntries(workers.map((w) => [w.options.taskQueue, w.getState()])),
  };
}
