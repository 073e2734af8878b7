/**
 * pipelines/config: the project file, `newsflow.yaml`.
 * - schema.ts: the one zod schema (defaults, descriptions, environment overrides);
 * - load.ts: finding and reading the file, one line per error (file:line:col: field: what it takes);
 * - project.ts: the project a command runs, with the environment's overrides and their precedence;
 * - starter.ts: the file `newsflow init` writes (and the defaults without one);
 * - reference.ts: the JSON Schema and docs/configuration.md, generated from the schema.
 * A command loads the project once (`useProject`), before it does anything else.
 */
import { DEFAULT_LIMITS } from '../../spec/index.js';
import { loadProject, type Project } from './project.js';
import { configFlag } from './flag.js';

export { ConfigError, findProjectFile, loadProjectFile, parseProjectFile, PROJECT_FILE_NAMES } from './load.js';
export { loadProject, resolveProject, type Project } from './project.js';
export { STARTER_FILE } from './starter.js';
export { Pipeline, ProjectFile, PIPELINE_KINDS, Schedule, durationMs, type PipelineKind } from './schema.js';

let current: { flag: string | undefined; project: Project } | null = null;

/**
 * The project of this process, loaded once: the file of `--config` (else `NEWSFLOW_CONFIG`, else
 * `newsflow.yaml` in the working directory, else the starter's defaults) with the environment on
 * top. Its settings are then written to this process's environment for the rooms that read their
 * settings there (data dir, lake, Temporal, API, limits, workers): the project already holds the
 * environment's own values, so this changes no precedence. Warnings go to stderr, once.
 */
export function useProject(): Project {
  const flag = configFlag();
  if (current && current.flag === flag) return current.project;
  const p = loadProject({ config: flag });
  const env = process.env;
  const put = (name: string, v: string | number | undefined) => {
    if (v !== undefined && v !== '') env[name] = String(v);
  };
  put('NEWSFLOW_DATA_DIR', p.dataDir);
  put('NEWSFLOW_LAKE_CATALOG', p.lake.catalog);
  put('NEWSFLOW_LAKE_DATA', p.lake.data);
  put('NEWSFLOW_API_URL', p.api.url);
  put('NEWSFLOW_API_KEY', p.api.key);
  if (p.temporal.server === 'dev' || p.temporal.server === 'postgres') put('NEWSFLOW_TEMPORAL', p.temporal.server);
  else put('TEMPORAL_ADDRESS', p.temporal.server);
  put('TEMPORAL_NAMESPACE', p.temporal.namespace === 'default' ? undefined : p.temporal.namespace);
  if (JSON.stringify(p.limits) !== JSON.stringify(DEFAULT_LIMITS))
    put(
      'NEWSFLOW_LIMITS',
      Object.entries(p.limits)
        .map(([g, l]) => `${g}=${l.rate}:${l.burst}:${l.concurrency}`)
        .join(','),
    );
  put('NEWSFLOW_WORKERS', p.workers);
  for (const w of p.warnings) console.error(`warning: ${w}`);
  current = { flag, project: p };
  return p;
}
