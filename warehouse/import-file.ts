/** Imports: the rows of a single-file warehouse of before the lake moved into the lake (`newsflow warehouse migrate`). */
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS, type LakeTx } from './lake.js';
import { TABLES } from './tables/index.js';
import { SNAPSHOT_FILE, WAREHOUSE_FILE } from './files.js';
import { RENAME_OLD_KINDS } from './migrations.js';

export { SNAPSHOT_FILE, WAREHOUSE_FILE };

export class WarehouseMigrateError extends Error {}

const sqlStr = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Move the rows of a single-file warehouse of before the lake (`warehouse.duckdb`) into the lake,
 * every table in one transaction. Refuses when the file holds no rows, or when the lake holds
 * rows already unless `force` (then each table's rows are replaced by the file's: running it
 * again gives the same lake). Returns the rows moved per table.
 */
export async function importFile(conn: DuckDBConnection, dir: string, tx: LakeTx, file: string, o: { force?: boolean } = {}): Promise<Record<string, number>> {
  if (!fs.existsSync(file)) throw new WarehouseMigrateError(`nothing to migrate: ${file} does not exist`);
  const names = [...TABLES.map((t) => t.name), '_loads'];
  const all = async (sql: string, p?: unknown[]) => (await conn.runAndReadAll(sql, p as never)).getRowObjectsJS();
  try {
    await conn.run(`ATTACH ${sqlStr(path.resolve(file))} AS old_wh (READ_ONLY)`);
  } catch (e) {
    throw new WarehouseMigrateError(`cannot open ${file}: ${(e as Error).message.split('\n')[0]} (stop the process that writes it, then run again)`);
  }
  try {
    const present = new Set((await all("SELECT table_name FROM duckdb_tables() WHERE database_name = 'old_wh'")).map((r) => String(r.table_name)));
    const from = names.filter((n) => present.has(n));
    const oldRows = Object.fromEntries(
      await Promise.all(from.map(async (n) => [n, Number((await all(`SELECT count(*) AS n FROM old_wh.main.${n}`))[0]!.n)] as const)),
    );
    if (from.length === 0 || Object.values(oldRows).every((n) => n === 0)) throw new WarehouseMigrateError(`nothing to migrate: ${file} holds no rows`);
    const lakeRows = (await Promise.all(names.map(async (n) => Number((await all(`SELECT count(*) AS n FROM ${n}`))[0]!.n)))).reduce((a, b) => a + b, 0);
    if (lakeRows > 0 && !o.force)
      throw new WarehouseMigrateError(`the lake under ${dir} holds ${lakeRows} rows already; pass --force to replace its tables with the rows of ${file}`);
    const moved: Record<string, number> = {};
    await tx({ op: `migrate ${path.basename(file)}` }, async (c) => {
      for (const n of from) {
        const lakeCols = new Set(
          (await all(`SELECT column_name FROM duckdb_columns() WHERE database_name = '${LAKE_ALIAS}' AND table_name = $1`, [n])).map((r) =>
            String(r.column_name),
          ),
        );
        const cols = (await all("SELECT column_name FROM duckdb_columns() WHERE database_name = 'old_wh' AND table_name = $1 ORDER BY column_index", [n]))
          .map((r) => String(r.column_name))
          .filter((x) => lakeCols.has(x));
        if (o.force) await c.run(`DELETE FROM ${n}`);
        await c.run(`INSERT INTO ${n} (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM old_wh.main.${n}`);
        moved[n] = oldRows[n]!;
      }
      // loads of before named pipelines: the kind was their pipeline
      if (from.includes('_loads')) {
        await c.run('UPDATE _loads SET kind = pipeline WHERE kind IS NULL');
        await c.run(RENAME_OLD_KINDS);
      }
    });
    fs.rmSync(path.join(dir, SNAPSHOT_FILE), { force: true });
    return moved;
  } finally {
    await conn.run('DETACH old_wh').catch(() => undefined);
  }
}
