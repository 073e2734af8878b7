/**
 * `newsflow start`, the main job: the service (corpus in replay), a Temporal dev server, the
 * worker, the schedules, each pipeline triggered once; or only the pipelines, against
 * NEWSFLOW_API_URL/KEY when both are set.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { cacheDir } from '../../lib/cache-dir.js';
import { SCOPES } from '../../spec/index.js';
import { corpusCache, parseRetention, serviceConfig, startService, type CorpusCache, type RunningService, type SeedResult } from '../../service/index.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { applyFeedSchedule, applySchedules, declareSchedules, FEED_SCHEDULE_ID, pipelineScope } from '../schedules/index.js';
import { noticesSchedules } from './notices.js';
import { dataDirOf, useProject, warehouseDirOf, type Pipeline, type Project } from '../config/index.js';
import { atShutdown, stopOnSignals, temporalEndpoint } from '../../temporal/index.js';
import { startWorker, temporalClient } from '../worker/index.js';
import { preflight, scheduledNeeds } from './preflight.js';
import { progress } from './progress.js';
import { statusPage } from './status-page.js';

/** The news the first start of a warehouse lands at once (the replay's history), in days. */
export const BACKFILL_DAYS = 7;
/** The part of that history loaded before the service is announced; the rest follows at once, newest first. */
const HEAD_HOURS = 24;
/** The backfill of a news pipeline: one workflow (and `_loads` workflow_id) per pipeline name. */
export const backfillId = (pipeline: string) => `newsflow-backfill-${pipeline}`;

let stopping = false;
type Running = RunningService;
const at = (d: Date | undefined) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '(paused)');

interface MainJobOptions {
  port?: number;
  dataDir?: string;
  corpus?: string;
  replay: number;
  verbose?: boolean;
  temporal?: string;
  metricsPort?: number;
}

/** `corpus` is needed unless remoteApi(). */
export async function mainJob(o: MainJobOptions) {
  const t0 = Date.now();
  const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  const loaded = useProject();
  // --temporal dev|postgres: the server of our own to start (a running server of the project, host:port, wins)
  const project = o.temporal && !/:\d+$/.test(loaded.temporal.server) ? { ...loaded, temporal: { ...loaded.temporal, server: o.temporal } } : loaded;
  const dataDir = dataDirOf(project, o.dataDir);
  const logs = path.join(dataDir, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  stopOnSignals();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => (stopping = true));
  let apiUrl = project.api.url;
  let apiKey = project.api.key;
  let svc: RunningService | null = null;
  // the schedules of the project's pipelines
  const schedules = declareSchedules(project.pipelines);
  const status: string[] = [];
  // the Temporal dev server (its own process): started while our own service loads; against a
  // remote API only after the preflight passed (a refused key or a down API starts nothing)
  let endpointP: ReturnType<typeof temporalEndpoint> | null = null;
  const startEndpoint = () => {
    if (!endpointP) {
      endpointP = temporalEndpoint({ dataDir, temporal: project.temporal, log: (m) => console.error(m) });
      endpointP.then(
        (ep) => atShutdown(() => ep.stop()),
        () => undefined,
      );
    }
    return endpointP;
  };
  let background: Promise<void> = Promise.resolve();
  let up!: () => void;
  const started = new Promise<void>((r) => (up = r));
  /** the replay's history is searchable (our own service: loaded in the background) */
  let history: Promise<void> | undefined;
  try {
    if (!(apiUrl && apiKey)) {
      if (!o.corpus) throw new Error('mainJob: a corpus is needed without NEWSFLOW_API_URL and NEWSFLOW_API_KEY');
      void startEndpoint().catch(() => undefined);
      svc = await startOwnService(o, dataDir, logs, project.service);
      const keys = await serviceKeys(svc);
      status.push(...keys.status);
      apiKey = keys.workerKey;
      apiUrl = svc.url;
      const seeded = await seedCorpus(svc, { corpus: o.corpus, replay: o.replay }, started, secs);
      status.push(seeded.status);
      background = seeded.background;
      history = seeded.history;
    }
    // every scheduled pipeline must be able to run with this key (our own service: a check of the wiring)
    await preflight(scheduledNeeds(schedules), { apiUrl, apiKey });
  } catch (e) {
    up();
    await svc?.close();
    await (endpointP as ReturnType<typeof temporalEndpoint> | null)?.then(
      (ep) => ep.stop(),
      () => undefined,
    );
    throw e;
  }
  const endpoint = await startEndpoint();
  const metricsPort = o.metricsPort ?? project.metrics.port;
  const worker = await startWorker({
    endpoint,
    dataDir,
    project,
    apiUrl,
    apiKey,
    verbose: o.verbose,
    quiet: true,
    bundleCacheDir: path.join(cacheDir(), 'bundle'),
    metrics: metricsPort !== undefined ? { port: metricsPort, host: project.metrics.host } : undefined,
    statusPage: statusPage(() => clientP, schedules),
  });
  atShutdown(() => worker.stop());
  const clientP = temporalClient(endpoint);
  const client = await clientP;
  // the notices (the file's notify:): their schedule beside the pipelines', not triggered now
  const notices = noticesSchedules(schedules, project.notify);
  await applySchedules(client, [...schedules, ...notices], pipelineScope);
  // the feed poller, when the project or `newsflow sources add` declared sources
  const feeds = await applyFeedSchedule(client, { warehouse: worker.warehouse, sources: project.sources });
  const stopLoads = await watchLoads(worker.warehouse, secs);
  atShutdown(async () => stopLoads());
  for (const d of schedules) await client.schedule.getHandle(d.id).trigger();
  const backfill = await startBackfill(client, worker.warehouse, history, project.pipelines);
  up();
  const wh = `${warehouseDirOf(project, dataDir)} (a DuckLake: its catalog lake.sqlite and Parquet files under lake/, unless the project file names others)`;
  const polled = feeds.schedule.created.length + feeds.schedule.updated.length + feeds.schedule.unchanged.length > 0;
  const pipelines = await scheduleLines(client, schedules);
  console.log(
    upMessage({
      status,
      endpoint,
      wh,
      metricsUrl: worker.metricsUrl,
      apiUrl,
      logs,
      pipelines,
      backfill,
      notices,
      polled,
      sources: project.sources.length,
      secs,
    }),
  );
  void background;
  await worker.running;
}

