/**
 * The service's own DuckDB store (one file under the data dir). One process owns it: DuckDB
 * allows a single writer process, so admin commands open it only while no server runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { MIGRATIONS } from './migrations.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

export class StoreLockedError extends Error {}

export class Db {
  private constructor(
    readonly instance: DuckDBInstance,
    readonly file: string,
    private readonly conn: DuckDBConnection,
  ) {}
  private queue: Promise<unknown> = Promise.resolve();

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
    return this.serial(async () => {
      await this.conn.run(sql, params as never);
    });
  }

  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
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
    const done = new Set(
      (await this.conn.runAndReadAll('SELECT version FROM _migrations')).getRowObjectsJS().map((r) => Number(r.version)),
    );
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

  /** Exclusive use of the connection (appenders, multi-statement work), in the serial queue. */
  withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
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
