/**
 * This example's pipelines module (`workflows: ./pipelines.ts` in newsflow.yaml): newsflow's worker
 * bundles `workflows.ts` with its own workflows, registers the activities below beside its own
 * (they get the worker's API client and warehouse), and creates the table below when it starts.
 */
import { definePipelines } from 'newsflow/activities';
import { defineTable } from 'newsflow/warehouse';

/** One row per query and run: how many articles the query found in its window (merge key: query, run_at). */
export const QUERY_COUNTS = defineTable({
  name: 'query_counts',
  description: 'articles per query and run of the example pipeline',
  mergeKey: ['query', 'run_at'],
  columns: [
    ['query', 'VARCHAR', 'varchar'],
    ['run_at', 'TIMESTAMP', 'bigint'],
    ['articles', 'BIGINT', 'bigint'],
  ],
});

const activities = ({ warehouse }: { warehouse: import('newsflow/warehouse').Warehouse }) => ({
  /** Land the run's counts: replaying the same run changes nothing (the merge key and the row hash). */
  async landQueryCounts(input: { loadId: string; runAt: string; counts: Record<string, number> }) {
    const runAt = Date.parse(input.runAt) * 1000; // TIMESTAMP columns are staged as microseconds
    const rows = Object.entries(input.counts).map(([query, articles]) => ({ query, run_at: runAt, articles }));
    return warehouse.land(QUERY_COUNTS, rows, [], input.loadId);
  },
});
export type ExampleActivities = ReturnType<typeof activities>;

export default definePipelines({
  workflows: new URL('./workflows.ts', import.meta.url),
  activities,
  tables: [QUERY_COUNTS],
});
