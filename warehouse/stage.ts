/**
 * Staging of a landing batch: the rows go through a DuckDB appender into a fresh in-memory table
 * (`CREATE OR REPLACE`: no deleted rows of earlier batches left to skip), read from the row objects
 * as they come (no array per row), with one append function per column chosen once.
 */
import { LIST, VARCHAR, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type { ColKind } from '../service/store/bulk.js';

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
