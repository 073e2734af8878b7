/** Activity of entityGraph: build one graph through the client (POST /v1/news/graph) and land its nodes and edges. */
import { Context } from '@temporalio/activity';
import type { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { failingFast } from './api-failure.js';
import { GRAPH_EDGES, GRAPH_NODES, graphRows } from '../warehouse/tables/graph.js';

export { graphRows } from '../warehouse/tables/graph.js';

export interface GraphRunInput {
  /** the run the rows belong to (merge key): the workflow id */
  runId: string;
  /** ISO time the run stands for */
  runAt: string;
  loadId: string;
  query: string;
  /** any search parameter (start_timestamp, languages, n_articles, ...) */
  filterParams?: Record<string, unknown>;
  minClusterProbability?: number;
  geo?: boolean;
  /** ask for a visualize_url */
  visualize?: boolean;
}
export interface GraphRunResult {
  nodes: number;
  edges: number;
  inserted: number;
  updated: number;
  articles: number;
  visualize_url: string | null;
  triples_url: string | null;
}

export function createEntityGraphActivities(deps: { client: NewsClient; warehouse: Warehouse }) {
  return failingFast({
    async buildEntityGraph(input: GraphRunInput): Promise<GraphRunResult> {
      Context.current().heartbeat({ phase: 'build' });
      const g = await deps.client.buildGraph({
        query: input.query,
        filter_params: input.filterParams ?? null,
        min_cluster_probability: input.minClusterProbability,
        geo_disambiguation: input.geo ?? false,
        visualize_with: input.visualize ? 'html' : null,
        return_articles: false,
      });
      const { nodes, edges } = graphRows(g.full_graph, { runId: input.runId, runAt: input.runAt, query: g.query ?? input.query });
      Context.current().heartbeat({ phase: 'land', nodes: nodes.length, edges: edges.length });
      const n = await deps.warehouse.land(GRAPH_NODES, nodes, [], input.loadId);
      const e = await deps.warehouse.land(GRAPH_EDGES, edges, [], input.loadId);
      return {
        nodes: nodes.length,
        edges: edges.length,
        inserted: n.inserted + e.inserted,
        updated: n.updated + e.updated,
        articles: Number((g.full_graph as { n_articles?: number }).n_articles ?? 0),
        visualize_url: g.visualize_url ?? null,
        triples_url: g.triples_url ?? null,
      };
    },
  });
}
export type EntityGraphActivities = ReturnType<typeof createEntityGraphActivities>;
