/** What a landed table is: its columns (warehouse type, staged kind), merge key, child-table key and month column. */
import type { ColKind } from '../../lib/duckdb/stage.js';

export interface Column {
  name: string;
  /** column type in the warehouse */
  sql: string;
  /** how it is staged (see lib/duckdb/stage.ts) and moved: bigint micros -> TIMESTAMP, varchar -> UUID/JSON */
  kind: ColKind;
}
export interface TableDef {
  name: string;
  columns: Column[];
  mergeKey: string[];
  /** child tables: the parent key column(s) whose rows are replaced */
  replaceBy?: string[];
  /** timestamp column the Parquet export partitions by month */
  monthColumn?: string;
  /** columns describing the load (when, which), not the data: left out of the row hash */
  loadColumns?: string[];
  description: string;
}
