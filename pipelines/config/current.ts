/**
 * The project of this process, once loaded, and the `--config` flag it was loaded for. Kept apart
 * from the schema so that `newsflow --help` and a cached project load no zod.
 */
import type { Project } from './project.js';
import type { DEFAULT_LIMITS } from '../../spec/index.js';

let flag: string | undefined;
let project: Project | null = null;

/** The `--config` flag of this command line (the CLI sets it before a command runs). */
export const setConfigFlag = (file: string | undefined): void => {
  if (file !== flag) project = null;
  flag = file;
};
export const configFlag = (): string | undefined => flag;
export const currentProject = (): Project | null => project;

/**
 * Make `p` this process's project. Its settings are written to the process's environment for the
 * rooms that read their settings there (data dir, lake, Temporal, API, limits, workers): the project
 * already holds the environment's own values, so this changes no precedence. Warnings go to stderr.
 */
export function setCurrentProject(p: Project, defaultLimits: typeof DEFAULT_LIMITS): void {
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
  if (JSON.stringify(p.limits) !== JSON.stringify(defaultLimits))
    put(
      'NEWSFLOW_LIMITS',
      Object.entries(p.limits)
        .map(([g, l]) => `${g}=${l.rate}:${l.burst}:${l.concurrency}`)
        .join(','),
    );
  put('NEWSFLOW_WORKERS', p.workers);
  for (const w of p.warnings) console.error(`warning: ${w}`);
  project = p;
}