/** Our own service; its request log goes to <data>/logs/service.log (JSON), on the terminal only with --verbose. */
async function startOwnService(o: MainJobOptions, dataDir: string, logs: string, service: Project['service']): Promise<RunningService> {
  // the service (models, stores) is loaded only when we run it ourselves
  const logger = o.verbose ? undefined : { level: serviceConfig({}).logLevel, stream: fs.createWriteStream(path.join(logs, 'service.log'), { flags: 'a' }) };
  // the project's retention (its service: key, NEWSFLOW_RETENTION over it), checked when the project was read
  const svc = await startService({
    port: o.port,
    dataDir,
    logger,
    retentionDays: parseRetention(service.retention, 'service.retention'),
    archive: service.archive,
  });
  atShutdown(() => svc.close());
  return svc;
}

/** A store without keys gets the demo organization and its key (a status line); the worker's own key is rotated on every start. */
async function serviceKeys(svc: RunningService): Promise<{ status: string[]; workerKey: string }> {
  const status: string[] = [];
  const keys = svc.services.keys;
  if ((await keys.listKeys()).length === 0) {
    const org = await keys.createOrg({ name: 'demo', domains: ['reuters.com', 'theguardian.com', 'bbc.co.uk'], plan: 'enterprise' });
    const demo = await keys.createKey({ name: 'demo', org: org.name, scopes: [...SCOPES] });
    status.push(`Demo organization key (shown once, stored hashed):\n  export NEWSFLOW_API_KEY=${demo.key}\n  export NEWSFLOW_API_URL=${svc.url}`);
  }
  for (const k of await keys.listKeys()) if (k.name === 'newsflow-worker' && !k.revoked_at) await keys.revokeKey(k.id);
  const demoOrg = (await keys.listOrgs())[0];
  const workerKey = (await keys.createKey({ name: 'newsflow-worker', org: demoOrg?.name, scopes: [...SCOPES], plan: 'enterprise' })).key;
  return { status, workerKey };
}

/**
 * The corpus: the last BACKFILL_DAYS days first (searchable at once), the older articles in the
 * background, oldest first, ahead of the replay, once `started` (the worker up and the pipelines
 * triggered); the enriched-corpus cache skips the enrichment. Returns the service's status line,
 * the background loads and the history's promise.
 */
async function seedCorpus(
  svc: RunningService,
  o: { corpus: string; replay: number },
  started: Promise<void>,
  secs: () => string,
): Promise<{ status: string; background: Promise<void>; history: Promise<void> | undefined }> {
  const cache = await corpusCache();
  const bar = progress('corpus');
  let head = true;
  const r = await svc.services.seeder!.seed(o.corpus, {
    rebaseDates: true,
    replay: o.replay,
    historyDays: BACKFILL_DAYS,
    headHours: HEAD_HOURS,
    background: true,
    backgroundAfter: started,
    cache,
    onProgress: (d, t, ph) => head && bar.update(d, t, ph),
  });
  head = false;
  bar.stop();
  // stopped before the corpus is loaded: what was enriched so far is kept for the next start
  atShutdown(() => cache.save().catch(() => undefined));
  const status = `Service:     ${svc.url}  (${r.indexed} articles searchable, the rest of ${r.read} loading; replay at ${o.replay}x; enriched-corpus cache: ${cache.state === 'hit' ? `${cache.size} of ${r.read} articles` : 'empty'})`;
  return { status, background: backgroundLoads(svc, r.rest, o.corpus, cache, secs, o.replay), history: r.history };
}

