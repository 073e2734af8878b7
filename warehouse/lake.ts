/**
 * The lake: where the warehouse's tables live (DuckLake). One place that knows how to attach it.
 *
 * - catalog: a SQLite file `<dir>/lake.sqlite` by default (WAL, busy timeout: several processes on
 *   one machine read and write), or PostgreSQL (`NEWSFLOW_LAKE_CATALOG=postgres://…` or a libpq
 *   string `dbname=… host=…`) for many machines;
 * - data: Parquet files under `<dir>/lake/` by default, or `NEWSFLOW_LAKE_DATA` (a shared folder,
 *   or `s3://…` through httpfs, credentials from DuckDB's usual secrets/env);
 * - readers attach READ_ONLY (never blocked by a writer, never blocking one), optionally at a
 *   snapshot version (time travel).
 *
 * Extensions are loaded from the files `npm ci` unpacked (warehouse/extensions.ts); DuckDB's
 * autoinstall/autoload stay off.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { UserError } from '../lib/errors.js';
import { loadExtensions, type ExtensionName } from './extensions.js';

export const LAKE_ALIAS = 'lake';
export const LAKE_CATALOG_FILE = 'lake.sqlite';
export const LAKE_DATA_DIR = 'lake';

export interface LakeOptions {
  /** the warehouse folder: the default home of the SQLite catalog and of the data files */
  dir: string;
  /** `postgres://…`, `postgresql://…`, a libpq string (`dbname=x host=y`), `sqlite:FILE`, `postgres:…`; default `sqlite:<dir>/lake.sqlite` */
  catalog?: string;
  /** where the Parquet files go: a folder or `s3://bucket/prefix/`; default `<dir>/lake/` */
  dataPath?: string;
  readOnly?: boolean;
  /** attach at this snapshot version (read-only time travel) */
  snapshot?: number;
  /** the database name it is attached as (default `lake`) */
  alias?: string;
}

/** The lake options of a warehouse folder from `env` (NEWSFLOW_LAKE_CATALOG, NEWSFLOW_LAKE_DATA): for a caller that holds an environment (pipelines/config resolves the project's). */
export function lakeOptionsFromEnv(dir: string, env: Record<string, string | undefined>): LakeOptions {
  return { dir, catalog: env.NEWSFLOW_LAKE_CATALOG || undefined, dataPath: env.NEWSFLOW_LAKE_DATA || undefined };
}

export type CatalogKind = 'sqlite' | 'postgres';

/** The DuckLake metadata spec of the options: `sqlite:/abs/lake.sqlite` or `postgres:<libpq>`. */
export function catalogSpec(o: LakeOptions): { kind: CatalogKind; spec: string } {
  const c = o.catalog?.trim();
  if (!c) return { kind: 'sqlite', spec: `sqlite:${path.join(path.resolve(o.dir), LAKE_CATALOG_FILE)}` };
  if (/^postgres(ql)?:\/\//i.test(c)) return { kind: 'postgres', spec: `postgres:${c}` };
  if (/^postgres:/i.test(c)) return { kind: 'postgres', spec: c };
  if (/^sqlite:/i.test(c)) return { kind: 'sqlite', spec: `sqlite:${path.resolve(c.slice('sqlite:'.length))}` };
  if (/\b(dbname|host|user|port)=/.test(c)) return { kind: 'postgres', spec: `postgres:${c}` };
  return { kind: 'sqlite', spec: `sqlite:${path.resolve(c)}` };
}

export function dataPathOf(o: LakeOptions): string {
  const d = o.dataPath?.trim();
  if (!d) return path.join(path.resolve(o.dir), LAKE_DATA_DIR) + path.sep;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(d)) return d.endsWith('/') ? d : `${d}/`;
  return path.resolve(d) + path.sep;
}

const remoteData = (p: string) => /^(s3|s3a|gcs|gs|r2|https?|az|abfss):\/\//i.test(p);
const q = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** True when a lake (its catalog) exists for these options; for PostgreSQL, assumed (the server says). */
export function lakeExists(o: LakeOptions): boolean {
  const { kind, spec } = catalogSpec(o);
  return kind === 'postgres' || fs.existsSync(spec.slice('sqlite:'.length));
}

/** Catalog and data both in the warehouse folder, by default: a lake that moves as one folder. */
const selfContained = (o: LakeOptions) => !o.catalog?.trim() && !o.dataPath?.trim();

/** The ATTACH statement of the lake. */
export function attachSql(o: LakeOptions): string {
  const { kind, spec } = catalogSpec(o);
  const alias = o.alias ?? LAKE_ALIAS;
  const opts = [`DATA_PATH ${q(dataPathOf(o))}`];
  if (kind === 'sqlite') opts.push(`META_JOURNAL_MODE 'WAL'`, 'META_BUSY_TIMEOUT 10000');
  // the default layout (catalog and data both inside the folder, the files' paths relative to the
  // data path) moves as one folder: a copied or moved warehouse attaches where it now is, for this
  // session, instead of DuckLake's "DATA_PATH ... does not match" against the folder it was made in
  if (selfContained(o)) opts.push('OVERRIDE_DATA_PATH true');
  if (o.readOnly || o.snapshot !== undefined) opts.push('READ_ONLY');
  if (o.snapshot !== undefined) opts.push(`SNAPSHOT_VERSION ${Math.trunc(o.snapshot)}`);
  return `ATTACH ${q(`ducklake:${spec}`)} AS ${alias} (${opts.join(', ')})`;
}

