/** graph_nodes / graph_edges: a run lands on its merge keys; landing it again changes nothing; runs over time are one SQL away. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { GRAPH_EDGES, GRAPH_NODES } from '../../warehouse/tables/graph.js';
import { graphRows } from '../../activities/entity-graph.js';
import { tempDir } from '../helpers/service.js';

const graph = (weight: number) => ({
  nodes: [
    { id: 'Vladimir Putin', type: 'Person', detailed_type: 'Person', ner_type: 'PER', mentions: 9, sources: 9, aliases: ['Putin'] },
    { id: 'Ukraine', type: 'Location', detailed_type: 'Country', ner_type: 'LOC', mentions: 40, sources: 38, aliases: [], latitude: 49, longitude: 32 },
    { id: 'Biden', type: 'Person', detailed_type: 'Person', ner_type: 'PER', mentions: 4, sources: 4, aliases: [] },
  ],
  edges: [
    { from: 'Biden', to: 'Vladimir Putin', label: 'warns', weight, sources: ['a1', 'a2'] },
    { from: 'Ukraine', to: 'Vladimir Putin', label: 'co-occurs', weight: 5, sources: ['a1'] },
  ],
});

describe('warehouse graph tables', () => {
  it('landing the same run twice changes nothing; a changed edge is updated in place', async () => {
    const dir = tempDir('newsflow-wh-graph-');
    const w = await Warehouse.open(dir);
    try {
      const run = { runId: 'entityGraph-1', runAt: '2022-02-24T00:00:00Z', query: 'Ukraine Russia talks' };
      const rows = graphRows(graph(2), run);
      expect(await w.land(GRAPH_NODES, rows.nodes, [], 'l1')).toEqual({ received: 3, inserted: 3, updated: 0 });
      expect(await w.land(GRAPH_EDGES, rows.edges, [], 'l1')).toEqual({ received: 2, inserted: 2, updated: 0 });
      const again = graphRows(graph(2), run);
      expect(await w.land(GRAPH_NODES, again.nodes, [], 'l2')).toEqual({ received: 3, inserted: 0, updated: 0 });
      expect(await w.land(GRAPH_EDGES, again.edges, [], 'l2')).toEqual({ received: 2, inserted: 0, updated: 0 });
      const snapshot = async () => w.query('SELECT * EXCLUDE (last_load_id) FROM graph_edges ORDER BY ALL');
      const before = JSON.stringify(await snapshot(), (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
      expect(await w.query('SELECT count(*)::INTEGER AS n, min(last_load_id) AS l FROM graph_nodes')).toEqual([{ n: 3, l: 'l1' }]);
      expect(await w.land(GRAPH_EDGES, graphRows(graph(3), run).edges, [], 'l3')).toEqual({ received: 2, inserted: 0, updated: 1 });
      expect(JSON.stringify(await snapshot(), (_k, v) => (typeof v === 'bigint' ? Number(v) : v))).not.toBe(before);
      expect(await w.query("SELECT weight FROM graph_edges WHERE label = 'warns'")).toEqual([{ weight: 3 }]);
    } finally {
      w.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs over time: SQL over graph_nodes and graph_edges follows an entity network from run to run', async () => {
    const dir = tempDir('newsflow-wh-graph-');
    const w = await Warehouse.open(dir);
    try {
      for (const [i, weight] of [
        [1, 2],
        [2, 7],
      ] as const) {
        const rows = graphRows(graph(weight), { runId: `entityGraph-${i}`, runAt: `2022-0${i}-01T00:00:00Z`, query: 'Ukraine Russia talks' });
        await w.land(GRAPH_NODES, rows.nodes, [], `l${i}`);
        await w.land(GRAPH_EDGES, rows.edges, [], `l${i}`);
      }
      const people = await w.query<{ node_id: string; aliases: string[] }>(
        "SELECT DISTINCT node_id, aliases FROM graph_nodes WHERE type = 'Person' ORDER BY node_id",
      );
      expect(people).toEqual([
        { node_id: 'Biden', aliases: [] },
        { node_id: 'Vladimir Putin', aliases: ['Putin'] },
      ]);
      const series = await w.query<{ month: string; weight: number }>(
        "SELECT strftime(run_at, '%Y-%m') AS month, weight FROM graph_edges WHERE from_id = 'Biden' AND to_id = 'Vladimir Putin' ORDER BY run_at",
      );
      expect(series).toEqual([
        { month: '2022-01', weight: 2 },
        { month: '2022-02', weight: 7 },
      ]);
      const places = await w.query("SELECT node_id, latitude, longitude FROM graph_nodes WHERE detailed_type = 'Country' AND run_id = 'entityGraph-2'");
      expect(places).toEqual([{ node_id: 'Ukraine', latitude: 49, longitude: 32 }]);
    } finally {
      w.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
