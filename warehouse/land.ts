/**
 * Landing: a batch of a parent table and its children in one lake transaction. Rows are staged in
 * memory (lib/duckdb/stage.ts), hashed (row-hash.ts), then MERGEd on the table's merge key, or
 * appended when the key filter (key-filter.ts) tells every key is new.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { stageRows } from '../lib/duckdb/stage.js';
import { LAKE_ALIAS, type LakeTx } from './lake.js';
import { KeyFilter } from './key-filter.js';
import { bumpLandLock } from './locks.js';
import { HASH_V2, hashedColumns, isV2, legacySame, rowHashes } from './row-hash.js';
import type { TableDef } from './tables/table-def.js';

export interface LoadCounts {
  received: number;
  inserted: number;
  updated: number;
}

/** staged value -> warehouse column expression */
export const moveExpr = (col: { name: string; sql: string; kind: string }, alias = 's') =>
  col.sql === 'TIMESTAMP'
    ? `make_timestamp(${alias}.${col.name})`
    : col.sql === 'UUID'
      ? `${alias}.${col.name}::UUID`
      : col.sql === 'JSON'
        ? `${alias}.${col.name}::JSON`
        : `${alias}.${col.name}`;

const STG = 'memory.main';
const sqlStr = (s: string) => `'${s.replaceAll("'", "''")}'`;
const colOf = (t: TableDef, n: string) => t.columns.find((c) => c.name === n)!;
/** a 64-bit `hash()` as two 32-bit halves (how the key filter takes it) */
const halves = (h: string) => `(${h} >> 32)::UINTEGER AS hi, (${h} & 4294967295)::UINTEGER AS lo`;
/** each (hi, lo) row of `sql` (see `halves`), read chunk by chunk */
async function eachHalves(conn: DuckDBConnection, sql: string, fn: (hi: number, lo: number) => void): Promise<void> {
  const res = await conn.stream(sql);
  for (let ch = await res.fetchChunk(); ch && ch.rowCount > 0; ch = await res.fetchChunk()) {
    const his = ch.getColumnValues(0) as number[];
    const los = ch.getColumnValues(1) as number[];
    for (let i = 0; i < his.length; i++) fn(his[i]!, los[i]!);
  }
}

/** How many batches may be staged at once: one written to the lake while the next is staged. */
const SLOTS = 2;

/** A batch staged for its lake write (`Landing.stage`): its rows, its staging tables, what was read of them. */
interface Staged {
  parent: TableDef;
  rows: Record<string, unknown>[];
  kids: { table: TableDef; key: string; rows: Record<string, unknown>[]; stg: string }[];
  loadId: string;
  /** the parent's columns the row hash covers */
  hashed: string[];
  /** the staged parent rows (with their hashes) */
  stg: string;
  /** the batch's distinct merge keys, and its distinct child keys (the parent key the children carry) */
  batchKeys: number;
  distinctKeys: number;
  /** the halves of the staged merge keys' `hash()`, for the key filter (see `newKeysOnly`) */
  keyHashes: { hi: Uint32Array; lo: Uint32Array };
}

/**
 * The landing of one warehouse: its staging connection, its lake transaction, its key filters.
 * A batch is landed in two halves: staged (into memory, on the staging connection: its rows
 * through the appender, its row hashes, its keys read once) and written (one lake transaction on
 * the lake connection). The halves of two batches overlap: while the lake writes one batch, the
 * next is staged into the other staging slot (DuckDB runs the lake's statements off the event
 * loop), so a caller that lands the next batch before the previous one resolved pays the slower
 * half only.
 */
export class Landing {
  /** per landed table: its merge keys as of a lake snapshot (see `newKeysOnly`) */
  private readonly keyFilters = new Map<string, { snapshot: number; filter: KeyFilter }>();
  /** per staging slot: settled when the lake write of the batch staged in it is done */
  private readonly slots: Promise<unknown>[] = Array.from({ length: SLOTS }, () => Promise.resolve());
  private nextSlot = 0;
  /** batches are staged one at a time, in call order */
  private staging: Promise<unknown> = Promise.resolve();
  constructor(
    /** stages batches in memory, outside the lake transaction (one transaction writes one database) */
    private readonly stager: DuckDBConnection,
    /** the lake connection: what `tx` runs on (read outside a transaction only to learn a commit's snapshot) */
    private readonly conn: DuckDBConnection,
    private readonly tx: LakeTx,
  ) {}

