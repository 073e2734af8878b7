/**
 * The warehouse: a DuckLake (warehouse/lake.ts: a catalog, SQLite in the warehouse folder by
 * default or PostgreSQL, and Parquet data files), written by any number of worker processes, with
 * migrations, idempotent loads (MERGE on each table's merge key) and a `_loads` ledger. Every
 * commit is one lake snapshot tagged with its load id; readers (`newsflow sql`, export) attach the
 * lake read-only (warehouse/read.ts), at the newest snapshot or at a load's (time travel).
 *
 * This class is the facade callers use; the work is by job: migrations.ts (the schema), land.ts
 * (landing a batch), row-hash.ts (the row hashes landing compares), import-file.ts (moving a
 * single-file warehouse of before the lake in).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { attachLake, catalogSpec, withLakeRetry, LAKE_ALIAS, type CatalogKind, type LakeOptions } from './lake.js';
import { TABLES_BY_NAME, type TableDef } from './tables/index.js';
import { TABLE_NAME } from './tables/define.js';
import { addColumns, createTable, migrate } from './migrations.js';
import { Landing, type LoadCounts } from './land.js';
import { importFile } from './import-file.js';
import { bumpLandLock } from './locks.js';
import { maintainLake, type MaintainOptions, type MaintainReport } from './maintain.js';
import { SchemaLedger, type SchemaChange } from './schema-ledger.js';
import type { SchemaContract } from './schema.js';

export { createTable } from './migrations.js';
export { moveExpr, type LoadCounts } from './land.js';
/**
 * DuckLake's `data_inlining_row_limit` of newsflow's tables (DuckLake's default: 10): an insert of
 * fewer rows goes into the catalog instead of a Parquet file, and maintenance's flush writes a
 * day's inlined rows as one file. A 15-minute news run lands a page of 40 articles with about 110
 * entity, 190 keyword and 40 category rows: under this limit it writes no data file (under 10:
 * about 6 a run). Chosen by measurement (docs/benchmarks.md, "Small loads": 10, 200 and 1000).
 * Tables with a float column get 0 (`inlineLimitOf`).
 */
export const INLINE_ROW_LIMIT = 1000;

/**
 * A table with a FLOAT or DOUBLE column is never inlined (limit 0): DuckLake 1.0 on DuckDB 1.5.5
 * fails a commit that has to read the statistics of inlined rows of such a column ("Failed to read
 * inlined-data aggregates ... isnan(VARCHAR)"): reproduced with one writer landing 40-row pages
 * into a table with a DOUBLE column while a second connection flushes, rewrites and merges (7 of
 * 150 commits failed so), never with the same table without it. It hit `_loads.credits` first.
 */
const FLOAT_SQL = /^(DOUBLE|FLOAT|REAL|FLOAT4|FLOAT8)\b/i;
/**
 * A lake on a PostgreSQL catalog inlines nothing (limit 0 on every table): its writers commit side
 * by side (READ COMMITTED), and DuckLake's inlining under concurrent commits has open defects that
 * lose or double rows: an inlining commit stamping a stale next_file_id (duckdb/ducklake#1335),
 * concurrent inlined and Parquet deletes of one row both committing (#1215), a flush racing an
 * insert (#650). Three workers on one PostgreSQL lake (test/workflows/many-workers.test.ts) are
 * what newsflow's scale-out is. Such a lake's small files are merged by maintenance instead. A
 * SQLite catalog serializes its writers (one write transaction at a time) and keeps the limit.
 */
export const inlineLimitOf = (t: Pick<TableDef, 'columns'>, catalog: CatalogKind = 'sqlite'): number =>
  catalog === 'postgres' || t.columns.some((c) => FLOAT_SQL.test(c.sql)) ? 0 : INLINE_ROW_LIMIT;

/**
 * Set the inlining limit (`inlineLimitOf`) on each of `defs` that has no limit of its own (one set
 * by hand with `CALL lake.set_option(...)` is kept); `_loads` keeps its 0 (see `Warehouse.open`).
 * One read of the lake's options; the first open of a lake writes them (no snapshot).
 */
