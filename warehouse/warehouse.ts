/**
 * The warehouse: one DuckDB file (data/warehouse.duckdb) owned by one writer (the worker), with
 * migrations, idempotent loads and a `_loads` ledger. After every committed load the writer
 * publishes a snapshot (copy + atomic rename) that readers (`newsflow sql`, export) open
 * read-only, so a reader never meets the writer's lock.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { stage } from '../service/store/bulk.js';
import { NEWS_TABLES, type TableDef } from './tables/index.js';
import { DISTRIBUTION_TABLES } from './tables/distribution.js';
import { ALERT_TABLES } from './tables/alerts.js';
import { INDEX_COUNT_TABLES } from './tables/indexCounts.js';
import { STORY_TABLES } from './tables/stories.js';
import { GRAPH_TABLES } from './tables/graph.js';
import { RESEARCH_TABLES } from './tables/research.js';

export const WAREHOUSE_FILE = 'warehouse.duckdb';
export const SNAPSHOT_FILE = 'warehouse.snapshot.duckdb';

export interface LoadMeta {
  loadId: string;
  pipeline: string;
  workflowId: string | null;
  runId: string | null;
  windowStart: Date | null;
  windowEnd: Date | null;
}
export interface LoadCounts {
  received: number;
  inserted: number;
  updated: number;
}

const createTable = (t: TableDef) => `CREATE TABLE ${t.name} (${t.columns.map((c) => `${c.name} ${c.sql}`).join(', ')}${t.replaceBy ? '' : `, PRIMARY KEY (${t.mergeKey.join(', ')})`})`;

const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE _loads (
       load_id VARCHAR PRIMARY KEY, pipeline VARCHAR NOT NULL, workflow_id VARCHAR, run_id VARCHAR,
       window_start TIMESTAMP, window_end TIMESTAMP, rows_received BIGINT NOT NULL, rows_inserted BIGINT NOT NULL,
       rows_updated BIGINT NOT NULL, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, invariants JSON)`,
    ...NEWS_TABLES.map(createTable),
    `CREATE VIEW v_articles AS SELECT a.*, list(DISTINCT c.category) FILTER (WHERE c.category IS NOT NULL) AS categories
       FROM articles a LEFT JOIN article_classifications c USING (article_id) GROUP BY ALL`,
    `CREATE VIEW v_entity_mentions AS SELECT e.type, e.value, count(*) AS articles, min(a.pub_date) AS first_seen, max(a.pub_date) AS last_seen
       FROM article_entities e JOIN articles a USING (article_id) GROUP BY 1, 2`,
  ],
  [...DISTRIBUTION_TABLES.map(createTable)],
  [...ALERT_TABLES.map(createTable)],
];
/**
 * Migrations that name their version (a branch may take a later version than one another branch
 * adds: alert tables are version 3). Every version is applied once, in ascending order; a version
 * that arrives after a later one was applied is applied when it arrives.
 */
const VERSIONED_MIGRATIONS: [version: number, sql: string[]][] = [
  [4, INDEX_COUNT_TABLES.map(createTable)],
  [5, STORY_TABLES.map(createTable)],
  [7, GRAPH_TABLES.map(createTable)],
  [11, RESEARCH_TABLES.map(createTable)],
];

/** staged value -> warehouse column expression */
const moveExpr = (col: { name: string; sql: string; kind: string }, alias = 's') =>
  col.sql === 'TIMESTAMP' ? `make_timestamp(${alias}.${col.name})`
  : col.sql === 'UUID' ? `${alias}.${col.name}::UUID`
  : col.sql === 'JSON' ? `${alias}.${col.name}::JSON`
  : `${alias}.${col.name}`;

export class Warehouse {
  private queue: Promise<unknown> = Promise.resolve();
  private constructor(
    readonly dir: string,
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
  ) {}