  /**
   * Land rows of a parent table and its children in one lake transaction (one snapshot): appender
   * into staging (in memory, on a second connection), MERGE on the merge key (a matched row is
   * updated only when its content hash changed; a parent's hash covers its child rows), children
   * replaced for the parents inserted or updated. A replayed batch changes nothing (no snapshot).
   * Returns the parent's counts. `turn` runs the lake write in the warehouse's order of calls (it
   * is called at once, so the write keeps the place of this call); the batch is staged meanwhile,
   * after the batch staged before it, into a slot whose previous batch's lake write is done.
   */
  land(
    parent: TableDef,
    rows: Record<string, unknown>[],
    children: { table: TableDef; rows: Record<string, unknown>[] }[],
    loadId: string,
    turn: <T>(fn: () => Promise<T>) => Promise<T>,
  ): Promise<LoadCounts> {
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % SLOTS;
    const slotFree = this.slots[slot]!;
    const stageFn = async () => {
      await slotFree;
      return this.stage(parent, rows, children, loadId, slot);
    };
    const staged = this.staging.then(stageFn, stageFn);
    this.staging = staged.catch(() => undefined);
    // (awaited by the write below; a failed staging is its error)
    staged.catch(() => undefined);
    const written = turn(async () => this.write(await staged));
    this.slots[slot] = written.catch(() => undefined);
    return written;
  }

  /** Stage a batch into `slot`'s tables: its row hashes, its rows, its children, its keys read once. */
  private async stage(
    parent: TableDef,
    rows: Record<string, unknown>[],
    children: { table: TableDef; rows: Record<string, unknown>[] }[],
    loadId: string,
    slot: number,
  ): Promise<Staged> {
    const hashed = hashedColumns(parent);
    const kidRows = children.map((ch) => ({ ...ch, key: ch.table.replaceBy![0]! }));
    // the content hash of each row, children included (see `rowHashes`)
    const hashes = rowHashes(hashed, rows, kidRows);
    // staged with its hash and its load's id: this load's, or the
    // one a row names (rows of several loads landed in one transaction)
    const st = this.stager;
    const stg = `${STG}.${await stageRows(st, `_stg_w${slot}_${parent.name}`, parent.columns, rows, {
      row_hash: (_, i) => hashes[i],
      last_load_id: (r) => (typeof r.last_load_id === 'string' ? r.last_load_id : loadId),
    })}`;
    const kids: Staged['kids'] = [];
    for (const ch of kidRows) kids.push({ ...ch, stg: `${STG}.${await stageRows(st, `_stg_w${slot}_${ch.table.name}`, ch.table.columns, ch.rows)}` });
    // the batch's distinct merge keys (the same key twice in one batch: the last row wins)
    const batchKeys = Number(
      (await st.runAndReadAll(`SELECT count(*) AS n FROM (SELECT DISTINCT ${parent.mergeKey.join(', ')} FROM ${stg})`)).getRows()[0]![0],
    );
    const keyOf = kids[0]?.key;
    const distinctKeys = keyOf ? new Set(rows.map((r) => String(r[keyOf]))).size : 0;
    // the staged keys' hashes, as the key filter holds them: the same types as the lake's columns (moved as the write moves them)
    const hi = new Uint32Array(rows.length);
    const lo = new Uint32Array(rows.length);
    let n = 0;
    await eachHalves(st, `SELECT ${halves(`hash(${parent.mergeKey.map((k) => moveExpr(colOf(parent, k))).join(', ')})`)} FROM ${stg} s`, (h, l) => {
      hi[n] = h;
      lo[n++] = l;
    });
    return { parent, rows, kids, loadId, hashed, stg, batchKeys, distinctKeys, keyHashes: { hi: hi.subarray(0, n), lo: lo.subarray(0, n) } };
  }

