/**
 * A kind of pipeline, whole: its pure part (workflows/kinds.ts: name, workflow type, queue,
 * operations, default schedule, tables) and what pipelines/ adds: the project-file entry it takes
 * (a zod object whose `kind` is its name), the runs an entry schedules (with the workflow's
 * argument built from the entry), the run `newsflow run <kind>` starts from the command line, and,
 * for a kind that is not newsflow's own, the workflows and activities the worker registers for it.
 * A new kind is one such entry (index.ts lists newsflow's; `registerKind` adds one).
 */
import type { z } from 'zod';
import type { ActivityDeps } from '../../../activities/extension.js';
import type { DefaultSchedule, KindSpec } from '../../../workflows/kinds.js';

/** One schedule an entry declares: its id (default: the entry's name), its argument, what it does (one line). */
export interface KindRun {
  /** the schedule id (default: the pipeline's name) */
  id?: string;
  /** the workflow's argument (none: it takes none) */
  args?: Record<string, unknown>;
  /** what the run does, for `config check` and the plan (its schedule is added) */
  what: string;
  /** this run's default schedule (default: the kind's) */
  defaultSchedule?: DefaultSchedule;
  /** default: the kind's (the `workflow` kind: the entry's own) */
  workflowType?: string;
  taskQueue?: string;
}

/** The options of `newsflow run <kind>` (commander's, as given). */
export interface RunOptions {
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
  /** news: the schema contract of the run */
  schema?: string;
  dataDir?: string;
  verbose?: boolean;
}

/** The warehouse a run landed in: its folder and its lake's catalog and data path. */
export interface WarehouseAt {
  dir: string;
  lake: { catalog?: string; dataPath?: string };
}

/** What `newsflow run <kind>` starts: the workflow's input and how its `progress` query reads as a bar. */
export interface CliRun<P = never> {
  input: Record<string, unknown>;
  show(p: P): [number, number, string];
  /** done after the run succeeded (e.g. write a file from what it landed) */
  after?: (result: Record<string, unknown>, warehouse: WarehouseAt) => Promise<void>;
}

/** The worker's part of a kind that is not newsflow's own: its workflows module and its activities. */
export interface KindWorker {
  /** the module of its workflow functions (bundled with newsflow's), absolute path or file URL */
  workflows: string | URL;
  /** its activities, made once per worker */
  activities?: (deps: ActivityDeps) => Record<string, (...args: never[]) => Promise<unknown>>;
}

type AnyEntrySchema = z.ZodObject<z.ZodRawShape>;

export interface KindDef<S extends AnyEntrySchema = AnyEntrySchema> extends KindSpec {
  /** the project-file entry: a strict zod object with `kind: z.literal(name)` and kindBase's fields */
  config: S;
  /** the schedules of one entry (empty: it runs nothing) */
  runs(p: z.infer<S>): KindRun[];
  /** `newsflow run <name> [options]`: the run its options make (a UserError says what is wrong); none: only named pipelines run */
  cli?: { help: string; run(o: RunOptions): CliRun | Promise<CliRun> };
  /** the domains the preflight checks the organization owns (distribution) */
  domains?(args: Record<string, unknown>): string[];
  worker?: KindWorker;
}

/** Type-checks a kind's entry (returns it as it is). */
export const defineKind = <S extends AnyEntrySchema>(k: KindDef<S>): KindDef<S> => k;
