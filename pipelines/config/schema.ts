/**
 * The project file, `newsflow.yaml`: one zod schema. Its JSON Schema (`newsflow.schema.json`, for
 * editors) and its reference (`docs/configuration.md`) are generated from it; defaults live here,
 * next to the fields they belong to, and `meta({ env })` names the environment variable that
 * overrides a field (see project.ts for the precedence).
 */
import { z } from 'zod';
import { LIMIT_GROUPS } from '../../spec/index.js';
import { SourceEntry, sourceName } from '../../lib/feeds/source.js';
import type { DefaultSchedule } from '../../workflows/kinds.js';
import { BUILTIN_KINDS, findKind, kinds, kindsVersion, type KindDef } from './kinds/index.js';
import { Notify } from './fields.js';

export { Checks, CronExpr, Duration, Freshness, NewsFilters, Notify, PipelineName, Schedule, durationMs, kindBase } from './fields.js';
export { NewsPipeline } from './kinds/news.js';
export { DistributionPipeline } from './kinds/distribution.js';
export { StoriesPipeline, StoryTracker } from './kinds/stories.js';
export { IndexCountsPipeline } from './kinds/index-counts.js';
export { RESEARCH_MAX_DEPTH, ResearchPipeline } from './kinds/research.js';
export { GraphPipeline } from './kinds/graph.js';
export { AlertsPipeline } from './kinds/alerts.js';
export { WorkflowPipeline } from './kinds/workflow.js';

type ConfigOf<K> = K extends { config: infer S } ? S : never;
type Configs<T extends readonly unknown[]> = { -readonly [I in keyof T]: ConfigOf<T[I]> };
type BuiltinConfigs = Configs<typeof BUILTIN_KINDS>;
const configsOf = (list: readonly KindDef[]) => list.map((k) => k.config) as unknown as BuiltinConfigs;

/** A pipeline entry of newsflow's kinds (the registry's, pipelines/config/kinds): one per kind, by `kind`. */
export const Pipeline = z.discriminatedUnion('kind', configsOf(BUILTIN_KINDS));
export type Pipeline = z.infer<typeof Pipeline>;
export type PipelineKind = Pipeline['kind'];
export const PIPELINE_KINDS = BUILTIN_KINDS.map((k) => k.name);

/** Each kind's schedule when the entry gives none (index-counts: per sampling, INDEX_COUNT_CADENCE). */
export const DEFAULT_SCHEDULES = Object.fromEntries(BUILTIN_KINDS.flatMap((k) => (k.defaultSchedule ? [[k.name, k.defaultSchedule]] : []))) as Record<
  Exclude<PipelineKind, 'index-counts'>,
  DefaultSchedule
>;

const Limit = z.strictObject({
  rate: z.number().positive().describe('requests per second'),
  burst: z.int().min(1).describe('bucket capacity'),
  concurrency: z.int().min(1).describe('requests in flight at once'),
});

/** The kinds that take `checks:` (`invariants`: those with invariants to enforce). */
const checkedKinds = (what?: 'invariants') =>
  kinds()
    .filter((k) => k.checks && (what !== 'invariants' || k.checks.invariants.length > 0))
    .map((k) => k.name);

/** What to say of an unknown `checks` (or `checks.invariants`) key on a kind that takes none; null: nothing particular. */
export function checksKeyHint(kind: unknown, key: string, inChecks: boolean): string | null {
  const k = typeof kind === 'string' ? findKind(kind)?.kind : undefined;
  if (!k) return null;
  if (!inChecks && key === 'checks' && !k.checks)
    return `kind ${k.name} takes no checks (the kinds whose loads are checked: ${checkedKinds().join(', ')}); remove checks:`;
  if (inChecks && key === 'invariants' && k.checks?.invariants.length === 0)
    return `kind ${k.name} records no boolean invariants to enforce (${checkedKinds('invariants').join(', ')} do); use min_rows, or remove it`;
  return null;
}

/** The project file whose pipelines are entries of `pipeline` (newsflow's kinds, or every registered one). */
const projectFile = (pipeline: typeof Pipeline) =>
  z
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
      workers: z
        .int()
        .min(1)
        .default(1)
        .describe('workers sharing the API key (each takes its share of the concurrency)')
        .meta({ 'x-env': 'NEWSFLOW_WORKERS' }),
      metrics: z
        .strictObject({
          port: z
            .int()
            .min(0)
            .max(65535)
            .optional()
            .describe(
              "the worker's /metrics (Prometheus text, its own and Temporal's), /healthz and the /status page on this port (unset: none; 0: any free port)",
            )
            .meta({ 'x-env': 'NEWSFLOW_METRICS_PORT' }),
          host: z.string().min(1).default('127.0.0.1').describe("the address the worker's metrics port listens on (0.0.0.0: every interface)"),
        })
        .default({ host: '127.0.0.1' })
        .describe("the worker's metrics and health endpoint (docs/operations.md, Metrics)"),
      service: z
        .strictObject({
          retention: z
            .string()
            .regex(/^([1-9]\d*d|keep-all)$/, 'a number of days such as 90d, or keep-all')
            .default('keep-all')
            .describe(
              "how long an article of the embedded service's corpus stays searchable after its publication (90d), or keep-all; older ones leave the search index (docs/operations.md, Retention)",
            )
            .meta({ 'x-env': 'NEWSFLOW_RETENTION' }),
          archive: z
            .boolean()
            .default(false)
            .describe('past the retention, export articles to Parquet under <path>/archive/news and delete them from the store (default: the store keeps them)')
            .meta({ 'x-env': 'NEWSFLOW_ARCHIVE' }),
        })
        .default({ retention: 'keep-all', archive: false })
        .describe('the embedded service `newsflow start` and `newsflow serve` run (flags win over these)'),
      pipelines: z.array(pipeline).default([]).describe('named pipelines: each a kind with its parameters and a schedule'),
      notify: Notify.optional(),
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
        if (first !== undefined)
          ctx.addIssue({ code: 'custom', path: ['pipelines', i, 'name'], message: `"${p.name}" is also the name of pipelines[${first}]` });
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

/** The project file of newsflow's kinds (its JSON Schema and reference are generated from it). */
export const ProjectFile = projectFile(Pipeline);
export type ProjectFile = z.infer<typeof ProjectFile>;

let built: { version: number; pipeline: typeof Pipeline; file: typeof ProjectFile } | null = null;
/** The schemas of every registered kind: newsflow's, and any `registerKind` added (built again when the registry changes). */
export function registeredSchemas(): { pipeline: typeof Pipeline; file: typeof ProjectFile } {
  if (kindsVersion() === 0) return { pipeline: Pipeline, file: ProjectFile };
  if (built?.version !== kindsVersion()) {
    const pipeline = z.discriminatedUnion('kind', configsOf(kinds()));
    built = { version: kindsVersion(), pipeline, file: projectFile(pipeline) };
  }
  return built;
}