  /** Write a staged batch in one lake transaction (see `land`). */
  private async write(s: Staged): Promise<LoadCounts> {
    const { parent, rows, kids, loadId, hashed, stg, batchKeys, distinctKeys } = s;
    const on = parent.mergeKey.map((k) => `t.${k} = ${moveExpr(colOf(parent, k))}`).join(' AND ');
    const dedup =
      batchKeys === rows.length ? stg : `(SELECT * FROM ${stg} QUALIFY row_number() OVER (PARTITION BY ${parent.mergeKey.join(', ')} ORDER BY rowid DESC) = 1)`;
    const cols = parent.columns.map((c) => c.name);
    const k0 = parent.mergeKey[0]!;
    const keyOf = kids[0]?.key;
    const list = (keys: string[]) => `(${keys.map(sqlStr).join(', ')})`;
    // the snapshot the (last) attempt read, when its key filter was brought up to it
    let filtered: number | undefined;
    const counts = await this.tx({ loadId, op: `land ${parent.name}` }, async (conn) => {
      filtered = undefined;
      let ins: number;
      let upd = 0;
      let insKeys: string[] = [];
      let updKeys: string[] = [];
      // stored hashes of before HASH_V2 whose rows this batch holds unchanged (see `legacySame`)
      let same = new Set<string>();
      // a batch of keys the lake has never held (a page of new articles), told without reading
      // the table: appended, its children too (each parent is new, so are its children)
      let allNew = false;
      if (!keyOf || batchKeys === distinctKeys) {
        const seen = await this.newKeysOnly(conn, parent, s.keyHashes);
        filtered = seen.snapshot;
        allNew = seen.allNew;
      }
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
      await bumpLandLock(conn, parent.name);
      if (allNew || (upd === 0 && ins === batchKeys)) {
        // every key of the batch is new (a page of new articles), as the check above read it in
        // this transaction: appended, without a MERGE (which would scan the table's key column again)
        await conn.run(`INSERT INTO ${parent.name} (${cols.join(', ')}) SELECT ${parent.columns.map((c) => moveExpr(c)).join(', ')} FROM ${dedup} s`);
      } else if (keyOf && parent.mergeKey.length === 1 && parent.mergeKey[0] === keyOf) {
        // the changed keys are known (read above): their rows deleted, then the new and changed
        // rows inserted. The same as a MERGE's UPDATE (DuckLake writes an update as a delete and
        // an insert), but a small batch stays under DuckLake's inlining limit: a MERGE always
        // writes a Parquet file, an INSERT of fewer rows than the limit goes into the catalog
        if (updKeys.length) await conn.run(`DELETE FROM ${parent.name} t USING ${dedup} s WHERE ${on} AND s.${k0}::VARCHAR IN ${list(updKeys)}`);
        const only = ins + upd === batchKeys ? '' : `WHERE s.${k0}::VARCHAR IN ${list([...insKeys, ...updKeys])}`;
        await conn.run(`INSERT INTO ${parent.name} (${cols.join(', ')}) SELECT ${parent.columns.map((c) => moveExpr(c)).join(', ')} FROM ${dedup} s ${only}`);
      } else {
        // the same without the keys in hand: the changed rows deleted (a legacy hash whose row is
        // unchanged kept), then every staged row the table no longer holds inserted
        const keep = same.size ? ` AND t.row_hash NOT IN (${[...same].map(sqlStr).join(', ')})` : '';
        if (upd > 0) await conn.run(`DELETE FROM ${parent.name} t USING ${dedup} s WHERE ${on} AND t.row_hash <> s.row_hash${keep}`);
        await conn.run(`INSERT INTO ${parent.name} (${cols.join(', ')}) SELECT ${parent.columns.map((c) => moveExpr(c)).join(', ')} FROM ${dedup} s
          WHERE NOT EXISTS (SELECT 1 FROM ${parent.name} t WHERE ${on})`);
      }
      for (const { table, key, stg: cs } of kids) {
        if (updKeys.length) await conn.run(`DELETE FROM ${table.name} WHERE ${key}::VARCHAR IN ${list(updKeys)}`);
        // every parent of the batch changed (a page of new articles): all its children, unfiltered
        const only = ins + upd === distinctKeys ? '' : `WHERE s.${key} IN ${list([...insKeys, ...updKeys])}`;
        await conn.run(`INSERT INTO ${table.name} SELECT DISTINCT ${table.columns.map((c) => moveExpr(c)).join(', ')} FROM ${cs} s ${only}`);
      }
      return { received: rows.length, inserted: ins, updated: upd };
    });
    if (filtered !== undefined && counts.inserted + counts.updated > 0) await this.committed(parent, filtered, s.keyHashes);
    return counts;
  }

