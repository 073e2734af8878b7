/**
 * The `_schema_changes` ledger and the columns schema evolution added (see schema.ts): read once
 * per table, re-read inside the lake transaction that records a change (another worker may have
 * recorded it meanwhile: then it is taken as it is, not added twice).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LakeTx } from './lake.js';
import type { TableDef } from './tables/table-def.js';
import {
  SchemaContractError,
  backfillSql,
  columnFor,
  dropPath,
  evolvedValue,
  newPaths,
  shapeOf,
  typeOf,
  vanishedPaths,
  type EvolvedColumn,
  type SchemaContract,
  type Shape,
} from './schema.js';

export const SCHEMA_CHANGES_DDL = `CREATE TABLE _schema_changes (
  table_name VARCHAR NOT NULL, path VARCHAR NOT NULL, change VARCHAR NOT NULL, value_type VARCHAR,
  first_load_id VARCHAR, first_seen_at TIMESTAMP, contract VARCHAR, action VARCHAR,
  column_name VARCHAR, column_type VARCHAR, status VARCHAR NOT NULL, acknowledged_at TIMESTAMP)`;

/** A recorded change: `action` column (evolved into `column_name`), raw (kept in raw only), discarded, refused (freeze), recorded (a vanished field). */
export interface SchemaChange {
  table_name: string;
  path: string;
  change: 'new' | 'vanished';
  value_type: string | null;
  first_load_id: string | null;
  first_seen_at: string | null;
  contract: string | null;
  action: string;
  column_name: string | null;
  column_type: string | null;
  status: string;
}

interface TableState {
  changes: SchemaChange[];
  evolved: EvolvedColumn[];
}

const evolvedOf = (changes: SchemaChange[]): EvolvedColumn[] =>
  changes
    .filter((c) => c.action === 'column' && c.column_name && c.column_type)
    .map((c) => ({ name: c.column_name!, sql: c.column_type!, kind: kindOf(c.column_type!), path: c.path }));
const kindOf = (sql: string): EvolvedColumn['kind'] => (sql === 'BIGINT' ? 'bigint' : sql === 'DOUBLE' ? 'double' : sql === 'BOOLEAN' ? 'bool' : 'varchar');