/**
 * Load the extensions the lake needs and attach it to `conn` as `alias` (default `lake`), made the
 * default database (`USE lake`), so `SELECT * FROM articles` reads the lake. A fresh lake is
 * created by the first writer; attaching is retried a few times when another process is creating
 * the catalog at the same moment.
 */
export async function attachLake(conn: DuckDBConnection, o: LakeOptions): Promise<string> {
  const alias = o.alias ?? LAKE_ALIAS;
  const { kind } = catalogSpec(o);
  const exts: ExtensionName[] = ['ducklake', kind === 'sqlite' ? 'sqlite_scanner' : 'postgres_scanner'];
  if (remoteData(dataPathOf(o))) exts.push('httpfs');
  await loadExtensions(conn, exts);
  if (kind === 'sqlite' && !o.readOnly && o.snapshot === undefined) fs.mkdirSync(path.resolve(o.dir), { recursive: true });
  if (!remoteData(dataPathOf(o)) && !o.readOnly && o.snapshot === undefined) fs.mkdirSync(dataPathOf(o), { recursive: true });
  try {
    await withLakeRetry(() => conn.run(attachSql(o)), { tries: 8 });
  } catch (e) {
    // an explicit data path that is not the one the catalog was made with: one line, and the way out
    const m = /DATA_PATH parameter "([^"]{0,2000})" does not match existing data path in the catalog "([^"]{0,2000})"/.exec(
      (e instanceof Error ? e.message : String(e)).slice(0, 5000),
    );
    if (m)
      throw new UserError(
        `the lake's catalog (${catalogSpec(o).spec}) keeps its files at ${m[2]}, but the data path given is ${m[1]}: set warehouse.data (NEWSFLOW_LAKE_DATA) to ${m[2]}, where the lake's files are`,
      );
    throw e;
  }
  await conn.run(`USE ${alias}`);
  return alias;
}

/**
 * A DuckDB instance (in memory, autoinstall off) with the lake attached: for readers and tools
 * (`newsflow sql`, `export`). DuckDB's own signature check of an extension file reads all of it
 * (about 90 ms for each of the two ~35 MB files, most of `newsflow sql`'s start-up; see
 * bench/cli-start.ts), so these short-lived instances skip it: the files are the install's own,
 * from hash-pinned wheels (scripts/fetch-extensions.sh, pip --require-hashes), in the same tree as
 * the JavaScript that loads them, and are loaded by path only (warehouse/extensions.ts).
 */
export async function openLake(o: LakeOptions): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_unsigned_extensions: 'true',
  });
  const conn = await instance.connect();
  try {
    await attachLake(conn, o);
  } catch (e) {
    conn.closeSync();
    instance.closeSync();
    throw e;
  }
  return {
    instance,
    conn,
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * A commit that lost to a concurrent writer: DuckLake's transaction conflict, or the SQLite
 * catalog's busy/locked (a write transaction that started before another's commit).
 */
export function isLakeConflict(e: unknown): boolean {
  const m = e instanceof Error ? e.message : String(e);
  // "Failed to commit DuckLake transaction … Table entry X does not have any columns": a commit
  // that read the catalog while another process was creating the same tables (seen with three
  // workers opening one new lake at once). "Failed to delete flushed inlined data ... Current
  // transaction is aborted": a flush whose catalog transaction a concurrent landing's commit
  // aborted (seen in CI: maintenance run again and again beside two landing workers); nothing of
  // it was committed, so it runs again
  return /conflict|database is locked|database table is locked|SQLITE_BUSY|could not serialize|deadlock detected|duplicate key value violates unique constraint|Failed to commit DuckLake transaction|Failed to delete flushed inlined data|Current transaction is aborted/i.test(
    m,
  );
}

/**
 * Run `fn` again on a lake conflict: bounded tries, exponential backoff with jitter (capped at 2 s a
 * wait). The default of 24 tries waits about 35 s in all: a maintenance step holding the SQLite
 * catalog on a loaded machine outlasted 12 (about 12 s), and a landing must outlast it.
 */
export async function withLakeRetry<T>(fn: (attempt: number) => Promise<T>, o: { tries?: number; baseMs?: number } = {}): Promise<T> {
  const tries = o.tries ?? 24;
  const base = o.baseMs ?? 20;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (attempt >= tries || !isLakeConflict(e)) throw e;
      const wait = Math.min(2000, base * 2 ** (attempt - 1)) * (0.5 + Math.random());
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** One lake transaction of a warehouse (one snapshot, tagged with `tag`), retried on a concurrent writer's conflict: `fn` re-reads the lake each time. */
export type LakeTx = <T>(tag: { loadId?: string | null; op: string }, fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;
