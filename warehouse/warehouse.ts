/**
 * The warehouse: a DuckLake (warehouse/lake.ts: a catalog, SQLite in the warehouse folder by
 * default or PostgreSQL, and Parquet data files), written by any number of worker processes, with
 * migrations, idempotent loads (MERGE on each table's merge key) and a `_loads` ledger. Every
 * commit is one lake snapshot tagged with its load id; readers (`newsflow sql`, export) attach the
 * lake read-only (warehouse/read.ts), at the newest snapshot or at a load's (time travel).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { attachLake, lakeOptionsFromEnv, withLakeRetry, LAKE_ALIAS, type LakeOptions } from './lake.js';
import { stageRows } from './stage.js';
import { NEWS_TABLES, TABLES, type TableDef } from './tables/index.js';
import { KeyFilter } from './key-filter.js';
import { DISTRIBUTION_TABLES } from './tables/distribution.js';
import { ALERT_TABLES } from './tables/alerts.js';
import { INDEX_COUNT_TABLES } from './tables/index-counts.js';
import { STORY_TABLES } from './tables/stories.js';
import { GRAPH_TABLES } from './tables/graph.js';
import { RESEARCH_TABLES } from './tables/research.js';
import { FEED_TABLES } from './tables/feeds.js';

/** The single-file warehouse of before the lake (`newsflow warehouse migrate` moves it in). */
export const WAREHOUSE_FILE = 'warehouse.duckdb';
/** The read copy of the single-file warehouse: gone with the lake (migrate removes a stale one). */
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

/** DuckLake has no primary keys: the merge key lives in the table definition and in `land`'s MERGE. */
export const createTable = (t: TableDef) => `CREATE TABLE ${t.name} (${t.columns.map((c) => `${c.name} ${c.sql}`).join(', ')})`;

const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE _loads (
       load_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, workflow_id VARCHAR, run_id VARCHAR,
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
  // the lake: the snapshot that recorded a load (time travel), and one row per landed table that
  // every changing landing updates, so two writers landing into one table always conflict (and
  // one retries) instead of both inserting a new key (DuckLake sees no conflict in two appends)
  [
    16,
    [
      'ALTER TABLE _loads ADD COLUMN snapshot_id BIGINT',
      'CREATE TABLE _land_locks (table_name VARCHAR NOT NULL, n BIGINT NOT NULL)',
      `INSERT INTO _land_locks VALUES ${TABLES.map((t) => `('${t.name}', 0)`).join(', ')}`,
    ],
  ],
  // the feed poller's tables (their lock rows too, when migration 16 ran before they were declared)
  [
    20,
    [
      ...FEED_TABLES.map(createTable),
      ...FEED_TABLES.map((t) => `INSERT INTO _land_locks SELECT '${t.name}', 0 WHERE NOT EXISTS (SELECT 1 FROM _land_locks WHERE table_name = '${t.name}')`),
    ],
  ],
];

/** staged value -> warehouse column expression */
export const moveExpr = (col: { name: string; sql: string; kind: string }, alias = 's') =>
  col.sql === 'TIMESTAMP'
    ? `make_timestamp(${alias}.${col.name})`
    : col.sql === 'UUID'
      ? `${alias}.${col.name}::UUID`
      : col.sql === 'JSON'
        ? `${alias}.${col.name}::JSON`
        : `${alias}.${col.name}`;

export class WarehouseMigrateError extends Error {}

const STG = 'memory.main';
const sqlStr = (s: string) => `'${s.replaceAll("'", "''")}'`;

export class Warehouse {
  private queue: Promise<unknown> = Promise.resolve();
  /** per landed table: its merge keys as of a lake snapshot (see `newKeysOnly`) */
  private readonly keyFilters = new Map<string, { snapshot: number; filter: KeyFilter }>();
  private constructor(
    readonly dir: string,
    readonly lake: LakeOptions,
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    /** stages batches in memory, outside the lake transaction (one transaction writes one database) */
    private readonly stager: DuckDBConnection,
  ) {}

