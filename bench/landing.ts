/**
 * Landing into the warehouse lake:
 * - one 100-row page of articles (with entities, keywords, categories; MERGE + children) at a
 *   ~2 MB lake and at a >= 2 GB lake (the two taking turns, median of 21 each after a warm-up,
 *   whose time is printed too: a process's first landing into a table reads its keys once),
 *   goal: the second within 1.2x of the first;
 * - bulk landing of 1M wide rows (articles with their entities, pages of 50,000 through
 *   `Warehouse.land`, the next page landed before the previous one resolved, as a bulk caller
 *   does: its rows are staged while the lake writes the previous page) against the lake's own
 *   INSERT of the same pages already staged in DuckDB (no JS), in the same run (the two taking
 *   turns in 4 blocks of pages): goal landing within 1.5x of it; the appender
 *   staging alone (the rows into DuckDB, no hash, no lake) is printed beside them, and the CPU
 *   time of a page each way (all threads of the process: on a machine whose cores are all busy
 *   the rates follow it), with the parts of landing's own: `stage`, `hash` (the JS row hash
 *   alone) and `insert`, the rest being landing's key reads, change check and commit; and row-by-row INSERT statements (one statement per row, in one
 *   transaction): goal bulk >= 20x of it.
 * The bulk pages are generated once (3 pages) and landed again and again under new keys (the
 *   first 8 hex digits of each article id replaced by the page's number), so the timed loop does
 *   not generate rows.
 * The >= 2 GB lake is built once (SQL-generated articles and entities with incompressible text)
 * and cached under ~/.cache/newsflow/bench (NEWSFLOW_BENCH_CACHE), keyed by LAKE_VERSION.
 * Sizes: NEWSFLOW_BENCH_LAKE_GB (default 2), NEWSFLOW_BENCH_BULK_ROWS (default 1,000,000).
 * Prints the 1-minute load average at the start of each part (the machine may be shared).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../warehouse/warehouse.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS } from '../warehouse/tables/index.js';
import { articlePage, landPage as land, pageChildren, type ArticlePage } from '../test/helpers/articles.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { stageRows } from '../lib/duckdb/stage.js';
import { hashedColumns, rowHashes } from '../warehouse/row-hash.js';
import { attachLake } from '../warehouse/lake.js';
import { createTable, moveExpr } from '../warehouse/warehouse.js';

const LAKE_VERSION = 1;
const GB = 1024 ** 3;

function duBytes(p: string): number {
  let n = 0;
  for (const e of fs.readdirSync(p, { withFileTypes: true })) {
    const f = path.join(p, e.name);
    n += e.isDirectory() ? duBytes(f) : fs.statSync(f).size;
  }
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * ms per 100-row page landing (new articles each time) into each lake, the lakes taking turns
 * (small, big, small, ...: both medians see the same moments of a shared machine), median of `n`
 * each after one warm-up (the first landing of a process reads the table's keys once, for its
 * key filter: `first`).
 */
async function pageMs(lakes: { w: Warehouse; day: number }[], n = 21): Promise<{ median: number; first: number }[]> {
  const times: number[][] = lakes.map(() => []);
  for (let i = 0; i <= n; i++) {
    for (const [k, { w, day }] of lakes.entries()) {
      const p = articlePage(day, 100, i * 100);
      const t = performance.now();
      await land(w, p, `bench-page-${day}-${i}`);
      times[k]!.push(performance.now() - t);
    }
  }
  return times.map((ts) => ({ median: median(ts.slice(1)), first: ts[0]! }));
}

