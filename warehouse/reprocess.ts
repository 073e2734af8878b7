/**
 * `newsflow reprocess TABLE`: a landed table's columns and child tables rebuilt from the `raw` each
 * row kept, by the table's row mapper (`TableDef.fromRaw`, the one the landing activity runs), with
 * no API request. Batches of rows in merge-key order, each landed as a fresh ingest lands it (one
 * lake transaction, one snapshot; a row whose rebuilt content hashes the same is left as it was),
 * then one `_loads` row (kind `reprocess`) whose snapshot `newsflow sql --at` reads.
 */
import crypto from 'node:crypto';
import type { Warehouse } from './warehouse.js';
import type { Column, TableDef } from './tables/table-def.js';
import { TABLES_BY_NAME } from './tables/index.js';

export interface ReprocessOptions {
  /** rows whose month column (e.g. articles.pub_date) is at or after this */
  from?: Date;
  /** ... and before this */
  to?: Date;
  /** rows a named pipeline landed (articles: pipeline_articles; other tables: the loads of that pipeline) */
  pipeline?: string;
  /** rows per batch (one snapshot each); default 500 */
  batch?: number;
  /** the reprocess run's load id (default: a new one) */
  loadId?: string;
}
export interface ReprocessResult {
  loadId: string;
  table: string;
  /** rows read */
  rows: number;
  /** rows whose rebuilt content differed: rewritten */
  updated: number;
  /** rows without `raw` (landed before it was kept): left as they are */
  withoutRaw: number;
  batches: number;
}

export class ReprocessError extends Error {}

/** The tables `reprocess` can rebuild: the ones with a row mapper from `raw`. */
export const reprocessable = () => Object.values(TABLES_BY_NAME).filter((t) => t.fromRaw && t.columns.some((c) => c.name === 'raw'));

/** a column as the stager takes it: timestamps as epoch micros, UUID and JSON as text */
const staged = (c: Column) =>
  c.sql === 'TIMESTAMP' ? `epoch_us(${c.name}) AS ${c.name}` : c.sql === 'UUID' || c.sql === 'JSON' ? `${c.name}::VARCHAR AS ${c.name}` : c.name;

export async function reprocess(w: Warehouse, tableName: string, o: ReprocessOptions = {}): Promise<ReprocessResult> {
  const t: TableDef | undefined = TABLES_BY_NAME[tableName];
  if (!t?.fromRaw || !t.columns.some((c) => c.name === 'raw'))
    throw new ReprocessError(
      `table "${tableName}" cannot be reprocessed: it keeps no raw response; use one of ${reprocessable()
        .map((x) => x.name)
        .join(', ')}`,
    );
  const def = await w.effectiveDef(t);
  const loadId = o.loadId ?? `reprocess-${t.name}-${crypto.randomUUID()}`;
  const size = o.batch ?? 500;
  const where: string[] = [];
  const params: unknown[] = [];
  if ((o.from || o.to) && !t.monthColumn) throw new ReprocessError(`table ${t.name} has no time column: --from/--to do not apply`);
  if (o.from) where.push(`${t.monthColumn} >= make_timestamp($${params.push(o.from.getTime() * 1000)}::BIGINT)`);
  if (o.to) where.push(`${t.monthColumn} < make_timestamp($${params.push(o.to.getTime() * 1000)}::BIGINT)`);
  if (o.pipeline) {
    const p = `$${params.push(o.pipeline)}`;
    where.push(
      t.name === 'articles'
        ? `article_id IN (SELECT article_id FROM pipeline_articles WHERE pipeline = ${p})`
        : `${t.columns.some((c) => c.name === 'last_load_id') ? 'last_load_id' : 'load_id'} IN (SELECT load_id FROM _loads WHERE pipeline = ${p})`,
    );
  }
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const startedAt = new Date();
  const res: ReprocessResult = { loadId, table: t.name, rows: 0, updated: 0, withoutRaw: 0, batches: 0 };
  for (let offset = 0; ; offset += size) {
    const rows = await w.query<Record<string, unknown>>(
      `SELECT ${def.columns.map(staged).join(', ')} FROM ${t.name} ${filter} ORDER BY ${t.mergeKey.join(', ')} LIMIT ${size} OFFSET ${offset}`,
      params,
    );
    if (!rows.length) break;
    res.rows += rows.length;
    const out: Record<string, unknown>[] = [];
    const kids = new Map<TableDef, Record<string, unknown>[]>();
    for (const r of rows) {
      if (typeof r.raw !== 'string') {
        res.withoutRaw++;
        continue;
      }
      const { row_hash: _h, last_load_id: _l, ...landed } = r;
      const m = t.fromRaw(JSON.parse(r.raw), landed);
      out.push(m.row);
      for (const ch of m.children ?? []) {
        const list = kids.get(ch.table) ?? kids.set(ch.table, []).get(ch.table)!;
        for (const x of ch.rows) list.push(x);
      }
    }
    if (!out.length) continue;
    // the child tables a fresh ingest lands, every one of them (a parent without children replaces them with none)
    const children = [...kids].map(([table, rows]) => ({ table, rows }));
    const counts = await w.land(def, w.withEvolved(def, out), children, loadId);
    res.updated += counts.updated + counts.inserted;
    res.batches++;
  }
  await w.recordLoad(
    { loadId, pipeline: o.pipeline ?? 'reprocess', kind: 'reprocess', workflowId: null, runId: null, windowStart: o.from ?? null, windowEnd: o.to ?? null },
    { received: res.rows, inserted: 0, updated: res.updated },
    startedAt,
    { table: t.name, without_raw: res.withoutRaw, batches: res.batches },
  );
  return res;
}