  /**
   * After a commit of `t` by a transaction that read snapshot `read` with the table's key filter
   * brought up to it: when the commit is the snapshot right after (no other writer's commit in
   * between), the filter takes the batch's keys and that snapshot, so the next landing does not
   * read this commit's keys back from the lake's change feed.
   */
  private async committed(t: TableDef, read: number, keyHashes: Staged['keyHashes']): Promise<void> {
    const kf = this.keyFilters.get(t.name);
    if (!kf || kf.snapshot !== read) return;
    const [snap] = (await this.conn.runAndReadAll(`SELECT id FROM ducklake_last_committed_snapshot('${LAKE_ALIAS}')`)).getRows();
    if (snap?.[0] === null || snap?.[0] === undefined || Number(snap[0]) !== read + 1) return;
    const { hi, lo } = keyHashes;
    try {
      for (let i = 0; i < hi.length; i++) kf.filter.add(hi[i]!, lo[i]!);
      kf.snapshot = read + 1;
    } catch {
      // out of slots: built anew, larger, from the table by the next landing
      this.keyFilters.delete(t.name);
    }
  }

  /**
   * Whether no merge key of the staged batch (its keys' hash halves, `keys`) is in `t` at the
   * snapshot `conn`'s lake transaction reads (returned too), told by the table's key filter,
   * without reading the table: the filter is built once from the table's keys (one scan), then
   * brought up to the transaction's snapshot with the keys the snapshots since inserted
   * (DuckLake's change feed reads only their files). False means "maybe": the caller checks
   * against the table itself.
   */
  private async newKeysOnly(conn: DuckDBConnection, t: TableDef, keys: Staged['keyHashes']): Promise<{ allNew: boolean; snapshot: number }> {
    const keyHash = (alias: string) => `hash(${t.mergeKey.map((k) => `${alias}.${k}`).join(', ')})`;
    const snapshot = Number((await conn.runAndReadAll(`SELECT id FROM ${LAKE_ALIAS}.current_snapshot()`)).getRows()[0]![0]);
    let kf = this.keyFilters.get(t.name);
    if (kf && kf.snapshot < snapshot) {
      try {
        const since = `ducklake_table_changes('${LAKE_ALIAS}', 'main', '${t.name}', ${kf.snapshot + 1}, ${snapshot})`;
        const f = kf.filter;
        await eachHalves(conn, `SELECT ${halves(keyHash('c'))} FROM ${since} c WHERE c.change_type IN ('insert', 'update_postimage')`, (hi, lo) =>
          f.add(hi, lo),
        );
        kf.snapshot = snapshot;
      } catch (e) {
        // the snapshots since it expired (lake maintenance, warehouse/maintain.ts): the failed
        // read aborted this transaction, so it is retried from the start, the filter then built
        // again from the table
        this.keyFilters.delete(t.name);
        throw new Error(
          `the key filter of ${t.name} is older than the lake's oldest snapshot: retried after a conflict (${(e as Error).message.split('\n')[0]})`,
          { cause: e },
        );
      }
    }
    if (!kf || kf.snapshot !== snapshot || kf.filter.full) {
      // (re)built from the table as this transaction reads it, with room to grow by a quarter
      // (4 bytes a slot, 2.5+ slots a key: ~65-130 MB for 6.5M keys; rebuilt, one more read of
      // the table, once it holds 70% of its slots)
      const n = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${t.name}`)).getRows()[0]![0]);
      const filter = new KeyFilter(Math.ceil(n * 1.25));
      await eachHalves(conn, `SELECT ${halves(keyHash('t'))} FROM ${t.name} t`, (hi, lo) => filter.add(hi, lo));
      kf = { snapshot, filter };
      this.keyFilters.set(t.name, kf);
    }
    const f = kf.filter;
    for (let i = 0; i < keys.hi.length; i++) if (f.mayHave(keys.hi[i]!, keys.lo[i]!)) return { allNew: false, snapshot };
    return { allNew: true, snapshot };
  }
}