export class SchemaLedger {
  private readonly state = new Map<string, TableState>();
  private readonly shapes = new Map<string, Shape>();
  constructor(
    private readonly read: (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>,
    private readonly tx: LakeTx,
  ) {}

  private async load(table: string, conn?: DuckDBConnection): Promise<TableState> {
    const sql =
      'SELECT * EXCLUDE (first_seen_at, acknowledged_at), first_seen_at::VARCHAR AS first_seen_at FROM _schema_changes WHERE table_name = $1 ORDER BY first_seen_at, path';
    const rows = conn ? (await conn.runAndReadAll(sql, [table])).getRowObjectsJS() : await this.read(sql, [table]);
    const changes = rows as unknown as SchemaChange[];
    const st = { changes, evolved: evolvedOf(changes) };
    this.state.set(table, st);
    return st;
  }

  /** The table's definition with the columns schema evolution added (each filled from `raw`). */
  async effective(t: TableDef): Promise<TableDef> {
    const st = this.state.get(t.name) ?? (await this.load(t.name));
    return st.evolved.length ? { ...t, columns: [...t.columns, ...st.evolved.filter((e) => !t.columns.some((c) => c.name === e.name))] } : t;
  }

  /** Fill the evolved columns of `def` (as `effective` gives it) in each row from its `raw`. */
  static fill(def: TableDef, rows: Record<string, unknown>[]): Record<string, unknown>[] {
    const ev = def.columns.filter((c): c is EvolvedColumn => typeof (c as EvolvedColumn).path === 'string');
    if (!ev.length) return rows;
    for (const r of rows) {
      if (typeof r.raw !== 'string') continue;
      const raw = JSON.parse(r.raw) as unknown;
      for (const c of ev) if (r[c.name] === undefined) r[c.name] = evolvedValue(c, raw);
    }
    return rows;
  }

  /**
   * Compare a load's objects (what its rows' `raw` will be) with what `t` knows; record what is new
   * or vanished; apply the contract (see schema.ts). Returns the definition to land with and the
   * objects to map (discard: the new fields left out). Throws SchemaContractError under freeze.
   */
  async check(t: TableDef, objects: unknown[], o: { loadId: string; contract: SchemaContract }): Promise<{ def: TableDef; objects: unknown[] }> {
    if (!t.rawSchema || !objects.length) return { def: await this.effective(t), objects };
    const shape = this.shapes.get(t.name) ?? this.shapes.set(t.name, shapeOf(t.rawSchema)).get(t.name)!;
    let st = this.state.get(t.name) ?? (await this.load(t.name));
    const known = (s: TableState) => new Set(s.changes.filter((c) => c.change === 'new' && c.action !== 'refused').map((c) => c.path));
    const gone = (s: TableState) => new Set(s.changes.filter((c) => c.change === 'vanished').map((c) => c.path));
    const fresh = newPaths(objects, shape, known(st));
    const vanished = vanishedPaths(objects, shape, t, st.evolved).filter((p) => !gone(st).has(p));
    if (o.contract === 'discard') {
      const drop = st.changes.filter((c) => c.action === 'discarded').map((c) => c.path);
      for (const ob of objects) for (const p of [...drop, ...fresh.map((f) => f.path)]) dropPath(ob, p);
    }
    if (fresh.length || vanished.length) {
      await this.tx({ loadId: o.loadId, op: `schema ${t.name}` }, async (conn) => {
        st = await this.load(t.name, conn);
        const k = known(st);
        const taken = new Set([...t.columns.map((c) => c.name), ...st.evolved.map((c) => c.name)]);
        for (const f of fresh) {
          if (k.has(f.path)) continue;
          const ty = typeOf(f.example);
          const name = o.contract === 'evolve' ? columnFor(f.path, taken) : null;
          const action = o.contract === 'freeze' ? 'refused' : o.contract === 'discard' ? 'discarded' : name ? 'column' : 'raw';
          if (name) {
            taken.add(name);
            await conn.run(`ALTER TABLE ${t.name} ADD COLUMN ${name} ${ty.sql}`);
            await conn.run(backfillSql(t.name, { name, sql: ty.sql, kind: ty.kind, path: f.path }));
          }
          const refused = st.changes.some((c) => c.path === f.path && c.action === 'refused');
          if (refused)
            await conn.run(
              `UPDATE _schema_changes SET action = $3, contract = $4, column_name = $5, column_type = $6 WHERE table_name = $1 AND path = $2 AND change = 'new'`,
              [t.name, f.path, action, o.contract, name, name ? ty.sql : null],
            );
          else
            await conn.run(`INSERT INTO _schema_changes VALUES ($1, $2, 'new', $3, $4, now(), $5, $6, $7, $8, 'open', NULL)`, [
              t.name,
              f.path,
              ty.name,
              o.loadId,
              o.contract,
              action,
              name,
              name ? ty.sql : null,
            ]);
        }
        const g = gone(st);
        for (const p of vanished)
          if (!g.has(p))
            await conn.run(`INSERT INTO _schema_changes VALUES ($1, $2, 'vanished', NULL, $3, now(), $4, $5, NULL, NULL, 'open', NULL)`, [
              t.name,
              p,
              o.loadId,
              o.contract,
              o.contract === 'freeze' ? 'refused' : 'recorded',
            ]);
      });
      st = await this.load(t.name);
      if (o.contract === 'freeze')
        throw new SchemaContractError(t.name, [
          ...fresh.map((f) => ({ path: f.path, change: 'new' as const, type: typeOf(f.example).name })),
          ...vanished.map((p) => ({ path: p, change: 'vanished' as const, type: '' })),
        ]);
    }
    return { def: await this.effective(t), objects };
  }

  /** The recorded changes (`open` only, unless `all`), oldest first. */
  async list(o: { all?: boolean; table?: string } = {}): Promise<SchemaChange[]> {
    const where = [o.all ? '' : "status = 'open'", o.table ? 'table_name = $1' : ''].filter(Boolean);
    return (await this.read(
      `SELECT table_name, path, change, value_type, first_load_id, first_seen_at::VARCHAR AS first_seen_at, contract, action, column_name, column_type, status
       FROM _schema_changes ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY first_seen_at, table_name, path`,
      o.table ? [o.table] : [],
    )) as unknown as SchemaChange[];
  }

  /** Mark changes seen (`acknowledged`): of a table, or one path of it. Returns how many. */
  async acknowledge(table: string, path?: string): Promise<number> {
    return this.tx({ op: `schema ack ${table}` }, async (conn) => {
      const r = await conn.runAndReadAll(
        `UPDATE _schema_changes SET status = 'acknowledged', acknowledged_at = now() WHERE status = 'open' AND table_name = $1${path ? ' AND path = $2' : ''}`,
        path ? [table, path] : [table],
      );
      return Number((r.getRowObjectsJS()[0] as { Count?: bigint } | undefined)?.Count ?? 0);
    });
  }
}
