/** `newsflow run graph --out FILE`: the run's graph as JSON, read back from the warehouse snapshot it landed in (the graph kind's `after`, pipelines/config/kinds/graph.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { openReader } from './read.js';

/** The warehouse a run landed in: its folder and its lake. */
interface WarehouseAt {
  dir: string;
  lake: { catalog?: string; dataPath?: string };
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const plain = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);

export async function writeGraphFile(wh: WarehouseAt, result: Record<string, unknown>, out: string): Promise<void> {
  const runId = String(result.runId);
  const snap = await openReader(wh.dir, { lake: wh.lake });
  try {
    const nodes = await snap.all(`SELECT node_id AS id, type, detailed_type, ner_type, mentions, sources, aliases, latitude, longitude
      FROM graph_nodes WHERE run_id = ${sqlString(runId)} ORDER BY sources DESC, mentions DESC, node_id`);
    const edges = await snap.all(`SELECT from_id AS "from", to_id AS "to", label, weight, source_ids AS sources
      FROM graph_edges WHERE run_id = ${sqlString(runId)} ORDER BY weight DESC, from_id, to_id, label`);
    const doc = {
      run_id: runId,
      run_at: result.runAt,
      query: result.query,
      visualize_url: result.visualize_url ?? null,
      triples_url: result.triples_url ?? null,
      nodes: nodes.map((n) =>
        Object.fromEntries(
          Object.entries(n)
            .filter(([, v]) => v !== null)
            .map(([k, v]) => [k, plain(v)]),
        ),
      ),
      edges: edges.map((e) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, plain(v)]))),
    };
    fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
    console.error(`graph of run ${runId}: ${nodes.length} nodes, ${edges.length} edges -> ${out}`);
  } finally {
    snap.close();
  }
}
