/**
 * Lake maintenance: the steps that keep a lake of many small loads as fast as a lake written at
 * once (see docs/warehouse.md "Maintenance" for the measurements behind the order). In order:
 *
 * 1. flush: inlined rows (small batches kept in the catalog) into Parquet files;
 * 2. rewrite: files whose deleted share is above `deleteThreshold` (updated articles leave
 *    deletes in every older file) rewritten without the deleted rows; DuckLake writes the
 *    rewritten rows of a table into as few files as the target size allows;
 *    then a table with more than MAX_FILES_WITH_DELETES (0) files with deletes under the
 *    threshold has those rewritten too (they would never be merged, and each costs every query);
 * 3. merge: small files without deletes merged up to `targetFileSize`;
 * 4. expire: snapshots older than the retention (`sql --at` works for loads within it);
 * 5. cleanup: files only expired snapshots referenced, once scheduled longer ago than
 *    `cleanupGraceMs` (a reader that started before may still read them);
 * 6. orphans: files under the data path that no snapshot references (a writer that died between
 *    writing a file and committing), older than the grace too.
 *
 * The order matters: flushing after a rewrite writes a delete file per flushed inlined delete
 * (300 on a 100-load lake), and a merge skips files with deletes, so merging before rewriting
 * leaves the many small files of an updated table as they are. Each step is its own lake
 * commit, retried on a concurrent writer's conflict (withLakeRetry), so landings that run
 * meanwhile lose nothing and are never blocked for longer than one step.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS, withLakeRetry } from './lake.js';

export interface MaintainOptions {
  /** list what would be done, change nothing */
  dryRun?: boolean;
  /** snapshots older than this many days expire (default 7) */
  retentionDays?: number;
  /** a file with a larger deleted share is rewritten (0..1, default 0.1) */
  deleteThreshold?: number;
  /** files are merged up to this size (DuckDB size string, default '256MB') */
  targetFileSize?: string;
  /** files scheduled for deletion longer ago than this are removed (default 1 hour: a reader that started before may still scan them) */
  cleanupGraceMs?: number;
  /** the clock (tests and the bench compress days) */
  now?: Date;
  /** each step's line as it finishes */
  log?: (line: string) => void;
}

/**
 * Files with deletes (under the threshold) a table keeps before they are all rewritten: none.
 * A query pays for every file with deletes (its delete file read, its rows filtered): on the
 * 30-day lake of bench/day100.ts with 2 (articles: 3 files, 2 with deletes), the entity join took
 * 58 ms best of 40 against 37 ms once they were rewritten (the reference layout: 39 ms). The
 * rewrite takes only files with deletes: an overlapping window updates recent rows, so the newest
 * file(s), each at most the target size.
 */
export const MAX_FILES_WITH_DELETES = 0;

export const MAINTAIN_DEFAULTS = { retentionDays: 7, deleteThreshold: 0.1, targetFileSize: '256MB', cleanupGraceMs: 3_600_000 } as const;

/** One table's layout: its live data files, how many have deletes, its inlined rows. */
export interface TableLayout {
  table: string;
  files: number;
  rows: number;
  bytes: number;
  /** data files with a delete file */
  withDeletes: number;
  /** files the rewrite step takes (deleted share above the threshold) */
  toRewrite: number;
  /** files without deletes under the target size (the merge step takes them when there are two or more) */
  toMerge: number;
  /** rows kept in the catalog (flushed by the first step) */
  inlinedRows: number;
}

export interface MaintainStep {
  step: 'flush' | 'rewrite' | 'merge' | 'expire' | 'cleanup' | 'orphans';
  ms: number;
  /** rows flushed, files rewritten/merged, snapshots expired, files deleted */
  count: number;
  detail: string;
}

export interface MaintainReport {
  dryRun: boolean;
  retentionDays: number;
  before: TableLayout[];
  after: TableLayout[];
  steps: MaintainStep[];
  /** the snapshots expired (or that would be) */
  snapshotsExpired: number[];
  /** the files deleted from storage (or that would be) */
  filesDeleted: string[];
  ms: number;
}

