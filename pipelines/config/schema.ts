/**
 * The project file, `newsflow.yaml`: one zod schema. Its JSON Schema (`newsflow.schema.json`, for
 * editors) and its reference (`docs/configuration.md`) are generated from it; defaults live here,
 * next to the fields they belong to, and `meta({ env })` names the environment variable that
 * overrides a field (see project.ts for the precedence).
 */
import { z } from 'zod';
import { Cron } from 'croner';
import { DeepNewsSource, IndexCountsQuery, LIMIT_GROUPS, Sampling, filterShape } from '../../spec/index.js';
import { SourceEntry, sourceName } from '../../lib/feeds/source.js';

/** `30s`, `15m`, `1h`, `2d`, `1w`: a whole number and a unit. */
export const Duration = z
  .string()
  .regex(/^[1-9]\d{0,5}(s|m|h|d|w)$/, 'a duration: a whole number and one of s, m, h, d, w, e.g. 15m, 1h, 2d')
  .meta({ examples: ['15m', '1h', '1d'] });
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
export const durationMs = (d: string): number => Number(d.slice(0, -1)) * UNIT_MS[d.slice(-1) as keyof typeof UNIT_MS];

/** A five-field cron expression in UTC, as Temporal schedules take it. */
export const CronExpr = z
  .string()
  .refine((s) => s.trim().split(/\s+/).length === 5, 'a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 6 * * *"')
  .refine((s) => {
    if (s.trim().split(/\s+/).length !== 5) return true; // said above
    try {
      new Cron(s.trim(), { paused: true });
      return true;
    } catch {
      return false;
    }
  }, 'a valid cron expression (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *"');

export const Schedule = z
  .strictObject({
    every: Duration.optional().describe('run at this interval (e.g. 15m); one of every or cron'),
    cron: CronExpr.optional().describe('run at these times (UTC, five fields); one of every or cron'),
    catchup: Duration.optional().describe('how far back runs missed while nothing ran are caught up (default: per kind)'),
    paused: z.boolean().optional().describe('declared but not running'),
  })
  .refine((s) => (s.every === undefined) !== (s.cron === undefined), { message: 'give exactly one of every or cron' })
  .describe('when the pipeline runs: every or cron, plus a catch-up window');
export type Schedule = z.infer<typeof Schedule>;

export const PipelineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a name of lower-case letters, digits and dashes (at most 63), e.g. chips-export-controls');

/** The search parameters a news pipeline may set; the pipeline sets the window, paging and return type itself. */
const PIPELINE_SET = ['query', 'n_articles', 'offset', 'start_timestamp', 'end_timestamp', 'return_type', 'historical', 'hours_back'] as const;
/** A field as the API takes it, without its default: a pipeline's filters hold what the file says, no more. */
const given = (s: z.ZodType): z.ZodType => (s instanceof z.ZodDefault ? (s.unwrap() as z.ZodType) : s).optional();
const searchFilters = Object.fromEntries(
  Object.entries(filterShape)
    .filter(([k]) => !(PIPELINE_SET as readonly string[]).includes(k))
    .map(([k, s]) => [k, given(s as z.ZodType)]),
);
export const NewsFilters = z.strictObject(searchFilters).describe('any search parameter of GET /v1/news/search but the window, paging and return type');

const base = {
  name: PipelineName.describe('unique name: the schedule id, and the `pipeline` column of _loads and pipeline_articles'),
  schedule: Schedule.optional(),
};

export const NewsPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('news'),
    query: z.string().max(2000).default('').describe('search query (empty: every article of the window)'),
    filters: NewsFilters.optional(),
    window: Duration.default('1h').describe('each run pulls the articles crawled in this window before its scheduled time'),
    page_size: z.int().min(1).max(101).default(100).describe('articles per request'),
    schema: z
      .enum(['evolve', 'freeze', 'discard'])
      .optional()
      .describe(
        'what a field the API adds (or drops) does: evolve (default) adds a column filled from raw, freeze fails the run naming the path, discard leaves it out; every change is recorded in _schema_changes (docs/warehouse.md)',
      ),
  })
  .describe('news: page a search over a window of crawl dates and land the articles');

export const DistributionPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('distribution'),
    domains: z.array(z.string().min(1)).min(1).describe("your organization's domains"),
    metric: z.enum(['surface', 'citation', 'grounded']).optional().describe('hit metric (default: the API default)'),
    page_size: z.int().min(1).max(100).default(100),
  })
  .describe('distribution: month-bounded pulls of the hits on your domains (month to date on each run)');

