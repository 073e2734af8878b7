/**
 * Your own pipelines, run by newsflow's worker beside its own: the module the project file's
 * `workflows:` names default-exports a `PipelinesModule`. Its workflows are bundled with newsflow's
 * (so they run on the same task queues, at the same rate limits), its activities are registered
 * with newsflow's (they get the worker's API client and warehouse), and its tables are created in
 * the warehouse when the worker starts. Its workflows may call newsflow's activities too, e.g.
 * `ingestPage` (page a search and land it) and `recordLoad` (a `_loads` row). See
 * examples/custom-pipeline.
 */
import type { NewsClient } from '../client/index.js';
import type { TableDef } from '../warehouse/tables/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';

/** What your activities get: the worker's API client (rate-limited, retried) and its warehouse. */
export interface ActivityDeps {
  client: NewsClient;
  warehouse: Warehouse;
}

// activities take and return any serializable values: their own parameter types, which `never[]` accepts
type Activity = (...args: never[]) => Promise<unknown>;

export interface PipelinesModule {
  /** the module of your workflow functions (Temporal workflow code: deterministic, no I/O), as a path or file URL */
  workflows: string | URL;
  /** your activities, made once per worker */
  activities?: (deps: ActivityDeps) => Record<string, Activity>;
  /** your warehouse tables (defineTable), created when missing */
  tables?: TableDef[];
}

/** Type-checks a pipelines module (it returns it as it is). */
export const definePipelines = (m: PipelinesModule): PipelinesModule => m;
