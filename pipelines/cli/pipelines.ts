/** The pipelines: `worker` (runs them all) and `run` (one now, waiting for it). */
import type { Command } from 'commander';
import { TASK_QUEUES } from '../../workflows/queues.js';
import type { RunRequest } from '../run/run-once.js';
import type { Pipeline } from '../run/preflight.js';
import { CliError, dataDirOpt, intArg, list, verboseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const sampler = () => import('../../activities/index-count-sampler.js');

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const spec = () => import('../../spec/index.js');

const PIPELINES = ['news-ingest', 'distribution', 'index-counts', 'story-tracker', 'graph'];

interface RunOptions {
  from?: string;
  to?: string;
  query: string;
  out?: string;
  visualize?: boolean;
  geo?: boolean;
  minClusterProbability?: string;
  domains?: string[];
  pageSize: number;
  sampling: string;
  filters?: string;
  trackers?: string;
  schema?: string;
  dataDir?: string;
  verbose?: boolean;
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('run the Temporal worker (all workflows and activities); checks the API and key first; stops cleanly on SIGINT/SIGTERM')
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .action(async (o: { dataDir?: string; verbose?: boolean }) => {
      const { runWorker } = await import('../run/run-once.js');
      await runWorker(o.dataDir, { verbose: o.verbose });
    });

  program
    .command('run <pipeline>')
    .description(
      "run a pipeline once now and wait for it: one of the project file's named pipelines (its declared run, now), or a kind with options (news-ingest, distribution, index-counts, story-tracker, graph)",
    )
    .option('--from <time>', 'window start (ISO date or date-time, UTC); all but story-tracker (graph: optional, on pub_date)')
    .option('--to <time>', 'window end (ISO date or date-time, UTC); all but story-tracker (graph: optional)')
    .option('--trackers <json>', 'story-tracker: JSON array of trackers, e.g. \'[{"name":"top","strategy":"topstories","stories":20}]\'')
    .option('--query <q>', 'news-ingest: search query (default: every article in the window); graph: the query whose articles make the graph', '')
    .option('--out <file>', "graph: write the run's graph (nodes, edges, URLs) as JSON to this file")
    .option('--visualize', 'graph: ask for a visualize_url (a page drawing the graph)')
    .option('--geo', 'graph: places get coordinates (geo_disambiguation)')
    .option('--min-cluster-probability <p>', 'graph: merges below this probability are not applied (0..1, default 0.9)')
    .option('--domains <list>', 'distribution: comma-separated domains of your organization', list)
    .option('--sampling <s>', 'index-counts: bucket size 5m, 1h, 12h, 1d, 1w or 1m; with --domains one series per domain, else one over every domain', '1d')
    .option(
      '--filters <json>',
      'index-counts: index_counts filters as JSON, e.g. \'{"languages":["en"],"time_filter":"crawl_date"}\'; graph: search filter_params as JSON',
    )
    .option('--page-size <n>', 'rows per page (news-ingest 1-101, distribution 1-100)', intArg('--page-size'), 100)
    .option('--schema <contract>', 'news-ingest: what a field the API adds or drops does: evolve (default), freeze (the run fails naming it) or discard')
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .action(async (pipeline: string, o: RunOptions) => {
      const request = PIPELINES.includes(pipeline) ? await runRequest(pipeline, o) : await namedRequest(pipeline);
      const { runOnce } = await import('../run/run-once.js');
      await runOnce(o.dataDir, request, { verbose: o.verbose });
    });
}

/** The run of a named pipeline of the project file: its (first) schedule's workflow and argument, now. */
async function namedRequest(name: string): Promise<RunRequest<never>> {
  const { useProject } = await import('../config/index.js');
  const { pipelineSchedules } = await import('../schedules/declare.js');
  const { scheduledNeeds } = await import('../run/preflight.js');
  const p = useProject().pipelines.find((x) => x.name === name);
  if (!p) {
    const names = useProject().pipelines.map((x) => x.name);
    throw new CliError(
      `no pipeline "${name}" in the project file${names.length ? ` (its pipelines: ${names.join(', ')})` : ''} and no kind of that name; kinds: ${PIPELINES.join(', ')}`,
    );
  }
  const [d] = pipelineSchedules(p);
  if (!d) throw new CliError(`pipeline ${name} runs nothing (an alerts pipeline with sync: false)`);
  return {
    workflowType: d.workflowType,
    taskQueue: d.taskQueue,
    input: (d.args[0] as Record<string, unknown> | undefined) ?? {},
    show: () => [0, 1, name],
    need: scheduledNeeds([d])[0] ?? { pipeline: 'news-ingest' },
  };
}

/** The workflow `newsflow run <pipeline>` starts, from its options; a CliError says what is wrong with them. */
async function runRequest(pipeline: string, o: RunOptions): Promise<RunRequest<never>> {
  if (!PIPELINES.includes(pipeline)) throw new CliError(`unknown pipeline "${pipeline}"; pipelines: ${PIPELINES.join(', ')}`);
  if (pipeline === 'story-tracker') return storyTrackerRequest(o.trackers);
  if (pipeline === 'graph') return graphRequest(o);
  if (!o.from || !o.to) throw new CliError(`--from and --to are required for ${pipeline}, e.g. --from 2022-07-01 --to 2022-07-11`);
  const from = Date.parse(o.from);
  const to = Date.parse(o.to);
  if (Number.isNaN(from) || Number.isNaN(to)) throw new CliError('--from and --to must be ISO dates, e.g. 2026-01-15 or 2026-01-15T06:00:00Z');
  if (to < from) throw new CliError(`--from (${o.from}) is after --to (${o.to})`);
  const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  if (pipeline === 'index-counts') {
    if (!(await spec()).Sampling.safeParse(o.sampling).success)
      throw new CliError(`unknown --sampling "${o.sampling}"; samplings: ${(await spec()).Sampling.options.join(', ')}`);
    let filters: Record<string, unknown>;
    try {
      filters = o.filters ? JSON.parse(o.filters) : {};
      (await sampler()).canonicalFilters(filters);
    } catch (e) {
      throw new CliError(`--filters: ${(e as Error).message}; e.g. --filters '{"languages":["en"],"categories":["Politics"]}'`);
    }
    return request(
      'index-counts',
      'indexCountSampler',
      TASK_QUEUES.news,
      { sampling: o.sampling, domains: o.domains, filters, ...window },
      (p: { done: number; domains: number; buckets: number }) => [p.done, p.domains, `${p.buckets} buckets`],
    );
  }
  if (pipeline === 'news-ingest') {
    if (o.pageSize < 1 || o.pageSize > 101) throw new CliError('--page-size must be 1..101');
    if (o.schema !== undefined && !['evolve', 'freeze', 'discard'].includes(o.schema))
      throw new CliError(`unknown --schema "${o.schema}"; use evolve, freeze or discard`);
    return request(
      'news-ingest',
      'newsIngest',
      TASK_QUEUES.news,
      { query: o.query, ...window, pageSize: o.pageSize, ...(o.schema ? { schema: o.schema } : {}) },
      (p: { pages: number; received: number }) => [p.received, Math.max(p.received, 1), `${p.pages} pages`],
    );
  }
  if (!o.domains?.length) throw new CliError('--domains is required for distribution, e.g. --domains a.com,b.com');
  if (o.pageSize < 1 || o.pageSize > 100) throw new CliError('--page-size must be 1..100 for distribution');
  return request(
    'distribution',
    'distributionPull',
    TASK_QUEUES.distribution,
    { domains: o.domains, ...window, pageSize: o.pageSize },
    (p: { windowIndex: number; windows: number; totalPages: number }) => [p.windowIndex, p.windows, `${p.totalPages} pages`],
  );
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
  return request(
    'story-tracker',
    'storyTracker',
    TASK_QUEUES.stories,
    trackers ? { trackers } : {},
    (p: { done: number; trackers: number; stories: number }) => [p.done, p.trackers, `${p.stories} stories`],
  );
}

function graphRequest(o: RunOptions): RunRequest<never> {
  if (!o.query.trim()) throw new CliError('--query is required for graph, e.g. --query "Ukraine Russia talks"');
  let filterParams: Record<string, unknown>;
  try {
    filterParams = o.filters ? JSON.parse(o.filters) : {};
  } catch (e) {
    throw new CliError(`--filters is not JSON (${(e as Error).message}); e.g. --filters '{"languages":["en"],"n_articles":50}'`);
  }
  if (!filterParams || typeof filterParams !== 'object' || Array.isArray(filterParams))
    throw new CliError('--filters must be a JSON object of search parameters');
  for (const [opt, field] of [
    [o.from, 'start_timestamp'],
    [o.to, 'end_timestamp'],
  ] as const) {
    if (opt === undefined) continue;
    const t = Date.parse(opt);
    if (Number.isNaN(t)) throw new CliError(`--from and --to must be ISO dates, e.g. 2022-01-15 (got ${opt})`);
    filterParams = { time_filter: 'pub_date', ...filterParams, [field]: Math.floor(t / 1000) };
  }
  let minClusterProbability: number | undefined;
  if (o.minClusterProbability !== undefined) {
    minClusterProbability = Number(o.minClusterProbability);
    if (!(minClusterProbability >= 0 && minClusterProbability <= 1)) throw new CliError('--min-cluster-probability must be a number from 0 to 1');
  }
  const out = o.out;
  return {
    ...request(
      'graph',
      'entityGraph',
      TASK_QUEUES.news,
      { query: o.query, filterParams, minClusterProbability, geo: !!o.geo, visualize: !!o.visualize },
      (p: { done: number }) => [p.done, 1, p.done ? 'landed' : 'building'],
    ),
    after: out ? async (result, dataDir) => (await import('../run/graph-file.js')).writeGraphFile(dataDir, result, out) : undefined,
  };
}

const request = <P>(
  pipeline: Pipeline,
  workflowType: string,
  taskQueue: string,
  input: Record<string, unknown>,
  show: (p: P) => [number, number, string],
): RunRequest<P> => ({
  workflowType,
  taskQueue,
  input,
  show,
  need: pipeline === 'distribution' ? { pipeline, domains: input.domains as string[] } : { pipeline },
});
