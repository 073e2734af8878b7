/**
 * Graph building off the event loop: `computeGraph` (compute.ts: the uploads' entity extraction
 * and the graph) runs in the graph threads (lib/threads/budget-pool.ts; at most 2, one per core),
 * within a time budget from when a thread takes it (ServiceConfig.graphBuildTimeoutMs,
 * NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS, default 30 s). Past it the build fails with `BudgetExceeded`
 * (the route answers 503 with {code, detail}) and its thread is terminated and replaced. A search
 * of another tenant meanwhile waits for nothing of it.
 */
import os from 'node:os';
import { BudgetPool } from '../../lib/threads/budget-pool.js';
import { computeGraph, type GraphJob, type GraphJobResult } from './compute.js';

export const GRAPH_BUILD_DEFAULTS = { timeoutMs: 30_000, threads: 2 } as const;

let shared: BudgetPool<GraphJob, GraphJobResult> | null = null;

/** The process's graph threads (every GraphService shares them; each call names its budget). */
export const graphThreads = (): BudgetPool<GraphJob, GraphJobResult> =>
  (shared ??= new BudgetPool({
    file: new URL('./graph-worker.mjs', import.meta.url),
    what: 'building the graph',
    size: Math.min(GRAPH_BUILD_DEFAULTS.threads, Math.max(1, os.availableParallelism?.() ?? os.cpus().length)),
    timeoutMs: GRAPH_BUILD_DEFAULTS.timeoutMs,
    here: computeGraph,
  }));