  static async open(dir: string): Promise<Warehouse> {
    fs.mkdirSync(dir, { recursive: true });
    const instance = await DuckDBInstance.create(path.join(dir, WAREHOUSE_FILE));
    const conn = await instance.connect();
    const w = new Warehouse(dir, instance, conn);
    await w.migrate();
    await w.publish();
    return w;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async migrate(): Promise<void> {
    await this.conn.run('CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT now())');
    const done = new Set((await this.conn.runAndReadAll('SELECT version FROM _migrations')).getRowObjectsJS().map((r) => Number(r.version)));
    const all = new Map(MIGRATIONS.map((stmts, i) => [i + 1, stmts] as const));
    for (const [v, stmts] of VERSIONED_MIGRATIONS) {
      if (all.has(v)) throw new Error(`warehouse migration ${v} is declared twice`);
      all.set(v, stmts);
    }
    for (const v of [...all.keys()].sort((a, b) => a - b)) {
      if (done.has(v)) continue;
      await this.conn.run('BEGIN TRANSACTION');
      for (const s of all.get(v)!) await this.conn.run(s);
      await this.conn.run('INSERT INTO _migrations (version) VALUES ($1)', [v]);
      await this.conn.run('COMMIT');
    }
  }

  /**
   * Land rows of a parent table and its children in one transaction: appender into staging,
   * MERGE on the merge key (a matched row is updated only when its content hash changed),
   * children replaced per parent key. Returns the parent's counts.
   */
  land(parent: TableDef, rows: Record<string, unknown>[], children: { table: TableDef; rows: Record<string, unknown>[] }[], loadId: string): Promise<LoadCounts> {
    return this.serial(async () => {
      const conn = this.conn;
      const withHash: Record<string, unknown>[] = rows.map((r) => ({ ...r, row_hash: rowHash(parent, r), last_load_id: loadId }));
      const stg = await stage(conn, `w_${parent.name}`, parent.columns.map((c) => [c.name, c.kind] as const), withHash.map((r) => parent.columns.map((c) => r[c.name])));
      const stgChildren = [];
      for (const ch of children) {
        stgChildren.push({ table: ch.table, stg: await stage(conn, `w_${ch.table.name}`, ch.table.columns.map((c) => [c.name, c.kind] as const), ch.rows.map((r) => ch.table.columns.map((c) => r[c.name]))) });
      }
      await conn.run('BEGIN TRANSACTION');
      try {
        const on = parent.mergeKey.map((k) => `t.${k} = ${moveExpr(parent.columns.find((c) => c.name === k)!)}`).join(' AND ');
        // the same key twice in one batch: the last row wins
        const dedup = `(SELECT * FROM ${stg} QUALIFY row_number() OVER (PARTITION BY ${parent.mergeKey.join(', ')} ORDER BY rowid DESC) = 1)`;
        const counts = (await conn.runAndReadAll(`SELECT count(*) FILTER (WHERE t.${parent.mergeKey[0]} IS NULL) AS ins,
            count(*) FILTER (WHERE t.${parent.mergeKey[0]} IS NOT NULL AND t.row_hash <> s.row_hash) AS upd
          FROM ${dedup} s LEFT JOIN ${parent.name} t ON ${on}`)).getRowObjectsJS()[0]!;
        const cols = parent.columns.map((c) => c.name);
        await conn.run(`MERGE INTO ${parent.name} t USING ${dedup} s ON ${on}
          WHEN MATCHED AND t.row_hash <> s.row_hash THEN UPDATE SET ${cols.filter((c) => !parent.mergeKey.includes(c)).map((c) => `${c} = ${moveExpr(parent.columns.find((x) => x.name === c)!)}`).join(', ')}
          WHEN NOT MATCHED THEN INSERT (${cols.join(', ')}) VALUES (${parent.columns.map((c) => moveExpr(c)).join(', ')})`);
        for (const { table, stg: cs } of stgChildren) {
          const by = table.replaceBy!;
          const parentKeys = `SELECT DISTINCT ${by.map((k) => moveExpr(parent.columns.find((c) => c.name === k)!, 'p') + ` AS ${k}`).join(', ')} FROM ${stg} p`;
          await conn.run(`DELETE FROM ${table.name} WHERE (${by.join(', ')}) IN (${parentKeys})`);
          await conn.run(`INSERT INTO ${table.name} SELECT DISTINCT ${table.columns.map((c) => moveExpr(c)).join(', ')} FROM ${cs} s`);
        }
        await conn.run('COMMIT');
        return { received: rows.length, inserted: Number(counts.ins), updated: Number(counts.upd) };
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    }).then(async (r) => {
      await this.publish();
      return r;
    });
  }

  /** Record (or complete) a load in `_loads`; replaying the same load id updates its row. */
  recordLoad(meta: LoadMeta, counts: LoadCounts, startedAt: Date, invariants: Record<string, unknown> = {}): Promise<void> {
    return this.serial(async () => {
      const us = (d: Date | null) => (d ? d.getTime() * 1000 : null);
      await this.conn.run(
        `INSERT INTO _loads VALUES ($1, $2, $3, $4, make_timestamp($5::BIGINT), make_timestamp($6::BIGINT), $7, $8, $9, make_timestamp($10::BIGINT), now(), $11::JSON)
         ON CONFLICT (load_id) DO UPDATE SET rows_received = excluded.rows_received, rows_inserted = excluded.rows_inserted,
           rows_updated = excluded.rows_updated, finished_at = excluded.finished_at, invariants = excluded.invariants`,
        [meta.loadId, meta.pipeline, meta.workflowId, meta.runId, us(meta.windowStart), us(meta.windowEnd), counts.received, counts.inserted, counts.updated, us(startedAt), JSON.stringify(invariants)] as never,
      );
    }).then(() => this.publish());
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.serial(async () => (await this.conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as T[]);
  }

  /** Statements in one transaction, then one snapshot. */
  execMany(stmts: [sql: string, params?: unknown[]][]): Promise<void> {
    return this.serial(async () => {
      await this.conn.run('BEGIN TRANSACTION');
      try {
        for (const [q, p] of stmts) await this.conn.run(q, p as never);
        await this.conn.run('COMMIT');
      } catch (e) {
        await this.conn.run('ROLLBACK');
        throw e;
      }
    }).then(() => this.publish());
  }

  /** A statement that changes the warehouse outside `land` (ledgers); the snapshot is republished. */
  exec(sql: string, params?: unknown[]): Promise<void> {
    return this.serial(async () => {
      await this.conn.run(sql, params as never);
    }).then(() => this.publish());
  }

  /** Checkpoint and publish the read snapshot (copy, then rename over the old one). */
  publish(): Promise<void> {
    return this.serial(async () => {
      await this.conn.run('CHECKPOINT');
      const tmp = path.join(this.dir, `${SNAPSHOT_FILE}.${process.pid}.tmp`);
      fs.copyFileSync(path.join(this.dir, WAREHOUSE_FILE), tmp);
      fs.renameSync(tmp, path.join(this.dir, SNAPSHOT_FILE));
    });
  }

  close(): void {
    this.conn.closeSync();
    this.instance.closeSync();
  }
}

function rowHash(t: TableDef, r: Record<string, unknown>): string {
  const skip = new Set(['row_hash', 'last_load_id', ...(t.loadColumns ?? [])]);
  return crypto.createHash('sha1').update(JSON.stringify(t.columns.filter((c) => !skip.has(c.name)).map((c) => r[c.name] ?? null))).digest('hex');
}
