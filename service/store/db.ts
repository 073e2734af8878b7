/**
 * The service's own DuckDB store (one file under the data dir). One process owns it: DuckDB
 * allows a single writer process, so admin commands open it only while no server runs.
 */
import { UserError } from '../../lib/errors.js';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { MIGRATIONS } from './migrations.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

export class StoreLockedError extends UserError {}

/** The table a statement writes: INSERT [OR …] INTO t, UPDATE t, DELETE FROM t, MERGE INTO t, TRUNCATE, ALTER/DROP TABLE, COPY t FROM */
const WRITE_TARGET =
  /\b(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?|alter\s+table|drop\s+table(?:\s+if\s+exists)?|copy)\s+(?:main\.)?"?(\w+)"?/gi;

export class Db {
  private constructor(
    readonly instance: DuckDBInstance,
    readonly file: string,
    private readonly conn: DuckDBConnection,
  ) {}
  private queue: Promise<unknown> = Promise.resolve();
  /** bumped by every transaction or exclusive use of the connection (either may write any table) */
  private epoch = 0;
  /** per table: bumped by every statement whose SQL writes it */
  private readonly writes = new Map<string, number>();

  /**
   * The write generation of `table`: it changes when a statement that may change the table's rows
   * is queued (before it runs, so anything read before it was queued carries the older
   * generation). Caches of rows (NewsStore.byIds) keep an entry only while it is unchanged.
   */
  generation(table: string): string {
    return `${this.epoch}.${this.writes.get(table.toLowerCase()) ?? 0}`;
  }

  private noteWrites(sql: string): void {
    for (const m of sql.matchAll(WRITE_TARGET)) {
      const t = m[1]!.toLowerCase();
      this.writes.set(t, (this.writes.get(t) ?? 0) + 1);
    }
  }

  static async open(file: string): Promise<Db> {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(file);
    } catch (e) {
      const msg = (e as Error).message;
      if (/lock/i.test(msg)) {
        throw new StoreLockedError(
          `the store ${file} is in use by another process (is "newsflow serve" running on this data dir?); stop it first or use another --data-dir`,
        );
      }
      throw e;
    }
    const db = new Db(instance, file, await instance.connect());
    await db.migrate();
    return db;
  }

  /** Statements on the shared connection run one at a time. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  run(sql: string, params?: Params): Promise<void> {
    this.noteWrites(sql);
    return this.serial(async () => {
      await this.conn.run(sql, params as never);
    });
  }

  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    this.noteWrites(sql);
    return this.serial(async () => {
      const r = await this.conn.runAndReadAll(sql, params as never);
      return r.getRowObjectsJS() as T[];
    });
  }

  async one<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Run `fn` inside one transaction on the shared connection. */
  tx<T>(fn: (q: { run: (sql: string, p?: Params) => Promise<void>; all: <R>(sql: string, p?: Params) => Promise<R[]> }) => Promise<T>): Promise<T> {
    this.epoch++;
    return this.serial(async () => {
      const q = {
        run: async (sql: string, p?: Params) => void (await this.conn.run(sql, p as never)),
        all: async <R>(sql: string, p?: Params) => (await this.conn.runAndReadAll(sql, p as never)).getRowObjectsJS() as R[],
      };
      await this.conn.run('BEGIN TRANSACTION');
      try {
        const out = await fn(q);
        await this.conn.run('COMMIT');
        return out;
      } catch (e) {
        await this.conn.run('ROLLBACK');
        throw e;
      }
    });
  }

  private async migrate(): Promise<void> {
    await this.conn.run('CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP DEFAULT now())');
    const done = new Set((await this.conn.runAndReadAll('SELECT version FROM _migrations')).getRowObjectsJS().map((r) => Number(r.version)));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await this.conn.run('BEGIN TRANSACTION');
      try {
        for (const stmt of m.sql) await this.conn.run(stmt);
        await this.conn.run('INSERT INTO _migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await this.conn.run('COMMIT');
      } catch (e) {
        await this.conn.run('ROLLBACK');
        throw e;
      }
    }
  }

  /** The connection for reads only (no write generation changes), in the serial queue. */
  read<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.serial(() => fn(this.conn));
  }

  /** Exclusive use of the connection (appenders, multi-statement work), in the serial queue. */
  withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    this.epoch++;
    return this.serial(() => fn(this.conn));
  }

  async checkpoint(): Promise<void> {
    await this.run('CHECKPOINT');
  }

  close(): void {
    this.conn.closeSync();
    this.instance.closeSync();
  }
}