/** The catalog's own schema as DuckDB attaches it beside the lake. */
export const metadataOf = (alias = LAKE_ALIAS) => `__ducklake_metadata_${alias}`;

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : Number(v ?? 0));
const ts = (d: Date) => `'${d.toISOString().replace('T', ' ').replace('Z', '')}'::TIMESTAMP`;
const rows = async (conn: DuckDBConnection, sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

/** Parse a DuckDB size string ('256MB', '1GB', '512KB', bytes) into bytes. */
export function sizeBytes(s: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?\s*$/i.exec(s);
  if (!m) throw new Error(`size "${s}": a number with KB, MB or GB (e.g. 256MB)`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult: Record<string, number> = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 };
  return Math.round(Number(m[1]) * mult[unit]!);
}

/** Every table's live layout (the current snapshot's files), read from the catalog. */
export async function lakeLayout(conn: DuckDBConnection, o: { deleteThreshold?: number; targetFileSize?: string } = {}): Promise<TableLayout[]> {
  const md = metadataOf();
  const thr = o.deleteThreshold ?? MAINTAIN_DEFAULTS.deleteThreshold;
  const target = sizeBytes(o.targetFileSize ?? MAINTAIN_DEFAULTS.targetFileSize);
  const files = await rows(
    conn,
    `SELECT t.table_id, t.table_name, count(d.data_file_id) AS files, coalesce(sum(d.record_count), 0) AS n, coalesce(sum(d.file_size_bytes), 0) AS bytes,
       count(*) FILTER (WHERE df.data_file_id IS NOT NULL) AS with_deletes,
       count(*) FILTER (WHERE df.data_file_id IS NOT NULL AND df.delete_count::DOUBLE / greatest(d.record_count, 1) > ${thr}) AS to_rewrite,
       count(*) FILTER (WHERE d.data_file_id IS NOT NULL AND df.data_file_id IS NULL AND d.file_size_bytes < ${target}) AS small
     FROM ${md}.ducklake_table t
     LEFT JOIN ${md}.ducklake_data_file d ON d.table_id = t.table_id AND d.end_snapshot IS NULL
     LEFT JOIN ${md}.ducklake_delete_file df ON df.data_file_id = d.data_file_id AND df.end_snapshot IS NULL
     WHERE t.end_snapshot IS NULL GROUP BY ALL ORDER BY t.table_name`,
  );
  const inlined = new Map<number, number>();
  for (const r of await rows(conn, `SELECT table_id, table_name FROM ${md}.ducklake_inlined_data_tables`)) {
    const [c] = await rows(conn, `SELECT count(*) AS n FROM ${md}.${String(r.table_name)} WHERE end_snapshot IS NULL`);
    inlined.set(num(r.table_id), (inlined.get(num(r.table_id)) ?? 0) + num(c?.n));
  }
  return files.map((r) => ({
    table: String(r.table_name),
    files: num(r.files),
    rows: num(r.n),
    bytes: num(r.bytes),
    withDeletes: num(r.with_deletes),
    toRewrite: num(r.to_rewrite),
    toMerge: num(r.small) >= 2 ? num(r.small) : 0,
    inlinedRows: inlined.get(num(r.table_id)) ?? 0,
  }));
}

/** What the steps of one maintenance run share: the connection, the clock, the step runner and its record. */
interface MaintainRun {
  conn: DuckDBConnection;
  L: string;
  retentionDays: number;
  deleteThreshold: number;
  targetFileSize: string;
  /** the snapshots past the retention, never the newest (a WHERE of ducklake_snapshots) */
  expirable: () => string;
  /** files scheduled for deletion or orphaned before this moment are removed */
  cleanBefore: () => Date;
  layout: () => Promise<TableLayout[]>;
  step: <T>(fn: () => Promise<T>) => Promise<T>;
  steps: MaintainStep[];
  log: (line: string) => void;
  run: (
    name: MaintainStep['step'],
    sql: string,
    count: (r: Record<string, unknown>[]) => number,
    detail: (r: Record<string, unknown>[]) => string,
  ) => Promise<Record<string, unknown>[]>;
}

const perTable = (r: Record<string, unknown>[], a: string, b?: string) =>
  r
    .filter((x) => num(x[a]) > 0)
    .map((x) => `${String(x.table_name)} ${num(x[a])}${b ? `->${num(x[b])}` : ''}`)
    .join(', ') || 'nothing to do';

/**
 * Run the maintenance steps on `conn` (the lake attached as `lake`, writable): each step one
 * call, retried on a concurrent writer's conflict; `step` runs each in the caller's order of lake
 * work (the warehouse's queue), so the process's own landings go between steps. With `dryRun`,
 * the layout, the snapshots that would expire and the files that would be deleted, nothing changed.
 */
export async function maintainLake(
  conn: DuckDBConnection,
  o: MaintainOptions = {},
  step: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
): Promise<MaintainReport> {
  const t0 = performance.now();
  const retentionDays = o.retentionDays ?? MAINTAIN_DEFAULTS.retentionDays;
  const deleteThreshold = o.deleteThreshold ?? MAINTAIN_DEFAULTS.deleteThreshold;
  const targetFileSize = o.targetFileSize ?? MAINTAIN_DEFAULTS.targetFileSize;
  const grace = o.cleanupGraceMs ?? MAINTAIN_DEFAULTS.cleanupGraceMs;
  if (!(retentionDays >= 0)) throw new Error(`retention ${retentionDays} days: a number of days >= 0`);
  if (!(deleteThreshold >= 0 && deleteThreshold <= 1)) throw new Error(`delete threshold ${deleteThreshold}: between 0 and 1`);
  sizeBytes(targetFileSize);
  const now = o.now ?? new Date();
  // the retention and the grace count back from the moment of their step, not the run's start:
  // with retention 0 the run's own flush and rewrite snapshots expire (else the files they
  // replaced stay referenced until the next run), and with grace 0 the files the run's expiry
  // scheduled are deleted (measured: with the start's time, a run with --retention 0 --grace 0 on
  // 6 loads left 11 of articles' 12 files in storage)
  const at = () => now.getTime() + (performance.now() - t0);
  const expireBefore = () => new Date(at() - retentionDays * 86_400_000);
  const log = o.log ?? (() => undefined);
  const L = `'${LAKE_ALIAS}'`;
  const steps: MaintainStep[] = [];
  const m: MaintainRun = {
    conn,
    L,
    retentionDays,
    deleteThreshold,
    targetFileSize,
    // the snapshots past the retention, never the newest: by id, as `older_than` is not kept to once
    // inlined data was flushed (ducklake_expire_snapshots(older_than) then also lists snapshots newer
    // than it: measured on DuckLake 1.0, a flush then a dry run listed a snapshot 1 s inside the retention)
    expirable: () => `snapshot_time < ${ts(expireBefore())} AND snapshot_id < (SELECT max(snapshot_id) FROM ducklake_snapshots(${L}))`,
    cleanBefore: () => new Date(at() - grace),
    layout: () => step(() => lakeLayout(conn, { deleteThreshold, targetFileSize })),
    step,
    steps,
    log,
    run: async (name, sql, count, detail) => {
      const t = performance.now();
      const r = await step(() =>
        withLakeRetry(
          // a step that failed inside a transaction left it aborted: roll it back before the next try (none open: ignored)
          (attempt) => (attempt > 1 ? conn.run('ROLLBACK').catch(() => undefined) : Promise.resolve()).then(() => rows(conn, sql)),
          { tries: 20, baseMs: 50 },
        ),
      );
      const s: MaintainStep = { step: name, ms: Math.round(performance.now() - t), count: count(r), detail: detail(r) };
      steps.push(s);
      log(`${name.padEnd(8)} ${String(s.ms).padStart(6)} ms  ${s.detail}`);
      return r;
    },
  };
  const before = await m.layout();
  const { expired, deleted } = o.dryRun ? await dryRunSteps(m) : await maintainSteps(m);
  const after = o.dryRun ? before : await m.layout();
  return {
    dryRun: !!o.dryRun,
    retentionDays,
    before,
    after,
    steps,
    snapshotsExpired: expired.map((r) => num(r.snapshot_id)),
    filesDeleted: deleted.map((r) => String(r.path)),
    ms: Math.round(performance.now() - t0),
  };
}

/** The dry run: the snapshots that would expire and the files that would be removed, nothing changed. */
async function dryRunSteps(m: MaintainRun): Promise<{ expired: Record<string, unknown>[]; deleted: Record<string, unknown>[] }> {
  const { L } = m;
  const expired = await m.run(
    'expire',
    `SELECT snapshot_id FROM ducklake_snapshots(${L}) WHERE ${m.expirable()}`,
    (r) => r.length,
    (r) => `${r.length} snapshots would expire (older than ${m.retentionDays} days)`,
  );
  const old = await m.run(
    'cleanup',
    `SELECT * FROM ducklake_cleanup_old_files(${L}, dry_run => true, older_than => ${ts(m.cleanBefore())})`,
    (r) => r.length,
    (r) => `${r.length} files scheduled for deletion would be removed`,
  );
  const orphans = await m.run(
    'orphans',
    `SELECT * FROM ducklake_delete_orphaned_files(${L}, dry_run => true, older_than => ${ts(m.cleanBefore())})`,
    (r) => r.length,
    (r) => `${r.length} orphaned files would be removed`,
  );
  return { expired, deleted: [...old, ...orphans] };
}

/** The real run: flush, rewrite, merge, expire, clean up (see the module's comment for the order). */
async function maintainSteps(m: MaintainRun): Promise<{ expired: Record<string, unknown>[]; deleted: Record<string, unknown>[] }> {
  const { L, conn, step } = m;
  await m.run(
    'flush',
    `SELECT * FROM ducklake_flush_inlined_data(${L})`,
    (r) => r.reduce((a, x) => a + num(x.rows_flushed), 0),
    (r) => perTable(r, 'rows_flushed'),
  );
  await m.run(
    'rewrite',
    `SELECT * FROM ducklake_rewrite_data_files(${L}, delete_threshold => ${m.deleteThreshold})`,
    (r) => r.reduce((a, x) => a + num(x.files_processed), 0),
    (r) => perTable(r, 'files_processed', 'files_created'),
  );
  await rewriteFilesWithDeletes(m);
  await step(() => withLakeRetry(() => conn.run(`CALL ${LAKE_ALIAS}.set_option('target_file_size', '${m.targetFileSize}')`)));
  await m.run(
    'merge',
    `SELECT * FROM ducklake_merge_adjacent_files(${L})`,
    (r) => r.reduce((a, x) => a + num(x.files_processed), 0),
    (r) => perTable(r, 'files_processed', 'files_created'),
  );
  // by their ids (the retention readers name is the one in this run's _loads row, read.ts)
  const ids = (await step(() => rows(conn, `SELECT snapshot_id FROM ducklake_snapshots(${L}) WHERE ${m.expirable()} ORDER BY 1`))).map((r) =>
    num(r.snapshot_id),
  );
  const expired = await m.run(
    'expire',
    ids.length ? `SELECT * FROM ducklake_expire_snapshots(${L}, versions => [${ids.join(', ')}])` : 'SELECT 1 AS snapshot_id WHERE false',
    (r) => r.length,
    (r) => `${r.length} snapshots expired (older than ${m.retentionDays} days)`,
  );
  const old = await m.run(
    'cleanup',
    `SELECT * FROM ducklake_cleanup_old_files(${L}, older_than => ${ts(m.cleanBefore())})`,
    (r) => r.length,
    (r) => `${r.length} files removed`,
  );
  const orphans = await m.run(
    'orphans',
    `SELECT * FROM ducklake_delete_orphaned_files(${L}, older_than => ${ts(m.cleanBefore())})`,
    (r) => r.length,
    (r) => `${r.length} orphaned files removed`,
  );
  return { expired, deleted: [...old, ...orphans] };
}

/**
 * Files with a few deletes (under the threshold) are neither rewritten nor merged (a merge skips
 * files with deletes): every day's updates left one more such file per updated table (day 100 of
 * bench/day100.ts: 29 files in article_entities). A table with more than MAX_FILES_WITH_DELETES of
 * them has all its files with deletes rewritten, threshold 0, so the merge takes them; the run's
 * record keeps one rewrite step, the threshold's and this one together.
 */
async function rewriteFilesWithDeletes(m: MaintainRun): Promise<void> {
  const stuck = (await m.layout()).filter((t) => t.withDeletes > MAX_FILES_WITH_DELETES);
  if (!stuck.length) return;
  const t = performance.now();
  const done: string[] = [];
  let files = 0;
  for (const tb of stuck) {
    const r = await m.step(() =>
      withLakeRetry(() => rows(m.conn, `SELECT * FROM ducklake_rewrite_data_files(${m.L}, '${tb.table.replace(/'/g, "''")}', delete_threshold => 0)`), {
        tries: 20,
        baseMs: 50,
      }),
    );
    const n = r.reduce((a, x) => a + num(x.files_processed), 0);
    files += n;
    done.push(`${tb.table} ${n}->${r.reduce((a, x) => a + num(x.files_created), 0)}`);
  }
  const ms = Math.round(performance.now() - t);
  const rw = m.steps.find((x) => x.step === 'rewrite')!;
  rw.ms += ms;
  rw.count += files;
  rw.detail = `${rw.detail}; files with deletes: ${done.join(', ')}`;
  m.log(`${'rewrite'.padEnd(8)} ${String(ms).padStart(6)} ms  files with deletes: ${done.join(', ')}`);
}

/** The report as lines: per table its files before and after (or what a dry run would take), then the steps. */
export function formatMaintainReport(r: MaintainReport): string[] {
  const out: string[] = [];
  const after = new Map(r.after.map((t) => [t.table, t]));
  // the tables that hold anything (a lake has ~27, most empty for a given project)
  const tables = r.before.filter((t) => t.files + t.inlinedRows + (after.get(t.table)?.files ?? 0) > 0);
  const w = Math.max(5, ...tables.map((t) => t.table.length));
  /** per table, the files a dry run would delete (their paths name the table's folder) */
  const doomed = (t: string) => r.filesDeleted.filter((f) => f.includes(`/${t}/`)).length;
  if (r.dryRun) {
    out.push(`${'table'.padEnd(w)}  files  inlined rows  rewrite  merge  delete`);
    for (const t of tables)
      out.push(
        `${t.table.padEnd(w)}  ${String(t.files).padStart(5)}  ${String(t.inlinedRows).padStart(12)}  ${String(t.toRewrite).padStart(7)}  ${String(t.toMerge).padStart(5)}  ${String(doomed(t.table)).padStart(6)}`,
      );
  } else {
    out.push(`${'table'.padEnd(w)}  files before  after  rows`);
    for (const t of tables)
      out.push(
        `${t.table.padEnd(w)}  ${String(t.files).padStart(12)}  ${String(after.get(t.table)?.files ?? 0).padStart(5)}  ${after.get(t.table)?.rows ?? 0}`,
      );
  }
  const sum = (ts: TableLayout[]) => ts.reduce((a, t) => a + t.files, 0);
  out.push(
    r.dryRun
      ? `dry run: ${sum(r.before)} files; would expire ${r.snapshotsExpired.length} snapshots (retention ${r.retentionDays} days) and delete ${r.filesDeleted.length} files`
      : `${sum(r.before)} -> ${sum(r.after)} files; ${r.snapshotsExpired.length} snapshots expired (retention ${r.retentionDays} days); ${r.filesDeleted.length} files deleted; ${r.ms} ms`,
  );
  return out;
}