async function inlineSmallLoads(
  conn: DuckDBConnection,
  catalog: CatalogKind,
  defs: Pick<TableDef, 'name' | 'columns'>[] = Object.values(TABLES_BY_NAME),
): Promise<void> {
  const set = new Set(
    (
      await withLakeRetry(() =>
        conn.runAndReadAll(`SELECT scope_entry FROM ${LAKE_ALIAS}.options() WHERE option_name = 'data_inlining_row_limit' AND scope = 'TABLE'`),
      )
    )
      .getRowObjectsJS()
      .map((r) => String(r.scope_entry)),
  );
  for (const t of defs) {
    if (set.has(`main.${t.name}`)) continue;
    await withLakeRetry(() => conn.run(`CALL ${LAKE_ALIAS}.set_option('data_inlining_row_limit', ${inlineLimitOf(t, catalog)}, table_name => '${t.name}')`));
  }
}

export { WAREHOUSE_FILE, SNAPSHOT_FILE, WarehouseMigrateError } from './import-file.js';
export { formatMaintainReport, MAINTAIN_DEFAULTS, type MaintainOptions, type MaintainReport } from './maintain.js';

export interface LoadMeta {
  loadId: string;
  /** the named pipeline (project file) whose run this is; a run outside any is named after its kind */
  pipeline: string;
  /** what ran: the kind's one name (workflows/kinds.ts: news, distribution, stories, index-counts, research, graph, ...) */
  kind: string;
  workflowId: string | null;
  runId: string | null;
  windowStart: Date | null;
  windowEnd: Date | null;
}

/** What a load cost against the API: requests made (every attempt), retries, 429 answers, credits the answers named. */
export interface LoadUsage {
  apiRequests: number;
  retries: number;
  http429: number;
  credits: number;
}

/** What a load's checks (the project file's `checks:`, workflows/checks.ts) gave: `_loads.checks` and `_loads.check_failed`. */
export interface LoadChecksRecord {
  results: { check: string; ok: boolean; detail: string }[];
  /** the failure's message, null when every check passed */
  failed: string | null;
}

/** Told of every landing and every recorded load of a warehouse (the worker's metrics); must not throw. */
export interface WarehouseObserver {
  /** a batch landed into `table` (the parent of a land() call) for `loadId` */
  landed?(table: string, loadId: string, counts: LoadCounts): void;
  /** a load recorded in `_loads`, or its counts changed (a replay with the same counts is not told); `checks`: its checks' outcome, if any */
  recorded?(meta: LoadMeta, counts: LoadCounts, checks?: LoadChecksRecord): void;
}

const sqlStr = (s: string) => `'${s.replaceAll("'", "''")}'`;

export class Warehouse {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly observers: WarehouseObserver[] = [];
  /** the API usage of a load being recorded (the worker's client counts it per workflow); none: NULL */
  private usageOf: ((meta: LoadMeta) => LoadUsage | undefined) | null = null;
  private readonly landing: Landing;
  private readonly schema: SchemaLedger;
  private constructor(
    readonly dir: string,
    readonly lake: LakeOptions,
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    /** stages batches in memory, outside the lake transaction (one transaction writes one database) */
    private readonly stager: DuckDBConnection,
  ) {
    this.landing = new Landing(stager, conn, (tag, fn) => this.tx(tag, fn));
    this.schema = new SchemaLedger(
      (sql, params) => this.query(sql, params),
      (tag, fn) => this.serial(() => this.tx(tag, fn)),
    );
  }

