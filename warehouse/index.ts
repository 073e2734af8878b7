/**
 * `newsflow/warehouse`: the DuckLake warehouse the pipelines land into. Open one (`Warehouse.open`),
 * land rows into newsflow's tables or your own (`defineTable`, `ensureTables`, `land`), record a
 * load (`recordLoad`), read it (`openReader`, or any DuckDB attaching the lake).
 */
export { Warehouse, createTable, type LoadMeta, type LoadCounts } from './warehouse.js';
export { defineTable, type ColumnSpec, type TableSpec } from './tables/define.js';
export { TABLES, TABLES_BY_NAME, type Column, type TableDef } from './tables/index.js';
export { PIPELINE_ARTICLES } from './tables/pipelines.js';
export { openReader, WarehouseReadError } from './read.js';
export type { ColKind } from '../lib/duckdb/stage.js';
