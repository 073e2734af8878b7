/**
 * Tables landed by entityGraph (`newsflow run graph`): the nodes and edges of each run's
 * knowledge graph, so entity networks can be compared over time with SQL. Merge keys: a node is
 * (run_id, node_id), an edge (run_id, from_id, to_id, label); landing the same run again changes
 * nothing (the rows hold no per-request value such as the graph's capability id).
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });
const tail = [c('row_hash', 'VARCHAR', 'varchar'), c('last_load_id', 'VARCHAR', 'varchar')];

export const GRAPH_NODES: TableDef = {
  fromRaw: (raw) => ({ row: nodeCols(raw as Node) }),
  name: 'graph_nodes',
  description: 'one row per entity of a graph run (merge on run_id, node_id)',
  mergeKey: ['run_id', 'node_id'],
  loadColumns: ['raw'],
  monthColumn: 'run_at',
  columns: [
    c('run_id', 'VARCHAR', 'varchar'),
    c('run_at', 'TIMESTAMP', 'bigint'),
    c('query', 'VARCHAR', 'varchar'),
    c('node_id', 'VARCHAR', 'varchar'),
    c('type', 'VARCHAR', 'varchar'),
    c('detailed_type', 'VARCHAR', 'varchar'),
    c('ner_type', 'VARCHAR', 'varchar'),
    c('mentions', 'INTEGER', 'int'),
    c('sources', 'INTEGER', 'int'),
    c('aliases', 'VARCHAR[]', 'varchar[]'),
    c('latitude', 'DOUBLE', 'double'),
    c('longitude', 'DOUBLE', 'double'),
    c('raw', 'JSON', 'varchar'),
    ...tail,
  ],
};

export const GRAPH_EDGES: TableDef = {
  // the ends' types are the run's nodes': kept as landed
  fromRaw: (raw, row) => ({
    row: edgeCols(
      raw as Edge,
      new Map([
        [String((raw as Edge).from), row.from_type as string],
        [String((raw as Edge).to), row.to_type as string],
      ]),
    ),
  }),
  name: 'graph_edges',
  description: 'one row per relation of a graph run (merge on run_id, from_id, to_id, label)',
  mergeKey: ['run_id', 'from_id', 'to_id', 'label'],
  loadColumns: ['raw'],
  monthColumn: 'run_at',
  columns: [
    c('run_id', 'VARCHAR', 'varchar'),
    c('run_at', 'TIMESTAMP', 'bigint'),
    c('query', 'VARCHAR', 'varchar'),
    c('from_id', 'VARCHAR', 'varchar'),
    c('to_id', 'VARCHAR', 'varchar'),
    c('label', 'VARCHAR', 'varchar'),
    c('weight', 'INTEGER', 'int'),
    c('from_type', 'VARCHAR', 'varchar'),
    c('to_type', 'VARCHAR', 'varchar'),
    c('source_ids', 'VARCHAR[]', 'varchar[]'),
    c('raw', 'JSON', 'varchar'),
    ...tail,
  ],
};

const usIso = (iso: string) => Date.parse(iso) * 1000;

interface Node {
  id: string;
  type: string;
  detailed_type: string;
  ner_type: string;
  mentions?: number;
  sources?: number;
  aliases?: string[];
  latitude?: number;
  longitude?: number;
}
interface Edge {
  from: string;
  to: string;
  label: string;
  weight?: number;
  sources?: string[];
}

/** Warehouse rows of a graph response (pure: the same graph gives the same rows). */
export function graphRows(full: { nodes?: unknown; edges?: unknown }, o: { runId: string; runAt: string; query: string }) {
  const nodes = (Array.isArray(full.nodes) ? full.nodes : []) as Node[];
  const edges = (Array.isArray(full.edges) ? full.edges : []) as Edge[];
  const typeOf = new Map(nodes.map((n) => [n.id, n.type]));
  const base = { run_id: o.runId, run_at: usIso(o.runAt), query: o.query };
  return {
    nodes: nodes.map((n) => ({
      ...base,
      ...nodeCols(n),
    })),
    edges: edges.map((e) => ({
      ...base,
      ...edgeCols(e, typeOf),
    })),
  };
}

/** A node's columns from the node of the response (`raw` included). */
function nodeCols(n: Node) {
  return {
    node_id: n.id,
    type: n.type,
    detailed_type: n.detailed_type,
    ner_type: n.ner_type,
    mentions: n.mentions ?? null,
    sources: n.sources ?? null,
    aliases: n.aliases ?? [],
    latitude: n.latitude ?? null,
    longitude: n.longitude ?? null,
    raw: JSON.stringify(n),
  };
}

/** An edge's columns from the edge of the response (`raw` included), its ends' types from the graph's nodes. */
function edgeCols(e: Edge, typeOf: Map<string, string>) {
  return {
    from_id: e.from,
    to_id: e.to,
    label: e.label,
    weight: e.weight ?? null,
    from_type: typeOf.get(e.from) ?? null,
    to_type: typeOf.get(e.to) ?? null,
    source_ids: e.sources ?? [],
    raw: JSON.stringify(e),
  };
}

export const GRAPH_TABLES = [GRAPH_NODES, GRAPH_EDGES];