  /**
   * Open (create, migrate) the lake of a warehouse folder. The catalog and data path come from
   * `opts`, else NEWSFLOW_LAKE_CATALOG / NEWSFLOW_LAKE_DATA, else `<dir>/lake.sqlite` and `<dir>/lake/`.
   * Safe to call from several processes at once (a migration is applied by one of them).
   */
  static async open(dir: string, opts: Partial<Pick<LakeOptions, 'catalog' | 'dataPath'>> = {}): Promise<Warehouse> {
    const lake: LakeOptions = { ...lakeOptionsFromEnv(dir), ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)), dir };
    const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    const conn = await instance.connect();
    try {
      await attachLake(conn, lake);
      const w = new Warehouse(dir, lake, instance, conn, await instance.connect());
      await w.migrate();
      return w;
    } catch (e) {
      conn.closeSync();
      instance.closeSync();
      throw e;
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * One lake transaction (one snapshot, tagged with `tag`), retried from the start when a
   * concurrent writer's commit wins (bounded, with backoff): `fn` re-reads the lake each time.
   */
  private async tx<T>(tag: { loadId?: string | null; op: string }, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const conn = this.conn;
    return withLakeRetry(async () => {
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(
          `CALL ${LAKE_ALIAS}.set_commit_message('newsflow', ${sqlStr(tag.loadId ? `${tag.op} ${tag.loadId}` : tag.op)}, extra_info => ${sqlStr(JSON.stringify({ load_id: tag.loadId ?? null, op: tag.op, pid: process.pid }))})`,
        );
        const r = await fn(conn);
        await conn.run('COMMIT');
        return r;
      } catch (e) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  private async migrate(): Promise<void> {
    await withLakeRetry(() => this.conn.run('CREATE TABLE IF NOT EXISTS _migrations (version INTEGER NOT NULL, applied_at TIMESTAMP)'));
    const all = new Map(MIGRATIONS.map((stmts, i) => [i + 1, stmts] as const));
    for (const [v, stmts] of VERSIONED_MIGRATIONS) {
      if (all.has(v)) throw new Error(`warehouse migration ${v} is declared twice`);
      all.set(v, stmts);
    }
    const pending = async (conn: DuckDBConnection) => {
      const done = new Set((await conn.runAndReadAll('SELECT version FROM _migrations')).getRowObjectsJS().map((r) => Number(r.version)));
      return [...all.keys()].sort((a, b) => a - b).filter((v) => !done.has(v));
    };
    if ((await pending(this.conn)).length === 0) return;
    // every pending version, in order, in one transaction (one commit): read again inside it, as
    // another process may have applied them meanwhile; two that apply them at once conflict on
    // commit and the loser finds them applied on its retry
    await this.tx({ op: 'migrate' }, async (conn) => {
      for (const v of await pending(conn)) {
        for (const s of all.get(v)!) await conn.run(s);
        await conn.run('INSERT INTO _migrations VALUES ($1, now())', [v]);
      }
    });
  }

  /**
   * Land rows of a parent table and its children in one lake transaction (one snapshot): appender
   * into staging (in memory, on a second connection), MERGE on the merge key (a matched row is
   * updated only when its content hash changed; a parent's hash covers its child rows), children
   * replaced for the parents inserted or updated. A replayed batch changes nothing (no snapshot).
   * Returns the parent's counts.
   */
  land(
    parent: TableDef,
    rows: Record<string, unknown>[],
    children: { table: TableDef; rows: Record<string, unknown>[] }[],
    loadId: string,
  ): Promise<LoadCounts> {
    return this.serial(async () => {
      const kids = children.map((ch) => ({ ...ch, key: ch.table.replaceBy![0]! }));
      const hashed = hashedColumns(parent);
      // the content hash of each row, children included (see `rowHashes`)
      const hashes = rowHashes(hashed, rows, kids);
      // staged with its hash and its load's id: this load's, or the
      // one a row names (rows of several loads landed in one transaction)
      const st = this.stager;
      const stg = `${STG}.${await stageRows(st, `_stg_w_${parent.name}`, parent.columns, rows, {
        row_hash: (_, i) => hashes[i],
        last_load_id: (r) => (typeof r.last_load_id === 'string' ? r.last_load_id : loadId),
      })}`;
      const stgKids: { table: TableDef; key: string; stg: string }[] = [];
      for (const ch of kids) {
        stgKids.push({ table: ch.table, key: ch.key, stg: `${STG}.${await stageRows(st, `_stg_w_${ch.table.name}`, ch.table.columns, ch.rows)}` });
      }
      const col = (t: TableDef, n: string) => t.columns.find((c) => c.name === n)!;
      const on = parent.mergeKey.map((k) => `t.${k} = ${moveExpr(col(parent, k))}`).join(' AND ');
      // the batch's distinct merge keys (staging only: no lake read); the same key twice in one
      // batch: the last row wins
      const batchKeys = Number(
        (await st.runAndReadAll(`SELECT count(*) AS n FROM (SELECT DISTINCT ${parent.mergeKey.join(', ')} FROM ${stg})`)).getRows()[0]![0],
      );
      const dedup =
        batchKeys === rows.length
          ? stg
          : `(SELECT * FROM ${stg} QUALIFY row_number() OVER (PARTITION BY ${parent.mergeKey.join(', ')} ORDER BY rowid DESC) = 1)`;
      const cols = parent.columns.map((c) => c.name);
      const k0 = parent.mergeKey[0]!;
      const keyOf = kids[0]?.key;
      const distinctKeys = keyOf ? new Set(rows.map((r) => String(r[keyOf]))).size : 0;
      const list = (keys: string[]) => `(${keys.map(sqlStr).join(', ')})`;
      return this.tx({ loadId, op: `land ${parent.name}` }, async (conn) => {
        let ins = 0;
        let upd = 0;
        let insKeys: string[] = [];
        let updKeys: string[] = [];
        // stored hashes of before HASH_V2 whose rows this batch holds unchanged (see `legacySame`)
        let same = new Set<string>();
        // a batch of keys the lake has never held (a page of new articles), told without reading
        // the table: appended, its children too (each parent is new, so are its children)
        const allNew = (!keyOf || batchKeys === distinctKeys) && (await this.newKeysOnly(conn, parent, stg));
        if (allNew) {
          ins = batchKeys;
        } else if (keyOf) {
          // which parents change (new, or their content incl. children differs): keys to JS
          let changed = (
            await conn.runAndReadAll(`SELECT s.${keyOf}::VARCHAR AS k, t.${k0} IS NULL AS ins, t.row_hash AS h FROM ${dedup} s LEFT JOIN ${parent.name} t ON ${on}
            WHERE t.${k0} IS NULL OR t.row_hash <> s.row_hash`)
          ).getRowObjectsJS() as { k: string; ins: boolean; h: string | null }[];
          const legacy = changed.filter((c) => !c.ins && !isV2(c.h));
          if (legacy.length) {
            same = legacySame(
              hashed,
              rows,
              kids,
              (r) => String(r[keyOf]),
              legacy.map((c) => ({ key: c.k, hash: c.h! })),
            );
            changed = changed.filter((c) => c.ins || !same.has(c.h!));
          }
          insKeys = changed.filter((c) => c.ins).map((c) => c.k);
          updKeys = changed.filter((c) => !c.ins).map((c) => c.k);
          ins = insKeys.length;
          upd = updKeys.length;
        } else {
          const counts = (
            await conn.runAndReadAll(`SELECT count(*) FILTER (WHERE t.${k0} IS NULL) AS ins,
              count(*) FILTER (WHERE t.${k0} IS NOT NULL AND t.row_hash <> s.row_hash) AS upd,
              count(*) FILTER (WHERE t.${k0} IS NOT NULL AND t.row_hash <> s.row_hash AND NOT starts_with(t.row_hash, '${HASH_V2}')) AS legacy
            FROM ${dedup} s LEFT JOIN ${parent.name} t ON ${on}`)
          ).getRowObjectsJS()[0]!;
          ins = Number(counts.ins);
          upd = Number(counts.upd);
          if (Number(counts.legacy) > 0) {
            const kc = parent.mergeKey.map((k) => `s.${k}::VARCHAR`).join(` || chr(1) || `);
            const legacy = (
              await conn.runAndReadAll(`SELECT ${kc} AS k, t.row_hash AS h FROM ${dedup} s JOIN ${parent.name} t ON ${on}
              WHERE t.row_hash <> s.row_hash AND NOT starts_with(t.row_hash, '${HASH_V2}')`)
            ).getRowObjectsJS() as { k: string; h: string }[];
            same = legacySame(
              hashed,
              rows,
              [],
              (r) => parent.mergeKey.map((k) => String(r[k])).join('\u0001'),
              legacy.map((c) => ({ key: c.k, hash: c.h })),
            );
            upd -= same.size;
          }
        }
        if (ins + upd === 0) return { received: rows.length, inserted: 0, updated: 0 };
        await this.bumpLock(conn, parent.name);
        if (allNew || (upd === 0 && ins === batchKeys)) {
          // every key of the batch is new (a page of new articles), as the check above read it in
          // this transaction: appended, without a MERGE (which would scan the table's key column again)
          await conn.run(`INSERT INTO ${parent.name} (${cols.join(', ')}) SELECT ${parent.columns.map((c) => moveExpr(c)).join(', ')} FROM ${dedup} s`);
        } else {
          await conn.run(`MERGE INTO ${parent.name} t USING ${dedup} s ON ${on}
            WHEN MATCHED AND t.row_hash <> s.row_hash${same.size ? ` AND t.row_hash NOT IN (${[...same].map(sqlStr).join(', ')})` : ''} THEN UPDATE SET ${cols
              .filter((c) => !parent.mergeKey.includes(c))
              .map((c) => `${c} = ${moveExpr(col(parent, c))}`)
              .join(', ')}
            WHEN NOT MATCHED THEN INSERT (${cols.join(', ')}) VALUES (${parent.columns.map((c) => moveExpr(c)).join(', ')})`);
        }
        for (const { table, key, stg: cs } of stgKids) {
          if (updKeys.length) await conn.run(`DELETE FROM ${table.name} WHERE ${key}::VARCHAR IN ${list(updKeys)}`);
          // every parent of the batch changed (a page of new articles): all its children, unfiltered
          const only = ins + upd === distinctKeys ? '' : `WHERE s.${key} IN ${list([...insKeys, ...updKeys])}`;
          await conn.run(`INSERT INTO ${table.name} SELECT DISTINCT ${table.columns.map((c) => moveExpr(c)).join(', ')} FROM ${cs} s ${only}`);
        }
        return { received: rows.length, inserted: ins, updated: upd };
      });
    });
  }

  /**
   * True when no merge key of the staged batch `batch` is in `t` at the snapshot `conn`'s lake
   * transaction reads, told by the table's key filter, without reading the table: the filter is
   * built once from the table's keys (one scan), then brought up to the transaction's snapshot
   * with the keys the snapshots since inserted (DuckLake's change feed reads only their files).
   * False means "maybe": the caller checks against the table itself.
   */
  private async newKeysOnly(conn: DuckDBConnection, t: TableDef, batch: string): Promise<boolean> {
    const halves = (h: string) => `(${h} >> 32)::UINTEGER AS hi, (${h} & 4294967295)::UINTEGER AS lo`;
    // the same types on both sides: the lake's columns, the staged values moved as `land` moves them
    const keyHash = (alias: string) => `hash(${t.mergeKey.map((k) => `${alias}.${k}`).join(', ')})`;
    const stagedKeyHash = `hash(${t.mergeKey.map((k) => moveExpr(t.columns.find((c) => c.name === k)!)).join(', ')})`;
    const each = async (sql: string, fn: (hi: number, lo: number) => void) => {
      const res = await conn.stream(sql);
      for (let ch = await res.fetchChunk(); ch && ch.rowCount > 0; ch = await res.fetchChunk()) {
        const his = ch.getColumnValues(0) as number[];
        const los = ch.getColumnValues(1) as number[];
        for (let i = 0; i < his.length; i++) fn(his[i]!, los[i]!);
      }
    };
    const snapshot = Number((await conn.runAndReadAll(`SELECT id FROM ${LAKE_ALIAS}.current_snapshot()`)).getRows()[0]![0]);
    let kf = this.keyFilters.get(t.name);
    if (kf && kf.snapshot < snapshot) {
      try {
        const since = `ducklake_table_changes('${LAKE_ALIAS}', 'main', '${t.name}', ${kf.snapshot + 1}, ${snapshot})`;
        const f = kf.filter;
        await each(`SELECT ${halves(keyHash('c'))} FROM ${since} c WHERE c.change_type IN ('insert', 'update_postimage')`, (hi, lo) => f.add(hi, lo));
        kf.snapshot = snapshot;
      } catch {
        kf = undefined;
      }
    }
    if (!kf || kf.snapshot !== snapshot || kf.filter.full) {
      // (re)built from the table as this transaction reads it, with room to grow by a quarter
      // (4 bytes a slot, 2.5+ slots a key: ~65-130 MB for 6.5M keys; rebuilt, one more read of
      // the table, once it holds 70% of its slots)
      const n = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${t.name}`)).getRows()[0]![0]);
      const filter = new KeyFilter(Math.ceil(n * 1.25));
      await each(`SELECT ${halves(keyHash('t'))} FROM ${t.name} t`, (hi, lo) => filter.add(hi, lo));
      kf = { snapshot, filter };
      this.keyFilters.set(t.name, kf);
    }
    const f = kf.filter;
    let maybe = false;
    await each(`SELECT ${halves(stagedKeyHash)} FROM ${batch} s`, (hi, lo) => {
      if (!maybe && f.mayHave(hi, lo)) maybe = true;
    });
    return !maybe;
  }

  /** Touch the table's lock row: two transactions landing into one table then conflict on commit. */
  private async bumpLock(conn: DuckDBConnection, table: string): Promise<void> {
    const r = await conn.runAndReadAll('UPDATE _land_locks SET n = n + 1 WHERE table_name = $1', [table]);
    if (Number((r.getRowObjectsJS()[0] as { Count?: bigint } | undefined)?.Count ?? 0) === 0) await conn.run('INSERT INTO _land_locks VALUES ($1, 1)', [table]);
  }

  /**
   * Record (or complete) a load in `_loads` (a MERGE on load_id: replaying the same load changes
   * nothing), then store the id of the lake snapshot that recorded it (`newsflow sql --at`).
   */
  recordLoad(meta: LoadMeta, counts: LoadCounts, startedAt: Date, invariants: Record<string, unknown> = {}): Promise<void> {
    return this.serial(async () => {
      const us = (d: Date | null) => (d ? d.getTime() * 1000 : null);
      const params = [
        meta.loadId,
        meta.pipeline,
        meta.workflowId,
        meta.runId,
        us(meta.windowStart),
        us(meta.windowEnd),
        counts.received,
        counts.inserted,
        counts.updated,
        us(startedAt),
        JSON.stringify(invariants),
      ];
      const changed = await this.tx({ loadId: meta.loadId, op: 'record' }, async (conn) => {
        const r = await conn.runAndReadAll(
          `MERGE INTO _loads t USING (SELECT $1::VARCHAR AS load_id, $2::VARCHAR AS pipeline, $3::VARCHAR AS workflow_id, $4::VARCHAR AS run_id,
             make_timestamp($5::BIGINT) AS window_start, make_timestamp($6::BIGINT) AS window_end, $7::BIGINT AS rows_received, $8::BIGINT AS rows_inserted,
             $9::BIGINT AS rows_updated, make_timestamp($10::BIGINT) AS started_at, $11::JSON AS invariants) s ON t.load_id = s.load_id
           WHEN MATCHED AND (t.rows_received <> s.rows_received OR t.rows_inserted <> s.rows_inserted OR t.rows_updated <> s.rows_updated
             OR coalesce(t.invariants::VARCHAR, '') <> coalesce(s.invariants::VARCHAR, '')) THEN UPDATE SET rows_received = s.rows_received,
             rows_inserted = s.rows_inserted, rows_updated = s.rows_updated, finished_at = now(), invariants = s.invariants
           WHEN NOT MATCHED THEN INSERT (load_id, pipeline, workflow_id, run_id, window_start, window_end, rows_received, rows_inserted, rows_updated, started_at, finished_at, invariants)
             VALUES (s.load_id, s.pipeline, s.workflow_id, s.run_id, s.window_start, s.window_end, s.rows_received, s.rows_inserted, s.rows_updated, s.started_at, now(), s.invariants)`,
          params as never,
        );
        return Number((r.getRowObjectsJS()[0] as { Count?: bigint } | undefined)?.Count ?? 0) > 0;
      });
      if (!changed) return;
      const [snap] = (await this.conn.runAndReadAll(`SELECT id FROM ducklake_last_committed_snapshot('${LAKE_ALIAS}')`)).getRowObjectsJS();
      if (snap?.id === null || snap?.id === undefined) return;
      await this.tx({ loadId: meta.loadId, op: 'snapshot' }, (conn) =>
        conn.run('UPDATE _loads SET snapshot_id = $1 WHERE load_id = $2', [Number(snap.id), meta.loadId] as never),
      );
    });
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.serial(async () => (await this.conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as T[]);
  }

  /** Statements in one lake transaction (one snapshot; retried on a concurrent writer's conflict). */
  execMany(stmts: [sql: string, params?: unknown[]][]): Promise<void> {
    return this.serial(() =>
      this.tx({ op: 'exec' }, async (conn) => {
        for (const [q, p] of stmts) await conn.run(q, p as never);
      }),
    );
  }

  /** A statement that changes the warehouse outside `land` (ledgers), in its own transaction. */
  exec(sql: string, params?: unknown[]): Promise<void> {
    return this.execMany([[sql, params]]);
  }

  /**
   * Move the rows of a single-file warehouse of before the lake (`warehouse.duckdb`) into the lake,
   * every table in one transaction. Refuses when the file holds no rows, or when the lake holds
   * rows already unless `force` (then each table's rows are replaced by the file's: running it
   * again gives the same lake). Returns the rows moved per table.
   */
  importFile(file: string, o: { force?: boolean } = {}): Promise<Record<string, number>> {
    return this.serial(async () => {
      if (!fs.existsSync(file)) throw new WarehouseMigrateError(`nothing to migrate: ${file} does not exist`);
      const conn = this.conn;
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
          throw new WarehouseMigrateError(
            `the lake under ${this.dir} holds ${lakeRows} rows already; pass --force to replace its tables with the rows of ${file}`,
          );
        const moved: Record<string, number> = {};
        await this.tx({ op: `migrate ${path.basename(file)}` }, async (c) => {
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
        });
        fs.rmSync(path.join(this.dir, SNAPSHOT_FILE), { force: true });
        return moved;
      } finally {
        await conn.run('DETACH old_wh').catch(() => undefined);
      }
    });
  }

  close(): void {
    this.stager.closeSync();
    this.conn.closeSync();
    this.instance.closeSync();
  }
}

/** The columns a row's content hash covers: all but the load columns. */
const hashedColumns = (t: TableDef) => {
  const skip = new Set(['row_hash', 'last_load_id', ...(t.loadColumns ?? [])]);
  return t.columns.filter((c) => !skip.has(c.name)).map((c) => c.name);
};

/**
 * Row hashes carry their version: `v2:` + the sha1 of a compact, self-delimiting encoding of the
 * row's hashed values and its child rows (`rowHashes`). A hash without the prefix is of before v2
 * (the sha1 of the JSON text of the row and its children, `legacyRowHash`): a row landed with it
 * and landed again unchanged is recognised by that hash, computed only for such rows (`legacySame`),
 * and keeps it until its content changes (then it is rewritten with a v2 hash).
 */
const HASH_V2 = 'v2:';
const isV2 = (h: string | null | undefined) => typeof h === 'string' && h.startsWith(HASH_V2);

/** One value, self-delimiting: a type tag, then the length of text values (no escaping, no JSON). */
function enc(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return `s${v.length}:${v}`;
    case 'number':
    case 'bigint':
      return `n${v};`;
    case 'boolean':
      return v ? 'T' : 'F';
    case 'undefined':
      return 'N';
    default: {
      if (v === null) return 'N';
      const j = JSON.stringify(v) ?? '';
      return `j${j.length}:${j}`;
    }
  }
}

/**
 * The content hash of each row (its `hashed` columns) and, with `kids`, of its child rows in each
 * child table (as a set: deduplicated and sorted, without the parent key column, which the parent
 * row holds): `v2:` + sha1 (hex) of the values' encodings (`enc`).
 */
function rowHashes(hashed: string[], rows: Record<string, unknown>[], kids: { table: TableDef; key: string; rows: Record<string, unknown>[] }[]): string[] {
  // per parent key, per child table: its child rows' encodings (children mostly come grouped by
  // parent: the map is looked up when the parent changes)
  const kidEnc = new Map<string, string[][]>();
  kids.forEach((ch, i) => {
    const cols = ch.table.columns.map((c) => c.name).filter((n) => n !== ch.key);
    let last: string | undefined;
    let per: string[][] | undefined;
    for (const r of ch.rows) {
      const k = String(r[ch.key]);
      if (k !== last) {
        per = kidEnc.get(k);
        if (!per) kidEnc.set(k, (per = kids.map(() => [])));
        last = k;
      }
      let e = '';
      for (const n of cols) e += enc(r[n]);
      per![i]!.push(e);
    }
  });
  const keyOf = kids[0]?.key;
  return rows.map((r) => {
    let s = '';
    for (const n of hashed) s += enc(r[n]);
    if (keyOf) {
      const per = kidEnc.get(String(r[keyOf]));
      for (let i = 0; i < kids.length; i++) {
        const xs = per?.[i] ?? [];
        const set = xs.length < 2 ? xs : [...new Set(xs)].sort();
        s += `#${set.length}:${set.join('')}`;
      }
    }
    return HASH_V2 + crypto.hash('sha1', s);
  });
}