  /**
   * Open (create, migrate) the lake of a warehouse folder. The catalog and data path come from
   * `opts` (the project's warehouse.catalog / .data), else `<dir>/lake.sqlite` and `<dir>/lake/`.
   * Safe to call from several processes at once (a migration is applied by one of them).
   */
  static async open(dir: string, opts: Partial<Pick<LakeOptions, 'catalog' | 'dataPath'>> = {}): Promise<Warehouse> {
    const lake: LakeOptions = { ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)), dir };
    const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    const conn = await instance.connect();
    try {
      await attachLake(conn, lake);
      const w = new Warehouse(dir, lake, instance, conn, await instance.connect());
      await migrate(conn, (tag, fn) => w.tx(tag, fn));
      // _loads rows are never inlined into the catalog: with inlined _loads rows, a writer's commit
      // during a maintenance run failed in DuckLake's statistics of them ("Failed to read
      // inlined-data aggregates ... isnan(VARCHAR)" on credits; test/warehouse/maintain.test.ts)
      if (!lake.readOnly) await withLakeRetry(() => conn.run(`CALL ${LAKE_ALIAS}.set_option('data_inlining_row_limit', 0, table_name => '_loads')`));
      if (!lake.readOnly) await inlineSmallLoads(conn, catalogSpec(lake).kind);
      return w;
    } catch (e) {
      conn.closeSync();
      instance.closeSync();
      throw e;
    }
  }

  /**
   * Create the tables of a custom pipeline that the lake does not have yet (`CREATE TABLE IF NOT
   * EXISTS`, in one lake transaction); newsflow's own tables and names are refused. An existing
   * table gets the columns its definition added since (`ALTER TABLE ... ADD COLUMN`, NULL in the
   * rows landed before). Their inlining limit is set as newsflow's tables' (`inlineLimitOf`).
   */
  ensureTables(defs: TableDef[]): Promise<void> {
    for (const d of defs) {
      if (!TABLE_NAME.test(d.name)) throw new Error(`table name "${d.name}": lower-case letters, digits and underscores, at most 63`);
      if (TABLES_BY_NAME[d.name] || d.name.startsWith('_')) throw new Error(`table ${d.name} is newsflow's own: give your table another name`);
    }
    if (!defs.length) return Promise.resolve();
    return this.serial(() =>
      this.tx({ op: `tables ${defs.map((d) => d.name).join(',')}` }, async (conn) => {
        for (const d of defs) await conn.run(createTable(d).replace(/^CREATE TABLE /, 'CREATE TABLE IF NOT EXISTS '));
      })
        .then(() => addColumns(this.conn, (tag, fn) => this.tx(tag, fn), defs))
        .then(() => inlineSmallLoads(this.conn, catalogSpec(this.lake).kind, defs)),
    );
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

  /**
   * Land rows of a parent table and its children in one lake transaction (one snapshot); a
   * replayed batch changes nothing. Returns the parent's counts (see land.ts). The next batch may
   * be landed before this one resolved: it is staged while the lake writes this one, and written
   * after it (the lake's writes keep the order of the calls).
   */
  land(
    parent: TableDef,
    rows: Record<string, unknown>[],
    children: { table: TableDef; rows: Record<string, unknown>[] }[],
    loadId: string,
  ): Promise<LoadCounts> {
    const landed = this.landing.land(parent, rows, children, loadId, (fn) => this.serial(fn));
    if (!this.observers.length) return landed;
    return landed.then((counts) => {
      for (const o of this.observers) o.landed?.(parent.name, loadId, counts);
      return counts;
    });
  }

  /** Where recordLoad reads a load's API usage from (the worker sets it: pipelines/worker/usage.ts). */
  setUsageSource(fn: ((meta: LoadMeta) => LoadUsage | undefined) | null): void {
    this.usageOf = fn;
  }

  /** Tell `o` of every landing and recorded load from now on; returns what stops it. */
  observe(o: WarehouseObserver): () => void {
    this.observers.push(o);
    return () => {
      const i = this.observers.indexOf(o);
      if (i >= 0) this.observers.splice(i, 1);
    };
  }

  /**
   * Record (or complete) a load in `_loads` (a MERGE on load_id: replaying the same load changes
   * nothing), then store the id of the lake snapshot that recorded it (`newsflow sql --at`).
   * `checks`: its checks' outcome (none configured: NULL).
   */
  recordLoad(meta: LoadMeta, counts: LoadCounts, startedAt: Date, invariants: Record<string, unknown> = {}, checks?: LoadChecksRecord): Promise<void> {
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
        meta.kind,
      ];
      const usage = this.usageOf?.(meta);
      params.push(usage?.apiRequests ?? null, usage?.retries ?? null, usage?.http429 ?? null, usage?.credits ?? null);
      params.push(checks ? JSON.stringify(checks.results) : null, checks?.failed ?? null);
      const changed = await this.tx({ loadId: meta.loadId, op: 'record' }, async (conn) => {
        const r = await conn.runAndReadAll(
          `MERGE INTO _loads t USING (SELECT $1::VARCHAR AS load_id, $2::VARCHAR AS pipeline, $3::VARCHAR AS workflow_id, $4::VARCHAR AS run_id,
             make_timestamp($5::BIGINT) AS window_start, make_timestamp($6::BIGINT) AS window_end, $7::BIGINT AS rows_received, $8::BIGINT AS rows_inserted,
             $9::BIGINT AS rows_updated, make_timestamp($10::BIGINT) AS started_at, $11::JSON AS invariants, $12::VARCHAR AS kind,
             $13::BIGINT AS api_requests, $14::BIGINT AS retries, $15::BIGINT AS http_429, $16::DOUBLE AS credits,
             $17::JSON AS checks, $18::VARCHAR AS check_failed) s ON t.load_id = s.load_id
           WHEN MATCHED AND (t.rows_received <> s.rows_received OR t.rows_inserted <> s.rows_inserted OR t.rows_updated <> s.rows_updated
             OR coalesce(t.invariants::VARCHAR, '') <> coalesce(s.invariants::VARCHAR, '')
             OR (s.api_requests IS NOT NULL AND t.api_requests IS DISTINCT FROM s.api_requests)
             OR coalesce(t.checks::VARCHAR, '') <> coalesce(s.checks::VARCHAR, '')) THEN UPDATE SET rows_received = s.rows_received,
             rows_inserted = s.rows_inserted, rows_updated = s.rows_updated, finished_at = now(), invariants = s.invariants,
             api_requests = coalesce(s.api_requests, t.api_requests), retries = coalesce(s.retries, t.retries),
             http_429 = coalesce(s.http_429, t.http_429), credits = coalesce(s.credits, t.credits), checks = s.checks, check_failed = s.check_failed
           WHEN NOT MATCHED THEN INSERT (load_id, pipeline, kind, workflow_id, run_id, window_start, window_end, rows_received, rows_inserted, rows_updated, started_at, finished_at, invariants,
             api_requests, retries, http_429, credits, checks, check_failed)
             VALUES (s.load_id, s.pipeline, s.kind, s.workflow_id, s.run_id, s.window_start, s.window_end, s.rows_received, s.rows_inserted, s.rows_updated, s.started_at, now(), s.invariants,
             s.api_requests, s.retries, s.http_429, s.credits, s.checks, s.check_failed)`,
          params as never,
        );
        return Number((r.getRowObjectsJS()[0] as { Count?: bigint } | undefined)?.Count ?? 0) > 0;
      });
      if (!changed) return;
      for (const o of this.observers) o.recorded?.(meta, counts, checks);
      const [snap] = (await this.conn.runAndReadAll(`SELECT id FROM ducklake_last_committed_snapshot('${LAKE_ALIAS}')`)).getRowObjectsJS();
      if (snap?.id === null || snap?.id === undefined) return;
      await this.tx({ loadId: meta.loadId, op: 'snapshot' }, (conn) =>
        conn.run('UPDATE _loads SET snapshot_id = $1 WHERE load_id = $2', [Number(snap.id), meta.loadId] as never),
      );
    });
  }

  /**
   * Maintain the lake (warehouse/maintain.ts): flush inlined rows, rewrite files with many deleted
   * rows, merge small files, expire snapshots past the retention, delete files nothing references.
   * Each step is one lake commit in this warehouse's order of work (its own landings go between
   * steps) and retried on another process's conflict. A real run is recorded as one `_loads` row
   * (kind `maintenance`), its steps' figures in `invariants`.
   */
  async maintain(o: MaintainOptions & { loadId?: string; pipeline?: string; workflowId?: string | null; runId?: string | null } = {}): Promise<MaintainReport> {
    const started = new Date();
    const r = await maintainLake(this.conn, o, (fn) => this.serial(fn));
    if (o.dryRun) return r;
    const files = (ts: MaintainReport['before']) => ts.reduce((a, t) => a + t.files, 0);
    await this.recordLoad(
      {
        loadId: o.loadId ?? `maintenance-${started.toISOString()}`,
        pipeline: o.pipeline ?? 'maintenance',
        kind: 'maintenance',
        workflowId: o.workflowId ?? null,
        runId: o.runId ?? null,
        windowStart: null,
        windowEnd: null,
      },
      // received: the live files before; inserted: after (a maintenance run lands no rows)
      { received: files(r.before), inserted: files(r.after), updated: 0 },
      started,
      {
        retention_days: r.retentionDays,
        ms: r.ms,
        steps: Object.fromEntries(r.steps.map((s) => [s.step, { ms: s.ms, count: s.count }])),
        snapshots_expired: r.snapshotsExpired.length,
        files_deleted: r.filesDeleted.length,
      },
    );
    return r;
  }

  /**
   * Compare a load's API objects with what table `t` knows of them, record new and vanished fields
   * in `_schema_changes`, apply the pipeline's contract (warehouse/schema.ts): returns the table's
   * definition to land with (evolved columns included) and the objects to map (discard: without
   * the new fields). Throws SchemaContractError under freeze.
   */
  checkSchema(t: TableDef, objects: unknown[], o: { loadId: string; contract?: SchemaContract }): Promise<{ def: TableDef; objects: unknown[] }> {
    return this.schema.check(t, objects, { loadId: o.loadId, contract: o.contract ?? 'evolve' });
  }

  /** `t` with the columns schema evolution added to it. */
  effectiveDef(t: TableDef): Promise<TableDef> {
    return this.schema.effective(t);
  }

  /** The rows with the evolved columns of `def` filled from their `raw` (in place). */
  withEvolved(def: TableDef, rows: Record<string, unknown>[]): Record<string, unknown>[] {
    return SchemaLedger.fill(def, rows);
  }

  /** The recorded schema changes: the open ones (or all), oldest first. */
  schemaChanges(o: { all?: boolean; table?: string } = {}): Promise<SchemaChange[]> {
    return this.schema.list(o);
  }

  /** Mark a table's open schema changes (or one path's) acknowledged; returns how many. */
  acknowledgeSchemaChanges(table: string, path?: string): Promise<number> {
    return this.schema.acknowledge(table, path);
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.serial(async () => (await this.conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as T[]);
  }

  /**
   * Statements in one lake transaction (one snapshot; retried on a concurrent writer's conflict).
   * `locks`: the tables they change whose writers must conflict (their lock rows are touched
   * first, warehouse/locks.ts), e.g. an insert-when-absent that two workers may run at once.
   */
  execMany(stmts: [sql: string, params?: unknown[]][], o: { locks?: string[] } = {}): Promise<void> {
    return this.serial(() =>
      this.tx({ op: 'exec' }, async (conn) => {
        for (const t of o.locks ?? []) await bumpLandLock(conn, t);
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
   * every table in one transaction (see import-file.ts). Returns the rows moved per table.
   */
  importFile(file: string, o: { force?: boolean } = {}): Promise<Record<string, number>> {
    return this.serial(() => importFile(this.conn, this.dir, (tag, fn) => this.tx(tag, fn), file, o));
  }

  close(): void {
    this.stager.closeSync();
    this.conn.closeSync();
    this.instance.closeSync();
  }
}
