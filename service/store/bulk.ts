/** Bulk writes of the service's store: the one DuckDB stager (lib/duckdb/stage.ts), shared with the warehouse. */
export { micros, stage, type ColKind, type ColSpec } from '../../lib/duckdb/stage.js';
