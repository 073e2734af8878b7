/** The pipelines: `worker` (runs them all) and `run` (one now, waiting for it). */
import type { Command } from 'commander';
import { Sampling } from '../../spec/index.js';
import { canonicalFilters } from '../../activities/indexCountSampler.js';
import { runOnce, runWorker, type RunRequest } from '../run.js';
import { TASK_QUEUES } from '../worker.js';
import { CliError, dataDirOpt, intArg, list } from './shared.js';

const PIPELINES = ['news-ingest', 'distribution', 'index-counts', 'story-tracker'];

interface RunOptions { from?: string; to?: string; query: string; domains?: string[]; pageSize: number; sampling: string; filters?: string; trackers?: string; dataDir?: string }

export function register(program: Command): void {
  program
    .command('worker')
    .description('run the Temporal worker (all workflows and activities); stops cleanly on SIGINT/SIGTERM')
    .option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => {
      await runWorker(o.dataDir);
    });

  program
    .command('run <pipeline>')
    .description('run a pipeline once now and wait for it (pipelines: news-ingest, distribution, index-counts, story-tracker)')
    .option('--from <time>', 'window start (ISO date or date-time, UTC); all but story-tracker')
    .option('--to <time>', 'window end (ISO date or date-time, UTC); all but story-tracker')
    .option('--trackers <json>', 'story-tracker: JSON array of trackers, e.g. \'[{"name":"top","strategy":"topstories","stories":20}]\'')
    .option('--query <q>', 'news-ingest: search query (default: every article in the window)', '')
    .option('--domains <list>', 'distribution: comma-separated domains of your organization', list)
    .option('--sampling <s>', 'index-counts: bucket size 5m, 1h, 12h, 1d, 1w or 1m; with --domains one series per domain, else one over every domain', '1d')
    .option('--filters <json>', 'index-counts: index_counts filters as JSON, e.g. \'{"languages":["en"],"time_filter":"crawl_date"}\'')
    .option('--page-size <n>', 'rows per page (news-ingest 1-101, distribution 1-100)', intArg('--page-size'), 100)
    .option(...dataDirOpt)
    .action(async (pipeline: string, o: RunOptions) => {
      await runOnce(o.dataDir, runRequest(pipeline, o));
    });
}

/** The workflow `newsflow run <pipeline>` starts, from its options; a CliError says what is wrong with them. */
function runRequest(pipeline: string, o: RunOptions): RunRequest<never> {
  if (!PIPELINES.includes(pipeline)) throw new CliError(`unknown pipeline "${pipeline}"; pipelines: ${PIPELINES.join(', ')}`);
  if (pipeline === 'story-tracker') return storyTrackerRequest(o.trackers);
  if (!o.from || !o.to) throw new CliError(`--from and --to are required for ${pipeline}, e.g. --from 2022-07-01 --to 2022-07-11`);
  const from = Date.parse(o.from);
  const to = Date.parse(o.to);
  if (Number.isNaN(from) || Number.isNaN(to)) throw new CliError('--from and --to must be ISO dates, e.g. 2026-01-15 or 2026-01-15T06:00:00Z');
  if (to < from) throw new CliError(`--from (${o.from}) is after --to (${o.to})`);
  const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  if (pipeline === 'index-counts') {
    if (!Sampling.safeParse(o.sampling).success) throw new CliError(`unknown --sampling "${o.sampling}"; samplings: ${Sampling.options.join(', ')}`);
    let filters: Record<string, unknown> = {};
    try {
      filters = o.filters ? JSON.parse(o.filters) : {};
      canonicalFilters(filters);
    } catch (e) {
      throw new CliError(`--filters: ${(e as Error).message}; e.g. --filters '{"languages":["en"],"categories":["Politics"]}'`);
    }
    return request('indexCountSampler', TASK_QUEUES.news, { sampling: o.sampling, domains: o.domains, filters, ...window },
      (p: { done: number; domains: number; buckets: number }) => [p.done, p.domains, `${p.buckets} buckets`]);
  }
  if (pipeline === 'news-ingest') {
    if (o.pageSize < 1 || o.pageSize > 101) throw new CliError('--page-size must be 1..101');
    return request('newsIngest', TASK_QUEUES.news, { query: o.query, ...window, pageSize: o.pageSize },
      (p: { pages: number; received: number }) => [p.received, Math.max(p.received, 1), `${p.pages} pages`]);
  }
  if (!o.domains?.length) throw new CliError('--domains is required for distribution, e.g. --domains a.com,b.com');
  if (o.pageSize < 1 || o.pageSize > 100) throw new CliError('--page-size must be 1..100 for distribution');
  return request('distributionPull', TASK_QUEUES.distribution, { domains: o.domains, ...window, pageSize: o.pageSize },
    (p: { windowIndex: number; windows: number; totalPages: number }) => [p.windowIndex, p.windows, `${p.totalPages} pages`]);
}

function storyTrackerRequest(trackersJson: string | undefined): RunRequest<never> {
  let trackers: unknown;
  try {
    trackers = trackersJson ? JSON.parse(trackersJson) : undefined;
  } catch (e) {
    throw new CliError(`--trackers is not JSON (${(e as Error).message}); e.g. --trackers '[{"name":"top","strategy":"topstories","stories":20}]'`);
  }
  if (trackers !== undefined && (!Array.isArray(trackers) || !trackers.every((t) => t && typeof t === 'object' && typeof t.name === 'string'))) {
    throw new CliError('--trackers must be a JSON array of objects with a "name", e.g. [{"name":"ukraine","query":"Ukraine war","method":"both"}]');
  }
  return request('storyTracker', TASK_QUEUES.stories, trackers ? { trackers } : {},
    (p: { done: number; trackers: number; stories: number }) => [p.done, p.trackers, `${p.stories} stories`]);
}

const request = <P>(workflowType: string, taskQueue: string, input: Record<string, unknown>, show: (p: P) => [number, number, string]): RunRequest<P> =>
  ({ workflowType, taskQueue, input, show });
