/**
 * pipelines/config: the project file, `newsflow.yaml`.
 * - schema.ts: the one zod schema (defaults, descriptions, environment overrides);
 * - find.ts: where the file is; load.ts: reading it, one line per error (file:line:col: field: what it takes);
 * - project.ts: the project a command runs, with the environment's overrides and their precedence;
 * - starter.ts: the file `newsflow init` writes (and the defaults without one);
 * - reference.ts: the JSON Schema and docs/configuration.md, generated from the schema.
 * - current.ts: the project of this process; cached.ts: how a command loads it (a cache of resolved
 *   projects, keyed by the file, the environment and the schema).
 * A command loads the project once (`useProject`), before it does anything else.
 */
import { DEFAULT_LIMITS } from '../../spec/index.js';
import { loadProject, type Project } from './project.js';
import { configFlag, currentProject, setCurrentProject } from './current.js';

export { ConfigError, findProjectFile, loadProjectFile, parseProjectFile, PROJECT_FILE_NAMES } from './load.js';
export { loadProject, resolveProject, type Project } from './project.js';
export { STARTER_FILE } from './starter.js';
export { Pipeline, ProjectFile, PIPELINE_KINDS, Schedule, durationMs, type PipelineKind } from './schema.js';
export { configFlag, dataDirOf, lakeOf, setConfigFlag, warehouseDirOf } from './current.js';

/**
 * The project of this process, loaded once: the file of `--config` (else `NEWSFLOW_CONFIG`, else
 * `newsflow.yaml` in the working directory, else the starter's defaults) with the environment on
 * top (see current.ts for what it then sets in the environment).
 */
export function useProject(): Project {
  const known = currentProject();
  if (known) return known;
  const p = loadProject({ config: configFlag() });
  setCurrentProject(p, DEFAULT_LIMITS);
  return p;
}
