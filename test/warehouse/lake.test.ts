/**
 * The warehouse on DuckLake: MERGE landings are idempotent (a replayed page changes nothing, not
 * even a snapshot), children are replaced per parent, `_loads` keeps each load's snapshot,
 * `newsflow sql --at LOAD_ID` reads the lake as it was after that load, `newsflow warehouse
 * migrate` moves a single-file warehouse of before the lake with every row kept, the lake's
 * Parquet files are readable by plain `read_parquet`, and no snapshot file is ever written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { Warehouse, WAREHOUSE_FILE, SNAPSHOT_FILE } from '../../warehouse/warehouse.js';
import { ARTICLES, TABLES, type TableDef } from '../../warehouse/tables/index.js';
import { articlePage, landPage as land, stableUuid } from '../helpers/articles.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/service.js';

const count = async (w: Warehouse, sql: string) => Number((await w.query<{ n: bigint }>(sql))[0]!.n);
const snapshots = (w: Warehouse) => count(w, 'SELECT count(*) AS n FROM lake.snapshots()');
const meta = (loadId: string) => ({ loadId, pipeline: 'news_ingest', kind: 'news', workflowId: 'wf', runId: 'run', windowStart: null, windowEnd: null });
const sqlJson = async (dir: string, q: string, ...args: string[]) => {
  const r = await runCli(['sql', q, '--format', 'json', '--warehouse', dir, ...args]);
  return { ...r, rows: r.code === 0 ? (JSON.parse(r.out) as Record<string, unknown>[]) : [] };
};

describe('the warehouse lake', () => {
  it('landing the same page twice inserts 0 and updates 0 (no new snapshot); a changed row is updated once; children are replaced per article', async () => {
    const dir = tempDir('newsflow-lake-');
    const w = await Warehouse.open(dir);
    try {
      const page = articlePage(0, 20);
      expect(await land(w, page, 'L1')).toEqual({ received: 20, inserted: 20, updated: 0 });
      const before = await snapshots(w);
      const replay = await land(w, page, 'L1');
      console.log('replayed page:', replay, 'snapshots before/after:', before, await snapshots(w));
      expect(replay).toEqual({ received: 20, inserted: 0, updated: 0 });
      expect(await snapshots(w)).toBe(before);

      const retitled = articlePage(0, 20);
      retitled.rows[3] = { ...retitled.rows[3], title: 'a corrected title' };
      const upd = await land(w, retitled, 'L2');
      console.log('page with one changed title:', upd);
      expect(upd).toEqual({ received: 20, inserted: 0, updated: 1 });

      // article 3 now has one entity only, article 4 a new one in addition: both updated, their entities replaced
      const changed = articlePage(0, 20);
      changed.rows[3] = retitled.rows[3]!;
      const id3 = changed.rows[3]!.article_id as string;
      const id4 = changed.rows[4]!.article_id as string;
      changed.entities = changed.entities
        .filter((e) => e.article_id !== id3)
        .concat({ article_id: id3, type: 'person', value: 'Only One' }, { article_id: id4, type: 'location', value: 'Nowhere' });
      const kids = await land(w, changed, 'L2');
      console.log('page with changed entities of two articles:', kids);
      expect(kids).toEqual({ received: 20, inserted: 0, updated: 2 });
      expect(await land(w, changed, 'L2')).toEqual({ received: 20, inserted: 0, updated: 0 });
      expect(await count(w, 'SELECT count(*) AS n FROM articles')).toBe(20);
      expect((await w.query<{ value: string }>(`SELECT value FROM article_entities WHERE article_id = '${id3}'`)).map((r) => r.value)).toEqual(['Only One']);
      const e4 = (await w.query<{ value: string }>(`SELECT value FROM article_entities WHERE article_id = '${id4}' ORDER BY value`)).map((r) => r.value);
      expect(e4).toContain('Nowhere');
      expect(e4.length).toBe(
        new Set(
          articlePage(0, 20)
            .entities.filter((e) => e.article_id === id4)
            .map((e) => e.value),
        ).size + 1,
      );
      // no duplicate key anywhere
      expect(await count(w, 'SELECT count(*) AS n FROM (SELECT article_id FROM articles GROUP BY 1 HAVING count(*) > 1)')).toBe(0);
      expect(await count(w, 'SELECT count(*) AS n FROM (SELECT article_id, type, value FROM article_entities GROUP BY ALL HAVING count(*) > 1)')).toBe(0);
      expect(
        (await w.query<{ title: string; last_load_id: string }>(`SELECT title, last_load_id FROM v_articles WHERE article_id = '${id3}'`))[0],
      ).toMatchObject({ title: 'a corrected title', last_load_id: 'L2' });
      expect(await count(w, 'SELECT count(*) AS n FROM v_entity_mentions')).toBeGreaterThan(0);
      // each changing landing is one snapshot tagged with its load id
      const tags = await w.query<{ m: string }>(
        "SELECT commit_message AS m FROM lake.snapshots() WHERE commit_message LIKE 'land articles %' ORDER BY snapshot_id",
      );
      expect(tags.map((t) => t.m)).toEqual(['land articles L1', 'land articles L2', 'land articles L2']);
    } finally {
      w.close();
    }
    expect(fs.readdirSync(dir).filter((f) => f.includes('snapshot'))).toEqual([]);
  }, 180_000);

  it('a page of only new keys is appended (the last row of a key twice in it wins); a page of new and unchanged keys inserts only the new ones, no key twice', async () => {
    const dir = tempDir('newsflow-lake-');
    const w = await Warehouse.open(dir);
    try {
      const first = articlePage(1, 20);
      const twice: Record<string, unknown> = { ...first.rows[0]!, title: 'the later row of a key twice' };
      expect(await land(w, { ...first, rows: [...first.rows, twice] }, 'N1')).toEqual({ received: 21, inserted: 20, updated: 0 });
      expect((await w.query<{ title: string }>(`SELECT title FROM articles WHERE article_id = '${String(twice.article_id)}'`)).map((r) => r.title)).toEqual([
        'the later row of a key twice',
      ]);
      // rows 10..29: 10 landed already (unchanged but for row 0's title, which is not among them), 10 new
      const overlap = articlePage(1, 20, 10);
      expect(await land(w, overlap, 'N2')).toEqual({ received: 20, inserted: 10, updated: 0 });
      expect(await count(w, 'SELECT count(*) AS n FROM articles')).toBe(30);
      expect(await count(w, 'SELECT count(*) AS n FROM (SELECT article_id FROM articles GROUP BY 1 HAVING count(*) > 1)')).toBe(0);
      expect(await count(w, 'SELECT count(*) AS n FROM (SELECT article_id, type, value FROM article_entities GROUP BY ALL HAVING count(*) > 1)')).toBe(0);
      expect(await land(w, overlap, 'N2')).toEqual({ received: 20, inserted: 0, updated: 0 });
    } finally {
      w.close();
    }
  }, 180_000);

  it('keys another writer landed after this one last landed are known to it: landing them again inserts none (a changed one is an update), no key twice', async () => {
    const dir = tempDir('newsflow-lake-');
    const w1 = await Warehouse.open(dir);
    const w2 = await Warehouse.open(dir);
    try {
      expect(await land(w1, articlePage(7, 10), 'A1')).toEqual({ received: 10, inserted: 10, updated: 0 });
      // another writer (a second process in production) lands new keys after w1's landing
      const later = articlePage(7, 10, 10);
      expect(await land(w2, later, 'B1')).toEqual({ received: 10, inserted: 10, updated: 0 });
      const changed = articlePage(7, 10, 10);
      changed.rows[2] = { ...changed.rows[2]!, title: 'retitled by the first writer' };
      const r = await land(w1, changed, 'A2');
      console.log("first writer landing the second writer's keys (one changed):", r);
      expect(r).toEqual({ received: 10, inserted: 0, updated: 1 });
      expect(await land(w1, later, 'A3')).toEqual({ received: 10, inserted: 0, updated: 1 });
      expect(await land(w2, articlePage(7, 20), 'B2')).toEqual({ received: 20, inserted: 0, updated: 0 });
      expect(await count(w1, 'SELECT count(*) AS n FROM articles')).toBe(20);
      expect(await count(w1, 'SELECT count(*) AS n FROM (SELECT article_id FROM articles GROUP BY 1 HAVING count(*) > 1)')).toBe(0);
      expect(await count(w1, 'SELECT count(*) AS n FROM (SELECT article_id, type, value FROM article_entities GROUP BY ALL HAVING count(*) > 1)')).toBe(0);
    } finally {
      w1.close();
      w2.close();
    }
  }, 180_000);

  it('_loads keeps each load with its snapshot; `newsflow sql --at` an earlier load shows its counts; an unknown load id is a clear error', async () => {
    const dir = tempDir('newsflow-lake-');
    const w = await Warehouse.open(dir);
    const t0 = new Date();
    await land(w, articlePage(0, 30), 'load-a');
    await w.recordLoad(meta('load-a'), { received: 30, inserted: 30, updated: 0 }, t0);
    await land(w, articlePage(1, 45), 'load-b');
    await w.recordLoad(meta('load-b'), { received: 45, inserted: 45, updated: 0 }, t0);
    const loads = await w.query<{ load_id: string; snapshot_id: bigint }>('SELECT load_id, snapshot_id FROM _loads ORDER BY load_id');
    expect(loads.map((l) => l.load_id)).toEqual(['load-a', 'load-b']);
    expect(loads.every((l) => l.snapshot_id !== null)).toBe(true);
    expect(Number(loads[1]!.snapshot_id)).toBeGreaterThan(Number(loads[0]!.snapshot_id));
    // replaying a recorded load changes nothing
    const snaps = await snapshots(w);
    await w.recordLoad(meta('load-a'), { received: 30, inserted: 30, updated: 0 }, t0);
    expect(await snapshots(w)).toBe(snaps);
    expect(Number((await w.query<{ s: bigint }>("SELECT snapshot_id AS s FROM _loads WHERE load_id = 'load-a'"))[0]!.s)).toBe(Number(loads[0]!.snapshot_id));
    w.close();

    const q = 'SELECT (SELECT count(*) FROM articles) AS articles, (SELECT count(*) FROM article_entities) AS entities, (SELECT count(*) FROM _loads) AS loads';
    const [atA, atB, now] = await Promise.all([sqlJson(dir, q, '--at', 'load-a'), sqlJson(dir, q, '--at', 'load-b'), sqlJson(dir, q)]);
    console.log('--at load-a:', atA.rows[0], '--at load-b:', atB.rows[0], 'now:', now.rows[0]);
    expect([atA.code, atB.code, now.code]).toEqual([0, 0, 0]);
    expect(atA.rows[0]).toMatchObject({ articles: 30, loads: 1 });
    expect(atB.rows[0]).toMatchObject({ articles: 75, loads: 2 });
    expect(now.rows[0]).toMatchObject({ articles: 75, loads: 2 });
    expect(Number(atA.rows[0]!.entities)).toBeLessThan(Number(atB.rows[0]!.entities));

    const bad = await runCli(['sql', 'SELECT 1', '--warehouse', dir, '--at', 'no-such-load']);
    console.log('unknown load id:', bad.code, bad.err.trim());
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/unknown load id "no-such-load"/);
    expect(bad.err).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(dir, SNAPSHOT_FILE))).toBe(false);
  }, 180_000);

  it("`newsflow warehouse migrate` moves a single-file warehouse of before the lake: every table's row count and content hash equal; refused on a lake with rows unless --force; idempotent", async () => {
    // rows landed for real (through a lake), then written to an old-format file: the DDL of the
    // single-file warehouse (primary keys on merge keys), from the same table definitions
    const src = tempDir('newsflow-lake-src-');
    const w = await Warehouse.open(src);
    await land(w, articlePage(3, 40), 'old-1');
    for (const t of TABLES.filter((x) => !x.replaceBy && x !== ARTICLES)) {
      if (!t.columns.some((c) => c.name === 'row_hash')) {
        // a ledger table written with statements (alert deliveries), not landed
        await w.execMany(
          Array.from(
            { length: 7 },
            (_, i) => [`INSERT INTO ${t.name} VALUES (${t.columns.map((c) => literal(c.sql, genericRow(t, i)[c.name])).join(', ')})`] as [string],
          ),
        );
        continue;
      }
      const kids = TABLES.filter((k) => k.replaceBy && t.mergeKey.length === 1 && k.replaceBy[0] === t.mergeKey[0]);
      const rows = Array.from({ length: 7 }, (_, i) => genericRow(t, i));
      await w.land(
        t,
        rows,
        kids.map((k) => ({ table: k, rows: rows.map((r, i) => ({ ...genericRow(k, i), [k.replaceBy![0]!]: r[k.replaceBy![0]!] })) })),
        'old-1',
      );
    }
    await w.recordLoad(meta('old-1'), { received: 40, inserted: 40, updated: 0 }, new Date());
    w.close();
    const old = tempDir('newsflow-lake-old-');
    const oldFile = path.join(old, WAREHOUSE_FILE);
    {
      const inst = await DuckDBInstance.create(oldFile);
      const c = await inst.connect();
      const { loadExtensions } = await import('../../warehouse/extensions.js');
      await loadExtensions(c, ['ducklake', 'sqlite_scanner']);
      await c.run(`ATTACH 'ducklake:sqlite:${path.join(src, 'lake.sqlite')}' AS src (READ_ONLY)`);
      await c.run(`CREATE TABLE _loads (load_id VARCHAR PRIMARY KEY, pipeline VARCHAR NOT NULL, workflow_id VARCHAR, run_id VARCHAR, window_start TIMESTAMP, window_end TIMESTAMP,
        rows_received BIGINT NOT NULL, rows_inserted BIGINT NOT NULL, rows_updated BIGINT NOT NULL, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, invariants JSON)`);
      // the old file's columns by name: the lake's _loads has gained columns since (kind, snapshot_id, the API usage)
      await c.run(
        'INSERT INTO _loads SELECT load_id, pipeline, workflow_id, run_id, window_start, window_end, rows_received, rows_inserted, rows_updated, started_at, finished_at, invariants FROM src._loads',
      );
      for (const t of TABLES) {
        await c.run(
          `CREATE TABLE ${t.name} (${t.columns.map((x) => `${x.name} ${x.sql}`).join(', ')}${t.replaceBy ? '' : `, PRIMARY KEY (${t.mergeKey.join(', ')})`})`,
        );
        await c.run(`INSERT INTO ${t.name} SELECT * FROM src.${t.name}`);
      }
      await c.run('DETACH src');
      c.closeSync();
      inst.closeSync();
    }
    const LOAD_COLS = [
      'load_id',
      'pipeline',
      'workflow_id',
      'run_id',
      'window_start',
      'window_end',
      'rows_received',
      'rows_inserted',
      'rows_updated',
      'started_at',
      'finished_at',
      'invariants',
    ];
    /** per table: row count and md5 of its rows in key order (the old file's columns) */
    const hashes = async (attach: string) => {
      const inst = await DuckDBInstance.create(':memory:');
      const c = await inst.connect();
      const { loadExtensions } = await import('../../warehouse/extensions.js');
      await loadExtensions(c, ['ducklake', 'sqlite_scanner']);
      await c.run(`ATTACH '${attach}' AS x (READ_ONLY)`);
      const out: Record<string, string> = {};
      for (const [name, cols] of [...TABLES.map((t) => [t.name, t.columns.map((x) => x.name)] as const), ['_loads', LOAD_COLS] as const]) {
        const r = (
          await c.runAndReadAll(
            `SELECT count(*) AS n, md5(coalesce(string_agg(r, chr(10) ORDER BY r), '')) AS h FROM (SELECT (row(${cols.join(', ')}))::VARCHAR AS r FROM x.${name})`,
          )
        ).getRowObjectsJS()[0]!;
        out[name] = `${r.n}:${r.h}`;
      }
      c.closeSync();
      inst.closeSync();
      return out;
    };
    const before = await hashes(oldFile);

    const dst = tempDir('newsflow-lake-dst-');
    fs.copyFileSync(oldFile, path.join(dst, WAREHOUSE_FILE));
    fs.writeFileSync(path.join(dst, SNAPSHOT_FILE), 'the read copy of before the lake');
    const first = await runCli(['warehouse', 'migrate', '--warehouse', dst]);
    console.log('warehouse migrate:\n' + first.out.trim());
    expect(first.code).toBe(0);
    const after = await hashes(`ducklake:sqlite:${path.join(dst, 'lake.sqlite')}`);
    console.log(
      'per table (rows:md5) before/after equal:',
      Object.entries(before)
        .map(([t, v]) => `${t}=${v.split(':')[0]}`)
        .join(' '),
    );
    expect(after).toEqual(before);
    expect(Object.values(before).filter((v) => !v.startsWith('0:')).length).toBe(TABLES.length + 1);
    expect(fs.existsSync(path.join(dst, SNAPSHOT_FILE))).toBe(false);

    const again = await runCli(['warehouse', 'migrate', '--warehouse', dst]);
    expect(again.code).not.toBe(0);
    expect(again.err).toMatch(/holds \d+ rows already; pass --force/);
    const forced = await runCli(['warehouse', 'migrate', '--warehouse', dst, '--force']);
    expect(forced.code).toBe(0);
    expect(await hashes(`ducklake:sqlite:${path.join(dst, 'lake.sqlite')}`)).toEqual(before);

    const empty = tempDir('newsflow-lake-none-');
    const none = await runCli(['warehouse', 'migrate', '--warehouse', empty]);
    expect(none.code).not.toBe(0);
    expect(none.err).toMatch(/nothing to migrate/);
  }, 240_000);

  it("the lake's data files are plain Parquet: read_parquet in any DuckDB reads the articles once maintenance flushed the small landing", async () => {
    const dir = tempDir('newsflow-lake-');
    const w = await Warehouse.open(dir);
    await land(w, articlePage(5, 50), 'pq');
    const glob = path.join(dir, 'lake', 'main', 'articles', '**', '*.parquet');
    // 50 rows are under the inlining limit: in the catalog, no file yet
    const parquet = () => {
      const d = path.join(dir, 'lake', 'main', 'articles');
      return fs.existsSync(d) ? fs.readdirSync(d, { recursive: true }).filter((f) => String(f).endsWith('.parquet')) : [];
    };
    expect(parquet()).toEqual([]);
    await w.maintain();
    w.close();
    expect(parquet()).toHaveLength(1);
    // the example of docs/warehouse.md, "Reading"
    const inst = await DuckDBInstance.create(':memory:');
    const c = await inst.connect();
    const [r] = (await c.runAndReadAll(`SELECT count(*) AS n, count(DISTINCT article_id) AS ids FROM read_parquet('${glob}')`)).getRowObjectsJS();
    console.log('read_parquet articles:', r);
    expect(Number(r!.n)).toBe(50);
    expect(Number(r!.ids)).toBe(50);
    c.closeSync();
    inst.closeSync();
  }, 120_000);

  it('a warehouse folder copied elsewhere reads and lands where it now is, leaving the original alone; an explicit data path the catalog was not made with is one line naming the right one', async () => {
    const dir = tempDir('newsflow-lake-');
    const w = await Warehouse.open(dir);
    await land(w, articlePage(0, 10), 'orig');
    w.close();
    const copy = path.join(tempDir('newsflow-lake-copy-'), 'moved');
    fs.cpSync(dir, copy, { recursive: true });
    const read = await sqlJson(copy, 'SELECT count(*)::INTEGER AS n FROM articles');
    expect(read.err).toBe('');
    expect(read.rows).toEqual([{ n: 10 }]);
    const wc = await Warehouse.open(copy);
    await land(wc, articlePage(10, 5), 'in-copy');
    wc.close();
    expect((await sqlJson(copy, 'SELECT count(*)::INTEGER AS n FROM articles')).rows).toEqual([{ n: 15 }]);
    expect((await sqlJson(dir, 'SELECT count(*)::INTEGER AS n FROM articles')).rows).toEqual([{ n: 10 }]);

    const elsewhere = path.join(tempDir('newsflow-lake-data-'), 'files');
    const wrong = await runCli(['sql', 'SELECT 1', '--warehouse', dir], { NEWSFLOW_LAKE_DATA: elsewhere });
    console.log('explicit data path the catalog was not made with:', wrong.err.trim());
    expect(wrong.code).toBe(1);
    expect(wrong.err.trim().split('\n')).toHaveLength(1);
    expect(wrong.err).toContain(`keeps its files at ${path.join(dir, 'lake')}${path.sep}`);
    expect(wrong.err).toContain('set warehouse.data (NEWSFLOW_LAKE_DATA)');
    expect(wrong.err).not.toMatch(/unexpected/);
  }, 120_000);
});

