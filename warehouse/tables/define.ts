/**
 * Tables of your own (a custom pipeline's): a definition like ours, landed by the same `land`
 * (merge on its key, a content hash per row, one lake transaction per batch, replaying a batch
 * changes nothing). `defineTable` adds the bookkeeping columns a merged table needs.
 */
import type { ColKind } from '../../lib/duckdb/stage.js';
import type { Column, TableDef } from './table-def.js';

/** `[name, warehouse SQL type, staged kind]`, e.g. `['query', 'VARCHAR', 'varchar']`, `['n', 'BIGINT', 'bigint']`. */
export type ColumnSpec = [name: string, sql: string, kind: ColKind];

export interface TableSpec {
  /** lower-case letters, digits and underscores; not one of newsflow's tables */
  name: string;
  description: string;
  columns: (ColumnSpec | Column)[];
  /** the columns a row is merged on: landing a row with the same key again updates it (if its content changed) */
  mergeKey: string[];
  /** a child table: its rows for the parents in a batch are replaced, keyed by these columns */
  replaceBy?: string[];
  /** a timestamp column the Parquet export partitions by month */
  monthColumn?: string;
}

export const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function defineTable(t: TableSpec): TableDef {
  if (!TABLE_NAME.test(t.name)) throw new Error(`table name "${t.name}": lower-case letters, digits and underscores, at most 63`);
  const columns: Column[] = t.columns.map((c) => (Array.isArray(c) ? { name: c[0], sql: c[1], kind: c[2] } : c));
  for (const k of [...t.mergeKey, ...(t.replaceBy ?? [])])
    if (!columns.some((c) => c.name === k)) throw new Error(`table ${t.name}: key column "${k}" is not one of its columns`);
  if (!t.replaceBy) {
    // a merged (parent) table keeps each row's content hash and the load that last changed it
    if (!columns.some((c) => c.name === 'row_hash')) columns.push({ name: 'row_hash', sql: 'VARCHAR', kind: 'varchar' });
    if (!columns.some((c) => c.name === 'last_load_id')) columns.push({ name: 'last_load_id', sql: 'VARCHAR', kind: 'varchar' });
  }
  return { name: t.name, description: t.description, columns, mergeKey: t.mergeKey, replaceBy: t.replaceBy, monthColumn: t.monthColumn };
}