/** One line per schedule: its id, workflow and next run. */
async function scheduleLines(client: Client, schedules: ReturnType<typeof declareSchedules>): Promise<string[]> {
  const lines: string[] = [];
  for (const d of schedules) {
    const next = (
      await client.schedule
        .getHandle(d.id)
        .describe()
        .catch(() => null)
    )?.info.nextActionTimes[0];
    lines.push(`  ${d.id.padEnd(28)} ${d.workflowType.padEnd(18)} next ${at(next)}`);
  }
  return lines;
}

/** What `newsflow start` prints once everything is up. */
function upMessage(m: {
  status: string[];
  endpoint: Awaited<ReturnType<typeof temporalEndpoint>>;
  wh: string;
  metricsUrl: string | null;
  apiUrl: string;
  logs: string;
  pipelines: string[];
  backfill: string;
  notices: ReturnType<typeof noticesSchedules>;
  /** a feed schedule was applied */
  polled: boolean;
  /** the project file's sources */
  sources: number;
  secs: () => string;
}): string {
  return `${m.status.join('\n')}
Temporal UI: ${m.endpoint.uiUrl ?? `(external server ${m.endpoint.address})`}
Temporal:    ${m.endpoint.address}
Warehouse:   ${m.wh}
${m.metricsUrl ? `Metrics:     ${m.metricsUrl}/metrics (the worker's), ${m.apiUrl}/metrics (the service's); status page ${m.metricsUrl}/status\n` : ''}Logs:        ${m.logs} (service.log, worker.log; --verbose shows them here)
Pipelines (each triggered once now):
${m.pipelines.join('\n')}
Backfill:    ${m.backfill}
Notices:     ${m.notices[0] ? m.notices[0].description : 'none (set notify: in newsflow.yaml: docs/operations.md, Notices)'}
Sources:     ${m.polled ? `${m.sources} in the project file (newsflow sources list shows them all); polled by ${FEED_SCHEDULE_ID}` : 'none (declare feeds under sources: in newsflow.yaml, or newsflow sources add URL)'}
Up in ${m.secs()}. Try:
  npx newsflow sql "SELECT domain_url, count(*) AS articles FROM articles GROUP BY 1 ORDER BY 2 DESC LIMIT 10"
  npx newsflow sql "SELECT category, count(*) FROM article_classifications GROUP BY 1 ORDER BY 2 DESC"
  npx newsflow sql "SELECT pipeline, count(*) AS articles FROM pipeline_articles GROUP BY 1"
  npx newsflow sql "SELECT pipeline, load_id, rows_received, rows_inserted, finished_at FROM _loads ORDER BY started_at DESC LIMIT 5"
Ctrl-C stops everything.`;
}

/**
 * The first start of a warehouse lands the replay's recent history for each news pipeline: its
 * query over the last BACKFILL_DAYS days. Each backfill's `_loads` row (workflow id
 * newsflow-backfill-<pipeline>) is its marker: later starts skip it; a pipeline added later is
 * backfilled on the next start.
 */
export async function startBackfill(client: Client, warehouse: Queryable, history: Promise<void> | undefined, pipelines: Pipeline[]): Promise<string> {
  const news = pipelines.filter((p): p is Extract<Pipeline, { kind: 'news' }> => p.kind === 'news');
  if (!news.length) return 'none (no news pipeline)';
  const done = new Set(
    (await warehouse.query<{ w: string }>(`SELECT DISTINCT workflow_id AS w FROM _loads WHERE workflow_id LIKE 'newsflow-backfill-%'`).catch(() => [])).map(
      (r) => r.w,
    ),
  );
  const todo = news.filter((p) => !done.has(backfillId(p.name)));
  if (!todo.length) return `done before (the last ${BACKFILL_DAYS} days of each news pipeline; _loads workflow_id newsflow-backfill-<pipeline>)`;
  const start = async () => {
    const to = new Date();
    const from = new Date(to.getTime() - BACKFILL_DAYS * 86_400_000);
    for (const p of todo)
      await client.workflow
        .start('newsIngest', {
          taskQueue: TASK_QUEUES.news,
          workflowId: backfillId(p.name),
          args: [
            {
              pipeline: p.name,
              query: p.query,
              filters: p.filters ?? {},
              from: from.toISOString(),
              to: to.toISOString(),
              pageSize: p.page_size,
              ...(p.schema ? { schema: p.schema } : {}),
            },
          ],
        })
        .catch((e: Error) => {
          // a start stopped before the backfill landed left it running: it goes on
          if (e.name !== 'WorkflowExecutionAlreadyStartedError') throw e;
        });
  };
  const what = `the last ${BACKFILL_DAYS} days of ${todo.map((p) => p.name).join(', ')}, once per warehouse (workflows newsflow-backfill-<pipeline>)`;
  if (!history) {
    await start();
    return what;
  }
  history.then(start).catch((e: Error) => console.error(`newsflow: the backfill did not start: ${e.message}`));
  return `${what}, as soon as those days are loaded`;
}

