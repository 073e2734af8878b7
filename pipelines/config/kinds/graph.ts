/** graph: the knowledge graph of a query; lands nodes and edges per run. */
import { z } from 'zod';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { NewsFilters, checksField, kindBase } from '../fields.js';
import { defineKind } from './define.js';
import { RunOptionError } from './window.js';

export const GraphPipeline = z
  .strictObject({
    ...kindBase,
    ...checksField(KIND_SPECS.graph.checks.invariants),
    kind: z.literal('graph'),
    query: z.string().min(1).max(2000),
    filters: NewsFilters.optional(),
    options: z
      .strictObject({
        geo: z.boolean().default(false).describe('places get coordinates'),
        visualize: z.boolean().default(false).describe('ask for a visualize_url'),
        min_cluster_probability: z.number().min(0).max(1).optional(),
      })
      .optional(),
  })
  .describe('graph: the knowledge graph of a query; lands nodes and edges per run');

export const graph = defineKind({
  ...KIND_SPECS.graph,
  config: GraphPipeline,
  runs: (p) => {
    const o = p.options;
    return [
      {
        args: {
          pipeline: p.name,
          query: p.query,
          ...(p.filters ? { filterParams: p.filters } : {}),
          ...(o?.geo ? { geo: true } : {}),
          ...(o?.visualize ? { visualize: true } : {}),
          ...(o?.min_cluster_probability !== undefined ? { minClusterProbability: o.min_cluster_probability } : {}),
        },
        what: `the graph of "${p.query.slice(0, 60)}"`,
      },
    ];
  },
  cli: {
    help: '--query, --filters (JSON), --from, --to, --geo, --visualize, --min-cluster-probability, --out',
    run: (o) => {
      if (!o.query.trim()) throw new RunOptionError('--query is required for graph, e.g. --query "Ukraine Russia talks"');
      let filterParams: Record<string, unknown>;
      try {
        filterParams = o.filters ? JSON.parse(o.filters) : {};
      } catch (e) {
        throw new RunOptionError(`--filters is not JSON (${(e as Error).message}); e.g. --filters '{"languages":["en"],"n_articles":50}'`);
      }
      if (!filterParams || typeof filterParams !== 'object' || Array.isArray(filterParams))
        throw new RunOptionError('--filters must be a JSON object of search parameters');
      for (const [opt, field] of [
        [o.from, 'start_timestamp'],
        [o.to, 'end_timestamp'],
      ] as const) {
        if (opt === undefined) continue;
        const t = Date.parse(opt);
        if (Number.isNaN(t)) throw new RunOptionError(`--from and --to must be ISO dates, e.g. 2022-01-15 (got ${opt})`);
        filterParams = { time_filter: 'pub_date', ...filterParams, [field]: Math.floor(t / 1000) };
      }
      let minClusterProbability: number | undefined;
      if (o.minClusterProbability !== undefined) {
        minClusterProbability = Number(o.minClusterProbability);
        if (!(minClusterProbability >= 0 && minClusterProbability <= 1)) throw new RunOptionError('--min-cluster-probability must be a number from 0 to 1');
      }
      const out = o.out;
      return {
        input: { query: o.query, filterParams, minClusterProbability, geo: !!o.geo, visualize: !!o.visualize },
        show: (p: { done: number }) => [p.done, 1, p.done ? 'landed' : 'building'],
        after: out ? async (result, wh) => (await import('../../../warehouse/graph-file.js')).writeGraphFile(wh, result, out) : undefined,
      };
    },
  },
});
