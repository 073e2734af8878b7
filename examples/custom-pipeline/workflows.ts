/**
 * The workflow of this example: for each query, page its search over the window through newsflow's
 * own `ingestPage` activity (articles land in `articles`, and in `pipeline_articles` under this
 * pipeline's name), then land one row per query in a table of our own (`query_counts`, by our
 * `landQueryCounts` activity), and record the load (`recordLoad`, a `_loads` row).
 *
 * Workflow code is replayed by Temporal: no I/O, no clock, no randomness here; every effect is an
 * activity.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { NewsIngestActivities, RecordLoadActivities } from 'newsflow/activities';
import type { ExampleActivities } from './pipelines.js';

const { ingestPage } = proxyActivities<NewsIngestActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10 },
});
const { recordLoad } = proxyActivities<RecordLoadActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });
const { landQueryCounts } = proxyActivities<ExampleActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });

export interface PullQueriesInput {
  /** the pipeline's name (newsflow sets it from the project file) */
  pipeline: string;
  queries: string[];
  /** hours before the run's scheduled time */
  windowHours?: number;
}

export async function pullQueries(input: PullQueriesInput): Promise<{ loadId: string; counts: Record<string, number> }> {
  const info = workflowInfo();
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const at = scheduled ? new Date(scheduled as string) : info.startTime;
  const to = at.toISOString();
  const from = new Date(at.getTime() - (input.windowHours ?? 24) * 3_600_000).toISOString();
  const loadId = `${info.workflowId}/${info.runId}`;
  const counts: Record<string, number> = {};
  let received = 0;
  let inserted = 0;
  for (const query of input.queries) {
    counts[query] = 0;
    for (let offset = 0; ; ) {
      const page = await ingestPage({ loadId, pipeline: input.pipeline, query, filters: {}, from, to, offset, pageSize: 50 });
      counts[query] += page.received;
      received += page.received;
      inserted += page.inserted;
      offset = page.nextOffset;
      if (page.done) break;
    }
  }
  await landQueryCounts({ loadId, runAt: to, counts });
  await recordLoad({
    loadId,
    pipeline: input.pipeline,
    kind: 'pull-queries',
    workflowId: info.workflowId,
    runId: info.runId,
    from,
    to,
    received,
    inserted,
    updated: 0,
    startedAt: info.startTime.toISOString(),
    invariants: { queries: input.queries.length },
  });
  return { loadId, counts };
}