type Queryable = { query<T>(sql: string, params?: unknown[]): Promise<T[]> };
const FINISHED = 'SELECT load_id, pipeline, kind, workflow_id, rows_received, rows_inserted FROM _loads WHERE finished_at IS NOT NULL ORDER BY finished_at';
type LoadRow = { load_id: string; pipeline: string; kind: string; workflow_id: string; rows_received: number | bigint; rows_inserted: number | bigint };

/** The line of a finished load; a maintenance run lands no rows: its row counts the lake's live files before and after. */
export const loadLine = (r: LoadRow, after: string): string =>
  r.kind === 'maintenance'
    ? `load ${r.pipeline}: lake maintenance, ${Number(r.rows_received)} live data files before, ${Number(r.rows_inserted)} after (${r.workflow_id}; ${after} after start)`
    : `load ${r.pipeline}: ${Number(r.rows_received)} rows received, ${Number(r.rows_inserted)} new (${r.workflow_id}; ${after} after start)`;

/** One line per load finished after `watchLoads` was called, as `_loads` gets them; returns a stop function. */
async function watchLoads(warehouse: Queryable, secs: () => string): Promise<() => void> {
  const seen = new Set((await warehouse.query<LoadRow>(FINISHED).catch(() => [])).map((r) => r.load_id));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    try {
      for (const r of await warehouse.query<LoadRow>(FINISHED)) {
        if (seen.has(r.load_id)) continue;
        seen.add(r.load_id);
        console.log(loadLine(r, secs()));
      }
    } catch {
      /* the warehouse is closing */
    }
    if (!stopped) timer = setTimeout(() => void poll(), 2000).unref();
  };
  timer = setTimeout(() => void poll(), 1000).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** The rest of the corpus, then the forum threads and the encyclopedia pages: one line each when done. */
async function backgroundLoads(
  svc: Running,
  rest: Promise<SeedResult> | undefined,
  corpus: string,
  cache: CorpusCache,
  secs: () => string,
  replay: number,
): Promise<void> {
  try {
    if (rest) {
      const r = await rest;
      if (r.total < r.read) return; // stopped before the corpus was loaded
      if (r.enriched === 0) console.log(`corpus: ${r.total} articles in the store, unchanged (${secs()} after start)`);
      else
        console.log(
          `corpus: ${r.total} articles in the store, ${r.enriched} loaded now (${cache.state === 'hit' ? 'enrichment from the enriched-corpus cache' : `enriched; cached for the next data dir in ${path.dirname(cache.file ?? '')}`}; ${secs()} after start)`,
        );
    }
    cache.release();
    // the shared forum threads (<corpus>/forum) for forum search and stories' reddit threads, their
    // dates moved by the replay like the news (service/forum/store.ts: timeline)
    const forumDir = path.join(corpus, 'forum');
    if (svc.services.forum && fs.existsSync(forumDir) && fs.statSync(forumDir).isDirectory()) {
      const f = await svc.services.forum.load(forumDir, { timeline: { speed: replay } });
      console.log(`forum: ${f.stored.threads} threads, ${f.stored.comments} comments (${f.threads.inserted} new, ${f.enriched} enriched)`);
    }
    // the encyclopedia: the saved Wikipedia pages of the shared data (GET /v1/wiki/search)
    const pages = path.join(corpus, 'html', 'readability');
    if (fs.existsSync(pages) && fs.statSync(pages).isDirectory() && svc.services.wiki) {
      const w = await svc.services.wiki.load(pages);
      console.log(`wiki: ${w.loaded} articles loaded, ${w.unchanged} unchanged (${svc.services.wiki.index.articleCount} in the store)`);
    }
  } catch (e) {
    if (stopping) return;
    // stopped while loading (Ctrl-C closes the stores), or a corpus problem: say so, keep running
    console.error(`newsflow: background load stopped: ${(e as Error).message}`);
  }
}
