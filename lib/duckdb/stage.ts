/**
 * The one DuckDB stager, used by the service's store (service/store) and the warehouse
 * (warehouse/land.ts): rows go through a DuckDB appender into a staging table, then one SQL
 * statement moves them. A column's kind says how it is staged; the same kinds, SQL types and
 * append functions serve both entry points:
 * - `stage`: rows as arrays into `_stg_<name>` (created on first use, emptied each time);
 * - `stageRows`: rows as objects into a fresh table (`CREATE OR REPLACE`: no deleted rows of
 *   earlier batches left to skip), read from the row objects as they come (no array per row),
 *   with one append function per column chosen once.
 */
import { LIST, VARCHAR, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';

export type ColKind = 'varchar' | 'int' | 'bigint' | 'double' | 'bool' | 'varchar[]' | 'blob';
export type ColSpec = readonly [name: string, kind: ColKind];

const SQL_TYPE: Record<ColKind, string> = {
  varchar: 'VARCHAR',
  int: 'INTEGER',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  bool: 'BOOLEAN',
  'varchar[]': 'VARCHAR[]',
  blob: 'BLOB',
};
const listType = LIST(VARCHAR);
const APPEND: Record<ColKind, (a: DuckDBAppender, v: unknown) => void> = {
  varchar: (a, v) => a.appendVarchar(typeof v === 'string' ? v : String(v)),
  int: (a, v) => a.appendInteger(v as number),
  bigint: (a, v) => a.appendBigInt(typeof v === 'bigint' ? v : BigInt(Math.round(v as number))),
  double: (a, v) => a.appendDouble(v as number),
  bool: (a, v) => a.appendBoolean(!!v),
  'varchar[]': (a, v) => a.appendList((v as unknown[]).map(String), listType),
  blob: (a, v) => a.appendBlob(v as Uint8Array),
};

/** Fill `_stg_<name>` (created on first use, emptied each time) with `rows`. */
export async function stage(conn: DuckDBConnection, name: string, cols: readonly ColSpec[], rows: readonly (readonly unknown[])[]): Promise<string> {
  const table = `_stg_${name}`;
  await conn.run(`CREATE TABLE IF NOT EXISTS ${table} (${cols.map(([c, k]) => `${c} ${SQL_TYPE[k]}`).join(', ')})`);
  await conn.run(`DELETE FROM ${table}`);
  const app = await conn.createAppender(table);
  const appends = cols.map(([, k]) => APPEND[k]);
  for (const row of rows) {
    for (let i = 0; i < cols.length; i++) {
      const v = row[i];
      if (v === null || v === undefined) app.appendNull();
      else appends[i]!(app, v);
    }
    app.endRow();
  }
  app.flushSync();
  app.closeSync();
  return table;
}

/**
 * Fill the in-memory table `table` (replaced) with `rows`: column `name` of row `i` is
 * `value[name](row, i)` when given, else `row[name]` (null/undefined: NULL).
 */
export async function stageRows(
  conn: DuckDBConnection,
  table: string,
  cols: readonly { name: string; kind: ColKind }[],
  rows: readonly Record<string, unknown>[],
  value: Record<string, (r: Record<string, unknown>, i: number) => unknown> = {},
): Promise<string> {
  await conn.run(`CREATE OR REPLACE TABLE ${table} (${cols.map((c) => `${c.name} ${SQL_TYPE[c.kind]}`).join(', ')})`);
  const app = await conn.createAppender(table);
  try {
    const names = cols.map((c) => c.name);
    const appends = cols.map((c) => APPEND[c.kind]);
    const getters = cols.map((c) => value[c.name]);
    const n = cols.length;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      for (let j = 0; j < n; j++) {
        const g = getters[j];
        const v = g ? g(r, i) : r[names[j]!];
        if (v === null || v === undefined) app.appendNull();
        else appends[j]!(app, v);
      }
      app.endRow();
    }
    app.flushSync();
  } finally {
    app.closeSync();
  }
  return table;
}

/** epoch ms -> staged microseconds (moved with make_timestamp) */
export const micros = (d: Date | null | undefined) => (d ? d.getTime() * 1000 : null);