/** The hash of before v2 (no prefix): sha1 of the JSON text of the row's hashed values and its children's rows. */
function legacyRowHash(hashed: string[], r: Record<string, unknown>, children?: string[][]): string {
  const own = hashed.map((n) => r[n] ?? null);
  return crypto.hash('sha1', JSON.stringify(children ? [own, children] : own));
}

/**
 * Of `stored` (the lake's pre-v2 hashes of rows this batch holds, by the row's key as `keyOf`
 * gives it; the last row of a key wins, as in `land`), those equal to the pre-v2 hash of the
 * batch's row: those rows are unchanged.
 */
function legacySame(
  hashed: string[],
  rows: Record<string, unknown>[],
  kids: { table: TableDef; key: string; rows: Record<string, unknown>[] }[],
  keyOf: (r: Record<string, unknown>) => string,
  stored: { key: string; hash: string }[],
): Set<string> {
  const want = new Map(stored.map((x) => [x.key, x.hash]));
  const byKey = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const k = keyOf(r);
    if (want.has(k)) byKey.set(k, r);
  }
  const kidText = new Map<string, string[][]>();
  kids.forEach((ch, i) => {
    const names = ch.table.columns.map((c) => c.name);
    for (const r of ch.rows) {
      const k = String(r[ch.key]);
      if (!want.has(k)) continue;
      let per = kidText.get(k);
      if (!per) kidText.set(k, (per = kids.map(() => [])));
      per[i]!.push(JSON.stringify(names.map((n) => r[n] ?? null)));
    }
  });
  const none = kids.map(() => [] as string[]);
  const uniqSorted = (xs: string[]) => (xs.length < 2 ? xs : [...new Set(xs)].sort());
  const same = new Set<string>();
  for (const [k, r] of byKey) {
    const h = legacyRowHash(hashed, r, kids.length ? (kidText.get(k) ?? none).map(uniqSorted) : undefined);
    if (h === want.get(k)) same.add(h);
  }
  return same;
}
