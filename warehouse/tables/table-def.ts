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
  /**
   * columns left out of the row hash: those describing the load (when, which), and the `raw` of
   * tables whose API answers carry fields that differ on every call (a replayed round or page must
   * change nothing: its mapped columns decide)
   */
  loadColumns?: string[];
  description: string;
  /**
   * The row mapper run backwards from what was kept: a landed row (and its children) rebuilt from
   * its `raw` (the API's object, parsed) and the row as landed (the columns that come from the
   * request, not the response: window, page, run). What `newsflow reprocess` runs; the same mapper
   * the landing activity runs, so a rebuilt row's hash equals a fresh ingest's.
   */
  fromRaw?: (raw: unknown, row: Record<string, unknown>) => Remapped;
  /**
   * The schema (spec/, zod) of the API object a row's `raw` keeps: what a load's objects are
   * compared with to find new and vanished fields (warehouse/schema.ts).
   */
  rawSchema?: unknown;
  /**
   * When a row was landed, as a SQL expression over the table's columns, for a table with no load
   * column (`last_load_id`, `load_id`, `loaded_at`) of its own and no parent: what `newsflow dbt
   * init` writes as the table's `loaded_at_field` (dbt source freshness).
   */
  loadedAt?: string;
}
/** A row rebuilt from its `raw`, with its child rows (each child table's rows of this parent). */
export interface Remapped {
  row: Record<string, unknown>;
  children?: { table: TableDef; rows: Record<string, unknown>[] }[];
}