const literal = (sql: string, v: unknown): string =>
  v === null || v === undefined
    ? 'NULL'
    : sql === 'TIMESTAMP'
      ? `make_timestamp(${v}::BIGINT)`
      : sql === 'VARCHAR[]'
        ? `[${(v as string[]).map((x) => `'${x}'`).join(', ')}]`
        : typeof v === 'string'
          ? `'${v.replaceAll("'", "''")}'::${sql}`
          : String(v);

/** A row for any table definition, deterministic from `i`. */
function genericRow(t: TableDef, i: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of t.columns) {
    row[c.name] =
      c.sql === 'UUID'
        ? stableUuid(`${t.name}/${c.name}/${i}`)
        : c.sql === 'TIMESTAMP'
          ? (Date.parse('2026-02-01T00:00:00Z') + i * 3_600_000) * 1000
          : c.sql === 'INTEGER' || c.sql === 'BIGINT'
            ? i
            : c.sql === 'DOUBLE'
              ? i / 4
              : c.sql === 'BOOLEAN'
                ? i % 2 === 0
                : c.sql === 'JSON'
                  ? JSON.stringify({ i, t: t.name })
                  : c.sql === 'VARCHAR[]'
                    ? [`a${i}`, `b${i}`]
                    : `${c.name}-${i}`;
  }
  return row;
}
