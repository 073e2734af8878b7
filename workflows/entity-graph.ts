/**
 * entityGraph: build the knowledge graph of a query (POST /v1/news/graph) and land its nodes and
 * edges as one run (graph_nodes, graph_edges), then the load's `_loads` row. Pure orchestration.
 */
import { defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { EntityGraphActivities, GraphRunResult } from '../activities/entity-graph.js';
import type { RecordLoadActivities } from '../activities/record-load.js';
import { KIND_SPECS } from './kinds.js';
import { evaluateChecks, failOnChecks, type LoadChecksConfig } from './checks.js';

const { buildEntityGraph } = proxyActivities<EntityGraphActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { recordLoad } = proxyActivities<RecordLoadActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });

export interface EntityGraphInput {
  /** the named pipeline (project file) this run belongs to: its `_loads` rows carry it */
  pipeline?: string;
  query: string;
  filterParams?: Record<string, unknown>;
  minClusterProbability?: number;
  geo?: boolean;
  visualize?: boolean;
  /** the time the run stands for (default: its scheduled time, else its start) */
  runAt?: string;
  /** the pipeline's checks (the project file's `checks:`): a failed one fails the run, non-retryable (workflows/checks.ts) */
  checks?: LoadChecksConfig;
}
export interface EntityGraphResult extends GraphRunResult {
  runId: string;
  loadId: string;
  runAt: string;
  query: string;
}

export const graphProgressQuery = defineQuery<{ done: number }>('progress');

export async function entityGraph(input: EntityGraphInput): Promise<EntityGraphResult> {
  const info = workflowInfo();
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const runAt = input.runAt ?? (scheduled ? new Date(scheduled as string | Date) : info.startTime).toISOString();
  const loadId = `${info.workflowId}/${info.runId}`;
  const startedAt = new Date().toISOString();
  let done = 0;
  setHandler(graphProgressQuery, () => ({ done }));
  const r = await buildEntityGraph({
    runId: info.workflowId,
    runAt,
    loadId,
    query: input.query,
    filterParams: input.filterParams,
    minClusterProbability: input.minClusterProbability,
    geo: input.geo,
    visualize: input.visualize,
  });
  done = 1;
  const invariants = { query: input.query, nodes: r.nodes, edges: r.edges, articles: r.articles };
  const checks = evaluateChecks(input.pipeline ?? KIND_SPECS.graph.name, input.checks, { received: r.nodes + r.edges }, invariants);
  await recordLoad({
    loadId,
    pipeline: input.pipeline,
    kind: KIND_SPECS.graph.name,
    workflowId: info.workflowId,
    runId: info.runId,
    from: runAt,
    to: runAt,
    received: r.nodes + r.edges,
    inserted: r.inserted,
    updated: r.updated,
    startedAt,
    invariants,
    ...(checks ? { checks } : {}),
  });
  failOnChecks(checks);
  return { ...r, runId: info.workflowId, loadId, runAt, query: input.query };
}
