/**
 * Your own pipelines (the project file's `workflows:`): the module is imported (TypeScript through
 * tsx, JavaScript as it is), checked, and joined to newsflow's worker: its workflows bundled with
 * ours, its activities registered beside ours, its tables created in the warehouse.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { PipelinesModule } from '../../activities/extension.js';
import { UserError } from '../../lib/errors.js';

export class ExtensionError extends UserError {}

export interface LoadedPipelines {
  /** the module file the project names */
  file: string;
  /** the workflows module, absolute */
  workflowsPath: string;
  /** the workflow functions it exports */
  workflowNames: string[];
  activities: NonNullable<PipelinesModule['activities']>;
  tables: NonNullable<PipelinesModule['tables']>;
}

const isTs = (f: string) => /\.[cm]?tsx?$/.test(f);
let tsxOn = false;
async function importFile(file: string): Promise<Record<string, unknown>> {
  if (isTs(file) && !tsxOn) {
    const { register } = await import('tsx/esm/api');
    register();
    tsxOn = true;
  }
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** Import and check the pipelines module `file` (absolute). */
export async function loadPipelines(file: string): Promise<LoadedPipelines> {
  if (!fs.existsSync(file)) throw new ExtensionError(`workflows: ${file} does not exist (the project file's workflows: names your pipelines module)`);
  let mod: Record<string, unknown>;
  try {
    mod = await importFile(file);
  } catch (e) {
    throw new ExtensionError(`workflows: ${path.basename(file)} cannot be imported: ${(e as Error).message.split('\n')[0]}`);
  }
  const m = (mod.default ?? mod) as Partial<PipelinesModule>;
  if (!m || typeof m !== 'object' || !m.workflows)
    throw new ExtensionError(
      `workflows: ${path.basename(file)} must default-export { workflows, activities?, tables? } (definePipelines from newsflow/activities)`,
    );
  const w =
    m.workflows instanceof URL
      ? fileURLToPath(m.workflows)
      : String(m.workflows).startsWith('file:')
        ? fileURLToPath(String(m.workflows))
        : path.resolve(path.dirname(file), String(m.workflows));
  if (!fs.existsSync(w)) throw new ExtensionError(`workflows: its workflows module ${w} does not exist`);
  if (m.activities !== undefined && typeof m.activities !== 'function')
    throw new ExtensionError('workflows: activities must be a function ({ client, warehouse }) => ({ ... })');
  if (m.tables !== undefined && !Array.isArray(m.tables)) throw new ExtensionError('workflows: tables must be a list of table definitions (defineTable)');
  // the workflow functions: importing workflow code outside the sandbox is fine as long as nothing runs
  let names: string[];
  try {
    names = Object.entries(await importFile(w))
      .filter(([, v]) => typeof v === 'function')
      .map(([k]) => k);
  } catch (e) {
    throw new ExtensionError(`workflows: ${path.basename(w)} cannot be imported: ${(e as Error).message.split('\n')[0]}`);
  }
  return { file, workflowsPath: w, workflowNames: names, activities: m.activities ?? (() => ({})), tables: m.tables ?? [] };
}

/** The workflow pipelines of the project whose workflow the module does not export: one line each. */
export function missingWorkflows(loaded: LoadedPipelines, pipelines: { name: string; kind: string; workflow?: string }[]): string[] {
  return pipelines
    .filter((p) => p.kind === 'workflow' && !loaded.workflowNames.includes(p.workflow!))
    .map(
      (p) =>
        `pipeline ${p.name}: ${p.workflow} is not a workflow of ${path.basename(loaded.workflowsPath)} (it exports: ${loaded.workflowNames.join(', ') || 'none'})`,
    );
}
