/**
 * The registry of pipeline kinds: newsflow's, in the order the docs list them, and any added with
 * `registerKind` (a kind of your own, or a test's). Everything per kind is derived from here: the
 * project file's entries (schema.ts), the schedules (pipelines/schedules/declare.ts), `newsflow
 * run <kind>` (cli/pipelines.ts), the preflight's operations and fixes (run/preflight.ts), the
 * worker's workflows and activities of kinds that are not newsflow's (worker/worker.ts).
 */
import { UserError } from '../../../lib/errors.js';
import type { KindDef } from './define.js';
import { news } from './news.js';
import { distribution } from './distribution.js';
import { stories } from './stories.js';
import { indexCounts } from './index-counts.js';
import { research } from './research.js';
import { graph } from './graph.js';
import { alerts } from './alerts.js';
import { maintenance } from './maintenance.js';
import { workflow } from './workflow.js';

export { defineKind, type CliRun, type KindDef, type KindRun, type KindWorker, type RunOptions, type WarehouseAt } from './define.js';
export { RunOptionError } from './window.js';

/** newsflow's kinds (their schemas, typed: the `Pipeline` type is their union). */
export const BUILTIN_KINDS = [news, distribution, stories, indexCounts, research, graph, alerts, maintenance, workflow] as const;

const registry: KindDef[] = [...(BUILTIN_KINDS as readonly KindDef[])];
let version = 0;

/** A kind that cannot be registered: its name or workflow type is taken. */
export class KindError extends UserError {}

/** Add a kind: from then on the project file takes its entries, the schedules declare its runs, the worker runs it. */
export function registerKind(k: KindDef): void {
  const names = (d: KindDef) => [d.name, ...(d.formerNames ?? [])];
  const clash = registry.find((d) => names(d).some((n) => names(k).includes(n)));
  if (clash) throw new KindError(`kind "${k.name}": the name is taken by kind ${clash.name}`);
  const types = (d: KindDef) => [d.workflowType, ...(d.moreWorkflowTypes ?? [])].filter(Boolean);
  const taken = registry.find((d) => types(d).some((t) => types(k).includes(t)));
  if (taken) throw new KindError(`kind "${k.name}": workflow type ${types(k).find((t) => types(taken).includes(t))} is kind ${taken.name}'s`);
  if ((k.config.shape.kind as { value?: unknown } | undefined)?.value !== k.name)
    throw new KindError(`kind "${k.name}": its config needs kind: z.literal('${k.name}')`);
  registry.push(k);
  version++;
}

/** Remove a kind `registerKind` added (tests). */
export function unregisterKind(name: string): void {
  const i = registry.findIndex((d) => d.name === name);
  if (i >= BUILTIN_KINDS.length) {
    registry.splice(i, 1);
    version++;
  }
}

/** Every kind, newsflow's first. */
export const kinds = (): readonly KindDef[] => registry;
/** Changes whenever the registry does (what is built from it is built again). */
export const kindsVersion = (): number => version;

/** The kind of `name`, also by a former name (`former`: the caller warns). */
export function findKind(name: string): { kind: KindDef; former: boolean } | undefined {
  const exact = registry.find((d) => d.name === name);
  if (exact) return { kind: exact, former: false };
  const old = registry.find((d) => d.formerNames?.includes(name));
  return old ? { kind: old, former: true } : undefined;
}

/** The one name of a kind given by its name or a former one (`_loads.kind` queries); unknown names as they are. */
export const canonicalKind = (name: string): string => findKind(name)?.kind.name ?? name;

/** The warning for a former name, one line. */
export const formerNameWarning = (old: string, kind: string): string =>
  `warning: "${old}" is the former name of the kind ${kind}, read for this release only: write ${kind}`;

/** The kind whose workflow `workflowType` is (one of its own, or one it starts). */
export function kindOfWorkflow(workflowType: string): KindDef | undefined {
  return registry.find((d) => d.workflowType === workflowType || d.moreWorkflowTypes?.includes(workflowType));
}
