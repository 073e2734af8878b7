/**
 * The kinds of pipeline, their pure part: per kind its one name (the project file's `kind`, the
 * CLI's `newsflow run <kind>`, `_loads.kind`, the docs), the workflow type it starts, its task
 * queue, the API operations its activities call (the preflight checks the key for them), its
 * default schedule and the warehouse tables it lands. Here, below pipelines/, because workflows
 * write their kind into `_loads` and import nothing of pipelines/; it is plain data (the workflow
 * bundle includes it). What the project file takes per kind, and how a kind builds its workflow's
 * argument from a project-file entry and from the CLI, is pipelines/config/kinds.ts: the registry,
 * whose entries spread these.
 */
import { TASK_QUEUES } from './queues.js';

/** When a pipeline runs when its entry gives no schedule: an interval or a cron expression (UTC), and the catch-up window. */
export interface DefaultSchedule {
  every?: string;
  cron?: string;
  catchup: string;
}

export interface KindSpec {
  /** the one name: config `kind`, `newsflow run <name>`, `_loads.kind`, docs */
  name: string;
  /** the workflow a run of the kind starts */
  workflowType: string;
  /** further workflow types of the kind (started by its workflow, e.g. one alert's run) */
  moreWorkflowTypes?: readonly string[];
  /** the task queue its runs go to (whose rate limits its activities share) */
  taskQueue: string;
  /** the API operations its activities call: what its key must be allowed to call (spec/routes.ts) */
  operations: readonly string[];
  /** the schedule of an entry that gives none (null: the kind decides per entry, e.g. index-counts per sampling) */
  defaultSchedule: DefaultSchedule | null;
  /** the warehouse tables it lands into (besides `_loads`) */
  tables: readonly string[];
  /** how to set a scheduled pipeline of the kind aside (the fix of a worker's failed check) */
  leaveOut?: string;
  /**
   * the project file's `checks:` its loads take (workflows/checks.ts): min_rows, and `invariants:
   * enforce` over these boolean invariants its `_loads` rows record (empty: it records none, so
   * only min_rows); absent: the kind takes no checks
   */
  checks?: { invariants: readonly string[] };
  /** names the kind went by before (accepted on input for one release, with a warning; rewritten in `_loads.kind`) */
  formerNames?: readonly string[];
}

/** Type-checks a kind's pure part (returns it as it is). */
export const defineKindSpec = <K extends KindSpec>(k: K): K => k;

const removeIt = (kind: string) => `remove its ${kind} pipelines from newsflow.yaml`;

/** newsflow's kinds. */
export const KIND_SPECS = {
  news: defineKindSpec({
    name: 'news',
    workflowType: 'newsIngest',
    taskQueue: TASK_QUEUES.news,
    operations: ['search_news'],
    defaultSchedule: { every: '15m', catchup: '1h' },
    tables: ['articles', 'article_entities', 'article_keywords', 'article_classifications', 'pipeline_articles'],
    // (pages_contiguous is recorded too, and true by construction: the pages are asked one after another)
    checks: { invariants: ['rows_equal_offset'] },
    leaveOut: removeIt('news'),
    formerNames: ['news-ingest'],
  }),
  distribution: defineKindSpec({
    name: 'distribution',
    workflowType: 'distributionPull',
    taskQueue: TASK_QUEUES.distribution,
    operations: ['get_user_profile', 'domain_hit_share', 'top_n_articles_for_domains', 'get_domain_metrics'],
    defaultSchedule: { cron: '0 2 * * *', catchup: '1d' },
    tables: ['distribution_top_articles', 'distribution_pages', 'distribution_hit_share', 'distribution_metrics'],
    leaveOut: removeIt('distribution'),
    formerNames: ['distribution-pull'],
  }),
  stories: defineKindSpec({
    name: 'stories',
    workflowType: 'storyTracker',
    taskQueue: TASK_QUEUES.stories,
    operations: ['get_stories'],
    defaultSchedule: { cron: '5 * * * *', catchup: '3h' },
    tables: ['stories', 'story_updates', 'update_articles', 'story_metrics'],
    checks: { invariants: [] },
    leaveOut: removeIt('stories'),
    formerNames: ['story-tracker'],
  }),
  'index-counts': defineKindSpec({
    name: 'index-counts',
    workflowType: 'indexCountSampler',
    taskQueue: TASK_QUEUES.news,
    operations: ['get_index_counts'],
    defaultSchedule: null,
    tables: ['index_counts'],
    checks: { invariants: ['buckets_contiguous', 'same_buckets_per_domain'] },
    leaveOut: `${removeIt('index-counts')}, or NEWSFLOW_INDEX_COUNT_SAMPLINGS=""`,
    formerNames: ['index-count-sampler'],
  }),
  research: defineKindSpec({
    name: 'research',
    workflowType: 'deepResearch',
    taskQueue: TASK_QUEUES.research,
    // (no probe: a DeepNews call is the costly thing itself; the key check still runs)
    operations: ['deep_news'],
    defaultSchedule: { cron: '0 6 * * *', catchup: '1d' },
    tables: ['research_runs', 'research_sources'],
    leaveOut: removeIt('research'),
    formerNames: ['deep-research'],
  }),
  graph: defineKindSpec({
    name: 'graph',
    workflowType: 'entityGraph',
    taskQueue: TASK_QUEUES.news,
    operations: ['build_graph'],
    defaultSchedule: { cron: '0 7 * * *', catchup: '1d' },
    tables: ['graph_nodes', 'graph_edges'],
    checks: { invariants: [] },
    leaveOut: removeIt('graph'),
  }),
  alerts: defineKindSpec({
    name: 'alerts',
    workflowType: 'alertSync',
    moreWorkflowTypes: ['alertRun'],
    taskQueue: TASK_QUEUES.alerts,
    operations: ['get_alerts', 'run_alert', 'get_alert_logs'],
    defaultSchedule: { every: '1m', catchup: '5m' },
    tables: ['alerts', 'alert_logs', 'alert_deliveries'],
    leaveOut: 'set sync: false on its alerts pipeline in newsflow.yaml, or NEWSFLOW_ALERTS=0',
  }),
  /** lake maintenance (warehouse/maintain.ts): no API calls; it lands no rows, its runs are `_loads` rows */
  maintenance: defineKindSpec({
    name: 'maintenance',
    workflowType: 'lakeMaintenance',
    taskQueue: TASK_QUEUES.maintenance,
    operations: [],
    defaultSchedule: { cron: '30 3 * * *', catchup: '1d' },
    tables: [],
    leaveOut: removeIt('maintenance'),
  }),
  /** a workflow of your own pipelines module: its workflow type and queue are the entry's */
  workflow: defineKindSpec({
    name: 'workflow',
    workflowType: '',
    taskQueue: TASK_QUEUES.news,
    operations: [],
    defaultSchedule: { every: '1h', catchup: '1h' },
    tables: [],
  }),
} as const;

export type BuiltinKind = keyof typeof KIND_SPECS;
