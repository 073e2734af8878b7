/** File names of the warehouse folder that several rooms name (the CLI's help among them, which loads no DuckDB). */
/** The single-file warehouse of before the lake (`newsflow warehouse migrate` moves it in). */
export const WAREHOUSE_FILE = 'warehouse.duckdb';
/** The read copy of the single-file warehouse: gone with the lake (migrate removes a stale one). */
export const SNAPSHOT_FILE = 'warehouse.snapshot.duckdb';
