/**
 * The project of this process, once loaded, and the `--config` flag it was loaded for. Kept apart
 * from the schema so that `newsflow --help` and a cached project load no zod.
 */
import path from 'node:path';
import type { Project } from './project.js';
import type { DEFAULT_LIMITS } from '../../spec/index.js';
import { parseFetchAllow, type FetchPolicy } from '../../lib/fetch/policy.js';

let flag: string | undefined;
let project: Project | null = null;

/** The `--config` flag of this command line (the CLI sets it before a command runs). */
export const setConfigFlag = (file: string | undefined): void => {
  if (file !== flag) project = null;
  flag = file;
};
export const configFlag = (): string | undefined => flag;
export const currentProject = (): Project | null => project;

/** The data dir of a command: its --data-dir, else the project's (warehouse.path, or NEWSFLOW_DATA_DIR over it). */
export const dataDirOf = (p: Pick<Project, 'dataDir'>, flag?: string): string => path.resolve(flag ?? p.dataDir);
/** The lake of the project's warehouse as the warehouse takes it (warehouse.catalog and .data, or their variables). */
export const lakeOf = (p: Pick<Project, 'lake'>): { catalog?: string; dataPath?: string } => ({ catalog: p.lake.catalog, dataPath: p.lake.data });
/** The warehouse folder: the project's NEWSFLOW_WAREHOUSE_DIR, else the data dir. */
/** The project's fetch policy (its `fetchAllow` entries, checked when it was resolved). */
export const fetchPolicyOf = (p: Pick<Project, 'fetchAllow'>): FetchPolicy => parseFetchAllow(p.fetchAllow.join(','));

export const warehouseDirOf = (p: Pick<Project, 'warehouseDir'>, dataDir: string): string => path.resolve(p.warehouseDir ?? dataDir);

/** Make `p` this process's project (commands take their settings from it, as values). Warnings go to stderr. */
export function setCurrentProject(p: Project, _defaultLimits?: typeof DEFAULT_LIMITS): void {
  for (const w of p.warnings) console.error(`warning: ${w}`);
  project = p;
}
