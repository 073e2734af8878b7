/** Bulk writes: rows go through a DuckDB appender into a staging table, then one SQL statement moves them. */
import { LIST, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';

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

/** Fill `_stg_<name>` (created on first use, emptied each time) with `rows`. */
export async function stage(conn: DuckDBConnection, name: string, cols: readonly ColSpec[], rows: readonly (readonly unknown[])[]): Promise<string> {
  const table = `_stg_${name}`;
  await conn.run(`CREATE TABLE IF NOT EXISTS ${table} (${cols.map(([c, k]) => `${c} ${SQL_TYPE[k]}`).join(', ')})`);
  await conn.run(`DELETE FROM ${table}`);
  const app = await conn.createAppender(table);
  const listType = LIST(VARCHAR);
  for (const row of rows) {
    for (let i = 0; i < cols.length; i++) {
      const v = row[i];
      if (v === null || v === undefined) {
        app.appendNull();
        continue;
      }
      switch (cols[i]![1]) {
        case 'varchar':
          app.appendVarchar(String(v));
          break;
        case 'int':
          app.appendInteger(v as number);
          break;
        case 'bigint':
          app.appendBigInt(BigInt(Math.round(v as number)));
          break;
        case 'double':
          app.appendDouble(v as number);
          break;
        case 'bool':
          app.appendBoolean(!!v);
          break;
        case 'varchar[]':
          app.appendList((v as string[]).map(String), listType);
          break;
        case 'blob':
          app.appendBlob(v as Uint8Array);
          break;
      }
    }
    app.endRow();
  }
  app.flushSync();
  app.closeSync();
  return table;
}

/** epoch ms -> staged microseconds (moved with make_timestamp) */
export const micros = (d: Date | null | undefined) => (d ? d.getTime() * 1000 : null);