export const StoryTracker = z.strictObject({
  name: PipelineName,
  query: z.string().optional(),
  method: z.enum(['nl', 'kw', 'both']).optional(),
  strategy: z.enum(['default', 'topstories', 'topstories_categories', 'topstories_continents']).optional(),
  categories: z.array(z.string()).optional(),
  continent: z.union([z.string(), z.array(z.string())]).optional(),
  sort_by: z.enum(['published', 'coverage', 'sentiment', 'relevance', 'confidence']).optional(),
  stories: z.int().min(1).max(1000).optional().describe('stories per run (default 20)'),
  max_updates: z.int().min(1).optional(),
  max_articles: z.int().min(1).optional(),
});
export const StoriesPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('stories'),
    trackers: z
      .array(StoryTracker)
      .min(1)
      .default([{ name: 'top', strategy: 'topstories', stories: 20 }]),
  })
  .describe('stories: track story queries; land stories, updates and their metrics per run');

const countFilters = Object.fromEntries(
  Object.entries(IndexCountsQuery.shape)
    .filter(([k]) => !['start_datetime', 'end_datetime', 'domains', 'sampling'].includes(k))
    .map(([k, s]) => [k, given(s as z.ZodType)]),
);
export const IndexCountsPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('index-counts'),
    samplings: z.array(Sampling).min(1).default(['1h', '1d']).describe('bucket sizes; one schedule each, at its own cadence unless schedule is given'),
    domains: z.array(z.string().min(1)).optional().describe('one series per domain (default: one series over every domain)'),
    filters: z.strictObject(countFilters).optional().describe('any GET /v1/index_counts filter'),
    lookback: Duration.optional().describe('re-sample this far back on each run (default: per sampling)'),
  })
  .describe('index-counts: sample the index counts per domain and bucket');

export const RESEARCH_MAX_DEPTH = 190;
export const ResearchPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('research'),
    question: z.string().min(1).max(4000),
    depth: z.int().min(1).max(RESEARCH_MAX_DEPTH).default(3).describe('research rounds'),
    sources: z.array(DeepNewsSource).optional().describe('DeepNews sources (default: the API default)'),
    model: z.string().optional().describe('DeepNews model (default: the API default)'),
    filters: NewsFilters.optional(),
  })
  .describe('research: a standing question answered by DeepNews; lands a briefing and its sources');

export const GraphPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('graph'),
    query: z.string().min(1).max(2000),
    filters: NewsFilters.optional(),
    options: z
      .strictObject({
        geo: z.boolean().default(false).describe('places get coordinates'),
        visualize: z.boolean().default(false).describe('ask for a visualize_url'),
        min_cluster_probability: z.number().min(0).max(1).optional(),
      })
      .optional(),
  })
  .describe('graph: the knowledge graph of a query; lands nodes and edges per run');

export const AlertsPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('alerts'),
    sync: z.boolean().default(true).describe('keep one schedule per active alert of the API (off: alerts are not run here)'),
  })
  .describe('alerts: run the API key’s alerts and deliver their triggers');

export const WorkflowPipeline = z
  .strictObject({
    ...base,
    kind: z.literal('workflow'),
    workflow: z
      .string()
      .regex(/^[A-Za-z_$][\w$]*$/, 'the name of a workflow function your workflows module exports')
      .describe('a workflow of your own (the module `workflows:` names) to run on the schedule'),
    input: z.record(z.string(), z.unknown()).default({}).describe('its argument, an object (`pipeline` is set to the pipeline name)'),
    queue: z
      .enum(['news', 'stories', 'distribution', 'alerts', 'research'])
      .default('news')
      .describe("the task queue it runs on: whose rate limits its activities (and newsflow's it calls) share"),
  })
  .describe('workflow: a workflow of your own pipelines module (see examples/custom-pipeline)');

export const Pipeline = z.discriminatedUnion('kind', [
  NewsPipeline,
  DistributionPipeline,
  StoriesPipeline,
  IndexCountsPipeline,
  ResearchPipeline,
  GraphPipeline,
  AlertsPipeline,
  WorkflowPipeline,
]);
export type Pipeline = z.infer<typeof Pipeline>;
export type PipelineKind = Pipeline['kind'];
export const PIPELINE_KINDS = Pipeline.options.map((o) => o.shape.kind.value);