/** The cached >= `gb` GB lake: articles (random 1 KB raw) and 4 entities each, generated in SQL. */
async function bigLake(gb: number): Promise<string> {
  const root = process.env.NEWSFLOW_BENCH_CACHE ?? path.join(os.homedir(), '.cache', 'newsflow', 'bench');
  const dir = path.join(root, `lake-v${LAKE_VERSION}-${gb}gb`);
  if (fs.existsSync(path.join(dir, 'ready'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  const w = await Warehouse.open(dir);
  const chunk = 250_000;
  for (let from = 0; duBytes(dir) < gb * GB; from += chunk) {
    const m = `md5('big-' || i)`;
    const id = `(substr(${m}, 1, 8) || '-' || substr(${m}, 9, 4) || '-4' || substr(${m}, 14, 3) || '-8' || substr(${m}, 18, 3) || '-' || substr(${m}, 21, 12))::UUID`;
    await w.execMany([
      [
        `INSERT INTO articles SELECT ${id}, 'https://big-' || (i % 997) || '.example/' || i, 'big-' || (i % 997) || '.example', 'src-' || (i % 997),
          'title ' || md5(i::VARCHAR), repeat(md5((i * 7)::VARCHAR), 6), 'en', make_timestamp((1600000000 + i * 60)::BIGINT * 1000000), make_timestamp((1600000600 + i * 60)::BIGINT * 1000000),
          'GB', 'Europe', (i % 5) - 2, 'low', 'Objective', 'article', 'center', i % 10,
          to_json({i: i, body: repeat(md5((i * 13)::VARCHAR) || md5((i * 17)::VARCHAR), 16)}), md5((i * 3)::VARCHAR), 'bench-big'
        FROM range(${from}, ${from + chunk}) t(i)`,
      ],
      [
        `INSERT INTO article_entities SELECT ${id}, e.type, e.type || '-' || (hash(i, e.type) % 5000)
        FROM range(${from}, ${from + chunk}) t(i), (VALUES ('person'), ('organization'), ('location'), ('event')) e(type)`,
      ],
    ]);
    process.stderr.write(`landing bench: big lake ${(duBytes(dir) / GB).toFixed(2)} GB\n`);
  }
  w.close();
  fs.writeFileSync(path.join(dir, 'ready'), `${new Date().toISOString()}\n`);
  return dir;
}

/** CPU milliseconds of this process (every thread: JS and DuckDB's) since `from` */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1000;
};

/**
 * The bulk pages: `POOL` pages of `per` articles generated once; `next(b)` gives one of them with
 * the article ids of page `b` (the first 8 hex digits replaced by `b`, the children's too), ready
 * to land as new keys. A page is handed out again only `POOL` pages later (the caller keeps fewer
 * in flight).
 */
const POOL = 3;
/** the bulk landing and the lake's INSERT take turns in this many blocks */
const BLOCKS = 4;
function bulkPages(per: number) {
  const pool = Array.from({ length: POOL }, (_, k) => articlePage(4000, per, k * per));
  const base = pool.map((p) => {
    const at = new Map(p.rows.map((r, i) => [r.article_id as string, i]));
    return {
      tails: p.rows.map((r) => (r.article_id as string).slice(8)),
      parents: [p.entities, p.keywords, p.classes].map((rows) => Int32Array.from(rows, (r) => at.get(r.article_id as string)!)),
    };
  });
  return {
    pool,
    next(b: number): ArticlePage {
      const p = pool[b % POOL]!;
      const { tails, parents } = base[b % POOL]!;
      const head = b.toString(16).padStart(8, '0');
      const ids = tails.map((t) => head + t);
      p.rows.forEach((r, i) => (r.article_id = ids[i]));
      [p.entities, p.keywords, p.classes].forEach((rows, k) => {
        const of = parents[k]!;
        for (let i = 0; i < rows.length; i++) rows[i]!.article_id = ids[of[i]!];
      });
      return p;
    },
  };
}

/**
 * The lake's own INSERT of bulk pages already in DuckDB (no JS), a lake of its own: `pages(n)`
 * stages `n` pool pages as `land` stages them (their row hashes, timed apart: `hashCpu`; a load id;
 * the appender, timed apart: `stage`), each then copied into the lake's tables in one transaction
 * (`insert`). Time and CPU ms of each half in `t`.
 */
async function openLakeInsert(dir: string, pool: ArticlePage[]) {
  const inst = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const conn = await inst.connect();
  // staging on a connection of its own (its default database is the in-memory one), as `land` does
  const st = await inst.connect();
  const close = () => {
    st.closeSync();
    conn.closeSync();
    inst.closeSync();
  };
  const tables = [ARTICLES, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, ARTICLE_CLASSIFICATIONS];
  try {
    await attachLake(conn, { dir });
    for (const t of tables) await conn.run(createTable(t));
  } catch (e) {
    close();
    throw e;
  }
  const t = { hashCpu: 0, stageMs: 0, stageCpu: 0, insertMs: 0, insertCpu: 0, rows: 0, pages: 0 };
  const pages = async (n: number) => {
    for (let k = 0; k < n; k++, t.pages++) {
      const p = pool[t.pages % pool.length]!;
      const h0 = process.cpuUsage();
      const hashes = rowHashes(
        hashedColumns(ARTICLES),
        p.rows,
        pageChildren(p).map((c) => ({ ...c, key: 'article_id' })),
      );
      t.hashCpu += cpuMs(h0);
      const rows = [p.rows, p.entities, p.keywords, p.classes];
      let t0 = performance.now();
      let c0 = process.cpuUsage();
      for (const [i, table] of tables.entries()) {
        const value: Parameters<typeof stageRows>[4] = i === 0 ? { row_hash: (_, j) => hashes[j], last_load_id: () => 'insert' } : {};
        await stageRows(st, `h_${table.name}`, table.columns, rows[i]!, value);
      }
      t.stageMs += performance.now() - t0;
      t.stageCpu += cpuMs(c0);
      t0 = performance.now();
      c0 = process.cpuUsage();
      await conn.run('BEGIN TRANSACTION');
      for (const table of tables) {
        await conn.run(`INSERT INTO ${table.name} SELECT ${table.columns.map((c) => moveExpr(c)).join(', ')} FROM memory.main.h_${table.name} s`);
      }
      await conn.run('COMMIT');
      t.insertMs += performance.now() - t0;
      t.insertCpu += cpuMs(c0);
      t.rows += p.rows.length;
    }
  };
  return { t, pages, close };
}

export async function benchLanding() {
  const gb = Number(process.env.NEWSFLOW_BENCH_LAKE_GB ?? 2);
  const bulkRows = Number(process.env.NEWSFLOW_BENCH_BULK_ROWS ?? 1_000_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-landing-'));
  const load = { start: os.loadavg()[0]!, big: 0, bulk: 0, rbr: 0 };
  try {
    // a ~2 MB lake
    const smallDir = path.join(tmp, 'small');
    const small = await Warehouse.open(smallDir);
    for (let d = 0; duBytes(smallDir) < 2 * 1024 ** 2; d++) await land(small, articlePage(1000 + d, 500), `bench-small-${d}`);
    const smallMb = duBytes(smallDir) / 1024 ** 2;

    // the >= 2 GB lake; a 100-row page into each, taking turns
    const bigDir = await bigLake(gb);
    load.big = os.loadavg()[0]!;
    const big = await Warehouse.open(bigDir);
    const bigGb = duBytes(bigDir) / GB;
    const [pSmall, pBig] = await pageMs([
      { w: small, day: 2000 },
      { w: big, day: 3000 + (Math.floor(Date.now() / 1000) % 100_000) },
    ]);
    small.close();
    big.close();
    const [msSmall, msBig, msBigFirst] = [pSmall!.median, pBig!.median, pBig!.first];

    // bulk: pages of 50,000 articles with their children through land(), two in flight, and the
    // lake's own INSERT of the same pages, taking turns by blocks (both see the same moments of a
    // shared machine; each landing block starts and ends with a page not overlapped)
    load.bulk = os.loadavg()[0]!;
    const per = Math.min(50_000, bulkRows);
    const pages = Math.ceil(bulkRows / per);
    const blocks = Math.min(BLOCKS, pages);
    const bp = bulkPages(per);
    const insert = await openLakeInsert(path.join(tmp, 'insert'), bp.pool);
    const bulk = await Warehouse.open(path.join(tmp, 'bulk'));
    const landing = { ms: 0, cpu: 0, entities: 0 };
    try {
      for (let b = 0, block = 0; block < blocks; block++) {
        const upTo = Math.round((pages * (block + 1)) / blocks);
        await insert.pages(upTo - b);
        const inFlight: Promise<unknown>[] = [];
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        for (; b < upTo; b++) {
          if (inFlight.length === 2) await inFlight.shift();
          const p = bp.next(b + 1);
          landing.entities += p.entities.length;
          inFlight.push(land(bulk, p, `bench-bulk-${b}`));
        }
        await Promise.all(inFlight);
        landing.ms += performance.now() - t0;
        landing.cpu += cpuMs(c0);
      }
    } finally {
      insert.close();
    }
    const landed = Number((await bulk.query<{ n: bigint }>('SELECT count(*) AS n FROM articles'))[0]!.n);
    bulk.close();
    const bulkRate = (pages * per) / (landing.ms / 1000);
    const ins = insert.t;
    const insertRate = ins.rows / (ins.insertMs / 1000);

    // row by row: one INSERT statement per article (and per entity), in one transaction
    load.rbr = os.loadavg()[0]!;
    const rbr = await Warehouse.open(path.join(tmp, 'rbr'));
    const n = 500;
    const p = articlePage(5000, n);
    const lit = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);
    const stmts: [string][] = [];
    for (const r of p.rows) {
      stmts.push([
        `INSERT INTO articles VALUES (${ARTICLES.columns.map((c) => (c.sql === 'TIMESTAMP' ? `make_timestamp(${lit(r[c.name])}::BIGINT)` : c.name === 'row_hash' ? "'h'" : c.name === 'last_load_id' ? "'rbr'" : `${lit(r[c.name])}::${c.sql}`)).join(', ')})`,
      ]);
      for (const e of p.entities.filter((x) => x.article_id === r.article_id))
        stmts.push([`INSERT INTO article_entities VALUES (${lit(e.article_id)}::UUID, ${lit(e.type)}, ${lit(e.value)})`]);
    }
    const t = performance.now();
    await rbr.execMany(stmts);
    const rbrRate = n / ((performance.now() - t) / 1000);
    rbr.close();

    return {
      bench: 'landing',
      small_lake_mb: +smallMb.toFixed(2),
      page_100_ms_small: +msSmall.toFixed(1),
      big_lake_gb: +bigGb.toFixed(2),
      page_100_ms_big: +msBig.toFixed(1),
      page_100_ms_big_first: +msBigFirst.toFixed(1),
      page_ratio_big_vs_small: +(msBig / msSmall).toFixed(2),
      page_goal: '<= 1.2x',
      bulk_rows: pages * per,
      bulk_rows_landed: landed,
      bulk_entities: landing.entities,
      bulk_page_rows: per,
      bulk_rows_per_s: Math.round(bulkRate),
      bulk_lake_insert_only_rows_per_s: Math.round(insertRate),
      bulk_insert_vs_landing: +(insertRate / bulkRate).toFixed(2),
      bulk_insert_goal: 'landing within 1.5x of the INSERT',
      bulk_stage_only_rows_per_s: Math.round(ins.rows / (ins.stageMs / 1000)),
      bulk_cpu_ms_per_page: {
        landing: Math.round(landing.cpu / pages),
        insert: Math.round(ins.insertCpu / ins.pages),
        stage: Math.round(ins.stageCpu / ins.pages),
        hash: Math.round(ins.hashCpu / ins.pages),
      },
      row_by_row_rows_per_s: Math.round(rbrRate),
      bulk_vs_row_by_row: +(bulkRate / rbrRate).toFixed(1),
      bulk_goal: '>= 150000 rows/s and >= 20x',
      load_avg_1m: { start: +load.start.toFixed(2), big_pages: +load.big.toFixed(2), bulk: +load.bulk.toFixed(2), row_by_row: +load.rbr.toFixed(2) },
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchLanding()));
