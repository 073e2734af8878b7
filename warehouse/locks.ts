/**
 * The lake's lock rows (`_land_locks`, one per landed table): DuckLake sees no conflict in two
 * transactions that both append, so every changing write into a table also updates that table's
 * lock row; two writers of one table then conflict on commit and one retries (withLakeRetry),
 * reading what the other wrote. The one place that writes them: landing (land.ts) and the
 * ledgers' statements (`Warehouse.execMany(..., { locks })`) call it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** Touch `table`'s lock row in `conn`'s transaction (created when the table has none yet: a table of a later migration, or your own). */
export async function bumpLandLock(conn: DuckDBConnection, table: string): Promise<void> {
  const r = await conn.runAndReadAll('UPDATE _land_locks SET n = n + 1 WHERE table_name = $1', [table]);
  if (Number((r.getRowObjectsJS()[0] as { Count?: bigint } | undefined)?.Count ?? 0) === 0) await conn.run('INSERT INTO _land_locks VALUES ($1, 1)', [table]);
}
