/**
 * Where the row hash of a landed batch costs least: in JS (`rowHashes`, row hash v2, what
 * `warehouse/land.ts` computes before staging) or in DuckDB over the staged tables (SQL over the
 * same content: each hashed column encoded by its staged kind, self-delimiting, and each child
 * table's rows of a parent as a sorted set, as v2 does; md5, one of DuckDB's hashes whose output
 * does not depend on its version, unlike `hash()`). One page of 50,000 articles with their
 * entities, keywords and categories (the bulk page of bench/landing.ts), staged once; each way
 * timed `REPS` times, the median printed as CPU ms of the process (all threads: DuckDB's too) and
 * wall ms. The appender staging of the same page is printed beside them for scale. The SQL
 * variants are: parent only (no children), and the full hash written into the staged table's
 * `row_hash` (what landing would need). Prints the 1-minute load average (the machine may be shared).
 */
import os from 'node:os';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { stageRows } from '../lib/duckdb/stage.js';
import { hashedColumns, rowHashes } from '../warehouse/row-hash.js';
import { ARTICLES } from '../warehouse/tables/index.js';
import type { Column } from '../warehouse/tables/table-def.js';
import { articlePage, pageChildren } from '../test/helpers/articles.js';
import { pct, round } from './stats.js';

const REPS = 5;
const ROWS = Number(process.env.NEWSFLOW_BENCH_HASH_ROWS ?? 50_000);

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** A staged value, self-delimiting: its kind's tag, the byte length of text, `N` for NULL. */
function sqlEnc(c: Column, alias: string): string {
  const x = `${alias}.${c.name}`;
  const text = c.kind === 'varchar' ? x : `${x}::VARCHAR`;
  return `CASE WHEN ${x} IS NULL THEN 'N' ELSE concat('${c.kind === 'varchar' ? 's' : 'n'}', strlen(${text}), ':', ${text}) END`;
}
const rowEnc = (cols: Column[], alias: string) => `concat(${cols.map((c) => sqlEnc(c, alias)).join(', ')})`;

export async function benchRowHashWhere() {
  const load = os.loadavg()[0]!;
  const page = articlePage(4000, ROWS);
  const kids = pageChildren(page).map((c) => ({ ...c, key: 'article_id' }));
  const hashed = hashedColumns(ARTICLES);
  const inst = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const st: DuckDBConnection = await inst.connect();
  try {
    const times: Record<string, { cpu: number[]; ms: number[] }> = {};
    const timed = async (label: string, fn: () => unknown) => {
      const c0 = cpuNow();
      const t0 = performance.now();
      await fn();
      const t = (times[label] ??= { cpu: [], ms: [] });
      t.cpu.push(cpuNow() - c0);
      t.ms.push(performance.now() - t0);
    };
    const pcols = ARTICLES.columns.filter((c) => hashed.includes(c.name));
    // per child table: each parent's child rows (without the parent key) as a sorted set, as `#n:` + their encodings
    const sets = kids.map(({ table }, i) => {
      const cols = table.columns.filter((c) => c.name !== 'article_id');
      return `k${i} AS (SELECT k, concat('#', len(l), ':', array_to_string(l, '')) AS e FROM (
        SELECT c.article_id AS k, list_sort(list_distinct(list(${rowEnc(cols, 'c')}))) AS l FROM h_${table.name} c GROUP BY ALL))`;
    });
    const full = `WITH ${sets.join(', ')} SELECT s.rowid AS r, 'v3:' || md5(concat(${rowEnc(pcols, 's')}, ${kids.map((_, i) => `coalesce(k${i}.e, '#0:')`).join(', ')})) AS h
      FROM h_articles s ${kids.map((_, i) => `LEFT JOIN k${i} ON k${i}.k = s.article_id`).join(' ')}`;
    for (let rep = 0; rep < REPS; rep++) {
      await timed('js_v2', () => rowHashes(hashed, page.rows, kids));
      await timed('stage_appender', async () => {
        await stageRows(st, 'h_articles', ARTICLES.columns, page.rows, { last_load_id: () => 'bench' });
        for (const k of kids) await stageRows(st, `h_${k.table.name}`, k.table.columns, k.rows);
      });
      await timed('sql_md5_parent_only', () => st.runAndReadAll(`SELECT sum(strlen(md5(${rowEnc(pcols, 's')}))) FROM h_articles s`));
      await timed('sql_md5_full_into_staged', () => st.run(`UPDATE h_articles SET row_hash = h.h FROM (${full}) h WHERE h_articles.rowid = h.r`));
    }
    const unhashed = Number((await st.runAndReadAll('SELECT count(*) FROM h_articles WHERE row_hash IS NULL')).getRows()[0]![0]);
    if (unhashed > 0) throw new Error(`row-hash-where: ${unhashed} staged rows without a SQL hash`);
    return {
      bench: 'row_hash_where',
      rows: ROWS,
      child_rows: kids.reduce((n, k) => n + k.rows.length, 0),
      reps: REPS,
      median_cpu_ms: Object.fromEntries(Object.entries(times).map(([k, t]) => [k, round(pct(t.cpu, 50), 0)])),
      median_wall_ms: Object.fromEntries(Object.entries(times).map(([k, t]) => [k, round(pct(t.ms, 50), 0)])),
      load_avg_1m: { start: round(load, 2), end: round(os.loadavg()[0]!, 2) },
    };
  } finally {
    st.closeSync();
    inst.closeSync();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchRowHashWhere()));
