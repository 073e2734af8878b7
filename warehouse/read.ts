/**
 * Readers: SQL over the lake attached READ_ONLY (never blocked by a writer, never blocking one),
 * at its newest snapshot or as it was after a load (`at`: time travel), output as a table, CSV,
 * JSON or Arrow IPC; and the Parquet export, hive-partitioned by month, written to a temporary
 * folder and renamed into place.
 */
import { UserError } from '../lib/errors.js';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { WAREHOUSE_FILE } from './import-file.js';
import { catalogSpec, lakeExists, openLake, type LakeOptions } from './lake.js';
import { TABLES, TABLES_BY_NAME } from './tables/index.js';

export class WarehouseReadError extends UserError {}

export interface Reader {
  all: (sql: string) => Promise<Record<string, unknown>[]>;
  /** the lake snapshot read */
  snapshot: number | null;
  close: () => void;
}

/**
 * Attach the lake of a warehouse folder read-only; with `at` (a load id), at the snapshot that
 * recorded that load. Lake options from `lake`, else NEWSFLOW_LAKE_CATALOG / NEWSFLOW_LAKE_DATA.
 */
export async function openReader(dir: string, o: { at?: string; lake?: Partial<LakeOptions> } = {}): Promise<Reader> {
  const opts: LakeOptions = { dir, ...o.lake, readOnly: true };
  if (!lakeExists(opts)) {
    const old = fs.existsSync(path.join(dir, WAREHOUSE_FILE));
    throw new WarehouseReadError(
      old
        ? `the warehouse under ${dir} is a single DuckDB file (${WAREHOUSE_FILE}) of an older newsflow; move it into the lake with \`newsflow warehouse migrate\``
        : `no warehouse under ${dir} yet (${catalogSpec(opts).spec.replace(/^sqlite:/, '')} is created by the first pipeline); run a pipeline first, or pass --warehouse DIR`,
    );
  }
  let lake = await openLake(opts);
  const rows = async (sql: string, params?: unknown[]) => (await lake.conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as Record<string, unknown>[];
  let snapshot: number | null;
  try {
    if (o.at !== undefined) {
      const [hit] = await rows('SELECT snapshot_id FROM _loads WHERE load_id = $1 ORDER BY snapshot_id DESC NULLS LAST LIMIT 1', [o.at]);
      if (!hit)
        throw new WarehouseReadError(
          `unknown load id "${o.at}" (the loads: newsflow sql "SELECT load_id, pipeline, finished_at FROM _loads ORDER BY finished_at")`,
        );
      if (hit.snapshot_id === null || hit.snapshot_id === undefined)
        throw new WarehouseReadError(`load "${o.at}" has no lake snapshot (it was recorded before the warehouse moved to the lake)`);
      snapshot = Number(hit.snapshot_id);
      await reachable(rows, o.at, snapshot);
      lake.close();
      lake = await openLake({ ...opts, snapshot });
    } else {
      const [cur] = await rows('SELECT id FROM lake.current_snapshot()');
      snapshot = cur ? Number(cur.id) : null;
    }
  } catch (e) {
    lake.close();
    throw e;
  }
  return {
    all: async (sql: string) => (await lake.conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
    snapshot,
    close: () => lake.close(),
  };
}

/**
 * Throw one line when the snapshot of load `at` expired (`newsflow warehouse maintain`): the
 * retention the maintenance keeps (the lake's `expire_older_than` option) and the oldest load
 * whose snapshot is still there.
 */
async function reachable(rows: (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>, at: string, snapshot: number): Promise<void> {
  const [oldest] = await rows(`SELECT min(snapshot_id) AS s FROM ducklake_snapshots('lake')`);
  const first = oldest?.s === null || oldest?.s === undefined ? null : Number(oldest.s);
  if (first === null || snapshot >= first) return;
  // the retention of the last maintenance run (warehouse/maintain.ts records it in its _loads row)
  const [m] = await rows(`SELECT invariants->>'$.retention_days' AS days FROM _loads WHERE kind = 'maintenance' ORDER BY finished_at DESC LIMIT 1`).catch(
    () => [],
  );
  const days = m?.days === null || m?.days === undefined ? null : Number(m.days);
  const retention = days === null ? 'the retention of newsflow warehouse maintain' : days === 1 ? '1 day' : `${Math.round(days * 1000) / 1000} days`;
  const [next] = await rows('SELECT load_id, finished_at FROM _loads WHERE snapshot_id >= $1 ORDER BY snapshot_id, finished_at LIMIT 1', [first]);
  const when = (d: unknown) => (d instanceof Date ? d.toISOString().replace(/\.\d+Z$/, 'Z') : String(d));
  throw new WarehouseReadError(
    `load "${at}" has expired: the warehouse keeps snapshots for ${retention} (newsflow warehouse maintain); ${
      next ? `the oldest load still reachable is "${String(next.load_id)}" (finished ${when(next.finished_at)})` : 'no load is reachable with --at'
    }`,
  );
}

/** The reader of before the lake had this name. */
export const openSnapshot = (dir: string) => openReader(dir);

const plain = (v: unknown): unknown =>
  typeof v === 'bigint'
    ? Number.isSafeInteger(Number(v))
      ? Number(v)
      : v.toString()
    : v instanceof Date
      ? v
      : Array.isArray(v)
        ? v.map(plain)
        : v && typeof v === 'object' && !(v instanceof Uint8Array)
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
          : v;

export type SqlFormat = 'table' | 'csv' | 'json' | 'arrow' | 'parquet';

/**
 * Write the rows of `query` to the Parquet file `out` (DuckDB's COPY: the columns keep their
 * types, timestamps and lists included), through a temporary file renamed into place, so a
 * reader never sees half a file. Returns the rows written.
 */
export async function writeParquet(db: Reader, query: string, out: string): Promise<number> {
  const q = query.trim().replace(/;\s*$/, '');
  const tmp = path.join(path.dirname(path.resolve(out)), `.${path.basename(out)}.${process.pid}.tmp`);
  try {
    const [r] = await db.all(`COPY (${q}) TO '${tmp.replaceAll("'", "''")}' (FORMAT parquet)`);
    fs.renameSync(tmp, out);
    return Number(r?.Count ?? 0);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

export function formatRows(rows: Record<string, unknown>[], format: SqlFormat): string | Uint8Array {
  const data = rows.map((r) => plain(r) as Record<string, unknown>);
  const cell = (v: unknown) =>
    v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
  switch (format) {
    case 'json':
      return `${JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`;
    case 'csv': {
      const cols = Object.keys(data[0] ?? {});
      const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
      return [cols.join(','), ...data.map((r) => cols.map((c) => q(cell(r[c]))).join(','))].join('\n') + '\n';
    }
    case 'arrow': {
      // loaded for Arrow output only: the other formats start without it
      const { tableFromJSON, tableToIPC } = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');
      return tableToIPC(
        tableFromJSON(
          data.map((r) =>
            Object.fromEntries(
              Object.entries(r).map(([k, v]) => [k, v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) ? JSON.stringify(v) : v]),
            ),
          ),
        ),
        'stream',
      );
    }
    default: {
      if (data.length === 0) return '(0 rows)\n';
      const cols = Object.keys(data[0]!);
      const w = cols.map((c) => Math.min(60, Math.max(c.length, ...data.map((r) => cell(r[c]).length))));
      const line = (vals: string[]) => vals.map((v, i) => (v.length > w[i]! ? `${v.slice(0, w[i]! - 1)}…` : v.padEnd(w[i]!))).join(' | ');
      return (
        [line(cols), w.map((x) => '-'.repeat(x)).join('-+-'), ...data.map((r) => line(cols.map((c) => cell(r[c])))), `(${data.length} rows)`].join('\n') + '\n'
      );
    }
  }
}

/** Export tables to Parquet, hive-partitioned by month; each table folder is swapped in atomically. */
export async function exportParquet(dir: string, out: string, tables?: string[]): Promise<Record<string, number>> {
  const names = tables?.length ? tables : TABLES.map((t) => t.name).concat('_loads');
  for (const n of names)
    if (n !== '_loads' && !TABLES_BY_NAME[n]) throw new WarehouseReadError(`unknown table "${n}"; tables: ${TABLES.map((t) => t.name).join(', ')}, _loads`);
  const db = await openReader(dir);
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
        await db.all(
          `COPY (SELECT t.*, coalesce(${monthExpr}, 'unknown') AS month FROM ${name} t) TO '${tmp.replace(/'/g, "''")}' (FORMAT parquet, PARTITION_BY (month))`,
        );
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
