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
  name: 'graph_nodes',
  description: 'one row per entity of a graph run (merge on run_id, node_id)',
  mergeKey: ['run_id', 'node_id'],
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
    ...tail,
  ],
};

export const GRAPH_EDGES: TableDef = {
  name: 'graph_edges',
  description: 'one row per relation of a graph run (merge on run_id, from_id, to_id, label)',
  mergeKey: ['run_id', 'from_id', 'to_id', 'label'],
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
    ...tail,
  ],
};

export const GRAPH_TABLES = [GRAPH_NODES, GRAPH_EDGES];