/** Each kind's schedule when the entry gives none. */
export const DEFAULT_SCHEDULES: Record<Exclude<PipelineKind, 'index-counts'>, { every?: string; cron?: string; catchup: string }> = {
  news: { every: '15m', catchup: '1h' },
  distribution: { cron: '0 2 * * *', catchup: '1d' },
  stories: { cron: '5 * * * *', catchup: '3h' },
  research: { cron: '0 6 * * *', catchup: '1d' },
  graph: { cron: '0 7 * * *', catchup: '1d' },
  alerts: { every: '1m', catchup: '5m' },
  workflow: { every: '1h', catchup: '1h' },
};

const Limit = z.strictObject({
  rate: z.number().positive().describe('requests per second'),
  burst: z.int().min(1).describe('bucket capacity'),
  concurrency: z.int().min(1).describe('requests in flight at once'),
});

export const ProjectFile = z
  .strictObject({
    $schema: z.string().optional().describe('the JSON Schema of this file, for editors'),
    version: z.literal(1).default(1).describe('version of the file format'),
    api: z
      .strictObject({
        url: z
          .url({ protocol: /^https?$/ })
          .optional()
          .describe('base URL of the API (unset: the embedded service `newsflow start` runs)')
          .meta({ 'x-env': 'NEWSFLOW_API_URL' }),
        key: z.string().optional().describe('the API key, as ${ENV_VAR}: secrets never sit in the file').meta({ 'x-env': 'NEWSFLOW_API_KEY' }),
      })
      .default({}),
    warehouse: z
      .strictObject({
        path: z.string().default('./data').describe('data directory: the warehouse, the embedded service, logs').meta({ 'x-env': 'NEWSFLOW_DATA_DIR' }),
        catalog: z
          .string()
          .optional()
          .describe('DuckLake catalog: a SQLite file (default <path>/lake.sqlite) or postgres://…')
          .meta({ 'x-env': 'NEWSFLOW_LAKE_CATALOG' }),
        data: z.string().optional().describe('where the Parquet files go: a folder or s3://… (default <path>/lake/)').meta({ 'x-env': 'NEWSFLOW_LAKE_DATA' }),
      })
      .default({ path: './data' }),
    temporal: z
      .strictObject({
        server: z
          .string()
          .regex(/^(dev|postgres|[^\s:/]+:\d{1,5})$/, 'dev, postgres or host:port')
          .default('dev')
          .describe(
            'dev (the Temporal CLI dev server, started for you), postgres (the Temporal server on PostgreSQL, started for you) or host:port of a running server',
          )
          .meta({ 'x-env': 'TEMPORAL_ADDRESS / NEWSFLOW_TEMPORAL' }),
        namespace: z.string().min(1).default('default').meta({ 'x-env': 'TEMPORAL_NAMESPACE' }),
      })
      .default({ server: 'dev', namespace: 'default' }),
    limits: z
      .strictObject(Object.fromEntries(LIMIT_GROUPS.map((g) => [g, Limit.optional()])))
      .optional()
      .describe('rate limits per API scope group (default: the interface’s)')
      .meta({ 'x-env': 'NEWSFLOW_LIMITS' }),
    workers: z.int().min(1).default(1).describe('workers sharing the API key (each takes its share of the concurrency)').meta({ 'x-env': 'NEWSFLOW_WORKERS' }),
    pipelines: z.array(Pipeline).default([]).describe('named pipelines: each a kind with its parameters and a schedule'),
    sources: z.array(SourceEntry).default([]).describe('feeds and sitemaps the service is filled from as they publish (see docs/pipelines.md, live news)'),
    workflows: z.string().optional().describe("a module of your own workflows and activities, registered with newsflow's worker (e.g. ./pipelines.ts)"),
  })
  .superRefine((f, ctx) => {
    f.pipelines.forEach((p, i) => {
      if (p.kind === 'workflow' && !f.workflows)
        ctx.addIssue({
          code: 'custom',
          path: ['pipelines', i, 'workflow'],
          message: 'a workflow pipeline needs `workflows:` (your pipelines module) at the top of the file',
        });
    });
    const seen = new Map<string, number>();
    f.pipelines.forEach((p, i) => {
      const first = seen.get(p.name);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['pipelines', i, 'name'], message: `"${p.name}" is also the name of pipelines[${first}]` });
      else seen.set(p.name, i);
    });
    const sources = new Map<string, number>();
    f.sources.forEach((s, i) => {
      let name: string;
      try {
        name = s.name ?? sourceName(s.url);
      } catch {
        return; // the URL itself is refused above
      }
      const first = sources.get(name);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, s.name ? 'name' : 'url'],
          message: `"${name}" is also the name of sources[${first}]; give one a name`,
        });
      else sources.set(name, i);
    });
  });
export type ProjectFile = z.infer<typeof ProjectFile>;
