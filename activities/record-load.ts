/**
 * The `_loads` row of a pipeline run: one shape, one writer, and the activity every workflow
 * proxies for it (`recordLoad`, its own factory: a workflow of any kind, yours too, records its
 * load without reaching into another kind's activities).
 */
import type { LoadChecksRecord, Warehouse } from '../warehouse/warehouse.js';

/** What a workflow reports when its window is landed (an activity's input: plain JSON). */
export interface WindowLoad {
  loadId: string;
  /** the named pipeline (default: the kind) */
  pipeline?: string;
  workflowId: string;
  runId: string;
  from: string;
  to: string;
  received: number;
  inserted: number;
  updated: number;
  startedAt: string;
  invariants: Record<string, unknown>;
  /** its checks' outcome (the project file's `checks:`, evaluated by the workflow: workflows/checks.ts); none configured: absent */
  checks?: LoadChecksRecord;
}

/** Record `input` as a load of `kind` over [from, to). */
export function recordWindowLoad(warehouse: Warehouse, kind: string, input: WindowLoad): Promise<void> {
  return warehouse.recordLoad(
    {
      loadId: input.loadId,
      pipeline: input.pipeline ?? kind,
      kind,
      workflowId: input.workflowId,
      runId: input.runId,
      windowStart: new Date(input.from),
      windowEnd: new Date(input.to),
    },
    { received: input.received, inserted: input.inserted, updated: input.updated },
    new Date(input.startedAt),
    input.invariants,
    input.checks,
  );
}

/** The load record's activities: `recordLoad` writes a run's `_loads` row (a MERGE on load_id: replays change nothing). */
export function createRecordLoadActivities(deps: { warehouse: Warehouse }) {
  return {
    async recordLoad(input: WindowLoad & { kind: string }): Promise<void> {
      await recordWindowLoad(deps.warehouse, input.kind, input);
    },
  };
}
export type RecordLoadActivities = ReturnType<typeof createRecordLoadActivities>;
