/**
 * Readers: SQL over the published snapshot (read-only, never the writer's lock), output as a
 * table, CSV, JSON or Arrow IPC; and the Parquet export, hive-partitioned by month, written to a
 * temporary folder and renamed into place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromJSON, tableToIPC } from 'apache-arrow';
import { SNAPSHOT_FILE, WAREHOUSE_FILE } from './warehouse.js';
import { TABLES, TABLES_BY_NAME } from './tables/index.js';

export class WarehouseReadError extends Error {}

export async function openSnapshot(dir: string): Promise<{ all: (sql: string) => Promise<Record<string, unknown>[]>; close: () => void }> {
  const snap = path.join(dir, SNAPSHOT_FILE);
  if (!fs.existsSync(snap)) {
    throw new WarehouseReadError(`no warehouse under ${dir} yet (${SNAPSHOT_FILE} is written after the first load); run a pipeline first, or pass --warehouse DIR`);
  }
  const instance = await DuckDBInstance.create(snap, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  return {
    all: async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

const plain = (v: unknown): unknown =>
  typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString())
  : v instanceof Date ? v
  : Array.isArray(v) ? v.map(plain)
  : v && typeof v === 'object' && !(v instanceof Uint8Array) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
  : v;

export type SqlFormat = 'table' | 'csv' | 'json' | 'arrow';

export function formatRows(rows: Record<string, unknown>[], format: SqlFormat): string | Uint8Array {
  const data = rows.map((r) => plain(r) as Record<string, unknown>);
  const cell = (v: unknown) => (v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v));
  switch (format) {
    case 'json':
      return `${JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`;
    case 'csv': {
      const cols = Object.keys(data[0] ?? {});
      const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
      return [cols.join(','), ...data.map((r) => cols.map((c) => q(cell(r[c]))).join(','))].join('\n') + '\n';
    }
    case 'arrow':
      return tableToIPC(tableFromJSON(data.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) ? JSON.stringify(v) : v])))), 'stream');
    default: {
      if (data.length === 0) return '(0 rows)\n';
      const cols = Object.keys(data[0]!);
      const w = cols.map((c) => Math.min(60, Math.max(c.length, ...data.map((r) => cell(r[c]).length))));
      const line = (vals: string[]) => vals.map((v, i) => (v.length > w[i]! ? `${v.slice(0, w[i]! - 1)}…` : v.padEnd(w[i]!))).join(' | ');
      return [line(cols), w.map((x) => '-'.repeat(x)).join('-+-'), ...data.map((r) => line(cols.map((c) => cell(r[c])))), `(${data.length} rows)`].join('\n') + '\n';
    }
  }
}

/** Export tables to Parquet, hive-partitioned by month; each table folder is swapped in atomically. */
export async function exportParquet(dir: string, out: string, tables?: string[]): Promise<Record<string, number>> {
  const names = tables?.length ? tables : TABLES.map((t) => t.name).concat('_loads');
  for (const n of names) if (n !== '_loads' && !TABLES_BY_NAME[n]) throw new WarehouseReadError(`unknown table "${n}"; tables: ${TABLES.map((t) => t.name).join(', ')}, _loads`);
  const db = await openSnapshot(dir);
  const counts: Record<string, number> = {};
  try {
    fs.mkdirSync(out, { recursive: true });
    for (const name of names) {
      const def = TABLES_BY_NAME[name];
      const monthExpr = def?.monthColumn
        ? `strftime(${def.monthColumn}, '%Y-%m')`
        : def?.replaceBy
          ? `(SELECT strftime(p.pub_date, '%Y-%m') FROM articles p WHERE p.article_id = t.article_id)`
          : `strftime(started_at, '%Y-%m')`;
      const final = path.join(out, name);
      const tmp = path.join(out, `.${name}.${process.pid}.tmp`);
      fs.rmSync(tmp, { recursive: true, force: true });
      const n = Number((await db.all(`SELECT count(*) AS n FROM ${name}`))[0]!.n);
      if (n > 0) {
        await db.all(`COPY (SELECT t.*, coalesce(${monthExpr}, 'unknown') AS month FROM ${name} t) TO '${tmp.replace(/'/g, "''")}' (FORMAT parquet, PARTITION_BY (month))`);
      } else {
        fs.mkdirSync(tmp, { recursive: true });
      }
      const old = `${final}.${process.pid}.old`;
      if (fs.existsSync(final)) fs.renameSync(final, old);
      fs.renameSync(tmp, final);
      fs.rmSync(old, { recursive: true, force: true });
      counts[name] = n;
    }
  } finally {
    db.close();
  }
  return counts;
}

export { WAREHOUSE_FILE };
