/**
 * Day 100 of the warehouse (issue #31): the starter file's pipelines compressed into one run,
 * landed through `Warehouse.land` (no Temporal), into two lakes that take the same pages in turn:
 * one maintained daily (`Warehouse.maintain`, retention 7 bench days), one never. Per bench day:
 * - each named news pipeline (ukraine, covid) runs `NEWSFLOW_BENCH_RUNS_PER_DAY` times (default 1;
 *   production runs them every 15 and 30 minutes, so a bench day is a compressed day): a page of
 *   40 real articles of the shared corpus (headlines-2022) with entities, keywords, categories and
 *   pipeline_articles, a quarter of them updates of the previous run's articles (an overlapping
 *   window);
 * - stories (hourly in production: one run a day here), 5 tracked stories updated, their updates,
 *   update articles and metrics; index counts (24 hourly buckets); alert logs; a feed source's
 *   poll and items.
 * Each run is one landing per table and one `_loads` row, as the workflows write them.
 * At days 1, 10, 30 and 100 it prints, per lake and for the reference layout (the on-lake's rows
 * bulk-loaded into a fresh lake, one statement per table): live files (total, most in a table),
 * snapshots, catalog size, the median ms to land a news page (that day and the two before; each
 * pipeline's first page lands before day 1, unmeasured, so every measured page has updates), and three analyst queries
 * (a count, a group-by domain, an entity join; best of 10 on a fresh reader of each lake after one
 * warm-up, the three lakes in turn each round).
 * Goals: with maintenance at day 100 the queries within 1.25x of the reference and landing within
 * 1.25x of day 1, files per table bounded (1 after a run, while a table is under the target file
 * size: its files with deletes are rewritten, the rest merged), the catalog growing with the data
 * not the loads, and the day-100 maintenance run under a minute. Snapshots are kept for 7 bench
 * days (the retention scaled to the compressed clock), so the catalog holds what day 100 holds.
 * Sizes: NEWSFLOW_BENCH_DAYS (default 100), NEWSFLOW_BENCH_RUNS_PER_DAY (default 1), NEWSFLOW_BENCH_INLINE
 * (DuckLake's data_inlining_row_limit of both lakes; default: the lake's), NEWSFLOW_BENCH_KEEP=1 keeps the lakes (for `newsflow warehouse maintain` on them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../warehouse/warehouse.js';
import { openLake } from '../warehouse/lake.js';
import { lakeLayout, type TableLayout } from '../warehouse/maintain.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, TABLES, type TableDef } from '../warehouse/tables/index.js';
import { PIPELINE_ARTICLES } from '../warehouse/tables/pipelines.js';
import { STORIES, STORY_METRICS, STORY_UPDATES, UPDATE_ARTICLES } from '../warehouse/tables/stories.js';
import { INDEX_COUNTS } from '../warehouse/tables/index-counts.js';
import { ALERT_LOGS } from '../warehouse/tables/alerts.js';
import { SOURCE_ITEMS, SOURCE_POLLS } from '../warehouse/tables/feeds.js';
import { CORPUS_FILES, readHeadlines, type RawArticle } from '../service/corpus/read.js';
import { sharedDir } from '../test/helpers/paths.js';
import { stableUuid } from '../test/helpers/articles.js';
import { loadAvg1m } from './results.js';

const DAYS = Number(process.env.NEWSFLOW_BENCH_DAYS ?? 100);
const RUNS = Number(process.env.NEWSFLOW_BENCH_RUNS_PER_DAY ?? 1);
const MARKS = [...new Set([1, 10, 30, 100, DAYS])].filter((d) => d <= DAYS);
/** NEWSFLOW_BENCH_INLINE: DuckLake's data_inlining_row_limit for both lakes (unset: the lake's default) */
const INLINE = process.env.NEWSFLOW_BENCH_INLINE ? Number(process.env.NEWSFLOW_BENCH_INLINE) : null;
const PAGE = 40;
const UPDATES = 10;
const NEWS = ['ukraine', 'covid'];
const T0 = Date.parse('2026-01-01T00:00:00Z');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/**
 * The ms to land a news page at a mark: the median of the pages of that day and the two before.
 * Every measured page carries updates (a quarter of it the previous run's articles): each pipeline
 * lands a first page before day 1 (its first window, unmeasured), so day 1's pages take the same
 * path as day 100's (measured before this: day 1's one sample was an all-new page, appended without
 * the changed-key join, 293 ms against 557 ms for day 30's update pages).
 */
const landMs = (l: { pageMs: number[][] }) => median(l.pageMs.slice(-3).flat());

/** News rows of corpus articles as news ingest lands them (entities and keywords from the title: the raw corpus is not enriched). */
function newsPage(arts: { a: RawArticle; id: string; edit: string }[]) {
  const rows = arts.map(({ a, id, edit }) => {
    const title = `${a.title}${edit}`;
    const dict = {
      article_id: id,
      article_url: a.url,
      domain_url: a.domain,
      title,
      summary: a.text.slice(0, 400) || a.title,
      pub_date: a.pubDate.toISOString(),
    };
    return {
      article_id: id,
      article_url: a.url,
      domain_url: a.domain,
      source_id: a.domain,
      title,
      summary: dict.summary,
      language: 'en',
      pub_date: a.pubDate.getTime() * 1000,
      crawl_date: a.pubDate.getTime() * 1000 + 600_000_000,
      country: 'US',
      continent: 'North America',
      sentiment: a.sourceSentiment === null ? 0 : Math.sign(a.sourceSentiment),
      provocative: 'low',
      reporting_voice: 'Objective',
      content_type: 'article',
      bias: 'center',
      page_rank: 1,
      raw: JSON.stringify(dict),
    };
  });
  const ENT = ['person', 'organization', 'location'];
  const entities = arts.flatMap(({ a, id }) =>
    [...new Set(a.title.match(/\b[A-Z][a-z]{2,}\b/g) ?? [])].slice(0, 4).map((value, i) => ({ article_id: id, type: ENT[i % 3]!, value })),
  );
  const keywords = arts.flatMap(({ a, id }) =>
    [...new Set((a.title.toLowerCase().match(/\b[a-z]{5,}\b/g) ?? []).slice(0, 5))].map((keyword) => ({ article_id: id, keyword })),
  );
  const classes = arts.flatMap(({ a, id }) =>
    [...new Set(a.sourceCategories.length ? a.sourceCategories : ['news'])].map((category) => ({ article_id: id, category })),
  );
  return { rows, entities, keywords, classes };
}

/** Rows of any table from its columns: deterministic from `seq`; `v` changes the non-key columns (an update). */
function synth(t: TableDef, seq: number, v: number, fixed: Record<string, unknown> = {}): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (const c of t.columns) {
    if (c.name === 'row_hash' || c.name === 'last_load_id') continue;
    if (c.name in fixed) {
      r[c.name] = fixed[c.name];
      continue;
    }
    const key = t.mergeKey.includes(c.name);
    const tag = key ? `${seq}` : `${seq}/${v}`;
    if (c.sql === 'UUID') r[c.name] = stableUuid(`${c.name}/${seq}`);
    else if (c.sql === 'TIMESTAMP') r[c.name] = (T0 + seq * 3_600_000 + (key ? 0 : v * 1000)) * 1000;
    else if (c.sql === 'JSON') r[c.name] = JSON.stringify({ seq, v });
    else if (c.kind === 'varchar[]') r[c.name] = [`a${seq % 5}`, `b${v % 3}`];
    else if (c.kind === 'bool') r[c.name] = (seq + v) % 2 === 0;
    else if (c.kind === 'int' || c.kind === 'bigint') r[c.name] = (seq * 7 + v) % 1000;
    else if (c.kind === 'double') r[c.name] = ((seq + v) % 100) / 10;
    else r[c.name] = `${c.name}-${tag}`;
  }
  return r;
}

interface Lake {
  name: 'on' | 'off';
  dir: string;
  w: Warehouse;
  /** the ms of each news page landed, per day (pageMs[day - 1]) */
  pageMs: number[][];
  maintainMs: number[];
  filesBefore: number[];
}

/** Live files per table, snapshots, catalog bytes of a lake folder (its SQLite catalog and WAL). */
async function layoutOf(dir: string): Promise<{ tables: TableLayout[]; snapshots: number; catalogBytes: number }> {
  const l = await openLake({ dir, readOnly: true });
  try {
    const tables = await lakeLayout(l.conn);
    const [s] = (await l.conn.runAndReadAll(`SELECT count(*) AS n FROM ducklake_snapshots('lake')`)).getRowObjectsJS();
    const catalogBytes = ['lake.sqlite', 'lake.sqlite-wal'].reduce(
      (a, f) => a + (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0),
      0,
    );
    return { tables, snapshots: Number(s!.n), catalogBytes };
  } finally {
    l.close();
  }
}

const QUERIES = {
  count: 'SELECT count(*) FROM articles',
  group_by: 'SELECT domain_url, count(*) AS n FROM articles GROUP BY 1 ORDER BY 2 DESC LIMIT 10',
  join: `SELECT e.value, count(DISTINCT a.article_id) AS n FROM article_entities e JOIN articles a USING (article_id) WHERE e.type = 'person' GROUP BY 1 ORDER BY 2 DESC LIMIT 10`,
};

/**
 * Each query's best of ROUNDS ms on a fresh read-only attach of each lake, after one warm-up: the
 * lakes in turn within each round (a load that comes and goes on a shared machine falls on all of
 * them alike, not on the one measured then).
 */
const ROUNDS = 10;
export async function queryMs(dirs: string[]): Promise<Record<keyof typeof QUERIES, number>[]> {
  const ls = [];
  try {
    for (const dir of dirs) ls.push(await openLake({ dir, readOnly: true }));
    const out = ls.map(() => ({}) as Record<keyof typeof QUERIES, number>);
    for (const [k, sql] of Object.entries(QUERIES) as [keyof typeof QUERIES, string][]) {
      for (const l of ls) await l.conn.runAndReadAll(sql);
      for (let i = 0; i < ROUNDS; i++)
        for (const [j, l] of ls.entries()) {
          const t = performance.now();
          await l.conn.runAndReadAll(sql);
          out[j]![k] = Math.min(out[j]![k] ?? Infinity, Math.round((performance.now() - t) * 10) / 10);
        }
    }
    return out;
  } finally {
    for (const l of ls) l.close();
  }
}

/** The reference layout: every table of `from` bulk-loaded into a fresh lake, one statement per table. */
export async function referenceOf(from: string, dir: string): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  (await Warehouse.open(dir)).close();
  const l = await openLake({ dir });
  try {
    await l.conn.run(`ATTACH 'ducklake:sqlite:${path.join(from, 'lake.sqlite')}' AS src (READ_ONLY)`);
    for (const t of [...TABLES.map((x) => x.name), '_loads']) {
      await l.conn.run(`DELETE FROM lake.${t}`);
      await l.conn.run(`INSERT INTO lake.${t} SELECT * FROM src.${t}`);
    }
  } finally {
    l.close();
  }
}

export async function benchDay100(): Promise<Record<string, unknown>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-day100-'));
  const corpus = readHeadlines(path.join(sharedDir, 'data', CORPUS_FILES.headlines));
  const lakes: Lake[] = [];
  for (const name of ['on', 'off'] as const) {
    const dir = path.join(root, name);
    if (INLINE !== null) {
      // the lake's inlining limit (DuckLake's data_inlining_row_limit, default 10), set before the warehouse opens it
      (await Warehouse.open(dir)).close();
      const l = await openLake({ dir });
      // per table: the lake-wide option crashed DuckDB (segfault, DuckLake 1.0 on DuckDB 1.5.5, a
      // lake with _loads' option set); _loads keeps its 0 (warehouse.ts)
      for (const t of TABLES) await l.conn.run(`CALL lake.set_option('data_inlining_row_limit', ${INLINE}, table_name => '${t.name}')`);
      l.close();
    }
    lakes.push({ name, dir, w: await Warehouse.open(dir), pageMs: [], maintainMs: [], filesBefore: [] });
  }
  const dayStarted: number[] = [];
  let next = 0;
  /** the previous run's articles of each pipeline (the next run updates a quarter of them) */
  const prev = new Map<string, { a: RawArticle; id: string }[]>();
  let storySeq = 0;
  const rows: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const say = (s: string) => {
    lines.push(s);
    console.error(s);
  };
  say(`day100: ${DAYS} days, ${RUNS} runs of each news pipeline a day, inlining limit ${INLINE ?? 'default'}, load ${loadAvg1m()}`);
  const land = async (
    lake: Lake,
    kind: string,
    pipeline: string,
    loadId: string,
    parts: { t: TableDef; rows: Record<string, unknown>[]; kids?: { table: TableDef; rows: Record<string, unknown>[] }[] }[],
  ) => {
    const started = new Date();
    let c = { received: 0, inserted: 0, updated: 0 };
    for (const p of parts) {
      const r = await lake.w.land(p.t, p.rows, p.kids ?? [], loadId);
      c = { received: c.received + r.received, inserted: c.inserted + r.inserted, updated: c.updated + r.updated };
    }
    await lake.w.recordLoad({ loadId, pipeline, kind, workflowId: null, runId: null, windowStart: null, windowEnd: null }, c, started);
  };

  for (let day = 0; day <= DAYS; day++) {
    dayStarted[day] = Date.now();
    const dayMs: Record<string, number[]> = { on: [], off: [] };
    // day 0: each pipeline's first window (one page of new articles, unmeasured), so that every
    // measured page overlaps the run before it
    for (let run = 0; run < (day === 0 ? 1 : RUNS); run++) {
      for (const p of NEWS) {
        const fresh = Array.from({ length: PAGE - UPDATES }, () => {
          const a = corpus[next % corpus.length]!;
          const cycle = Math.floor(next++ / corpus.length);
          return { a, id: cycle ? stableUuid(`${a.articleId}/${cycle}`) : a.articleId };
        });
        const upd = (prev.get(p) ?? []).slice(0, UPDATES).map((x) => ({ ...x, edit: ` (updated ${day}.${run})` }));
        prev.set(p, fresh);
        const page = newsPage([...fresh.map((x) => ({ ...x, edit: '' })), ...upd]);
        const pa = page.rows.map((r) => ({ pipeline: p, article_id: r.article_id }));
        const loadId = `${p}-${day}-${run}`;
        for (const lake of lakes) {
          const t = performance.now();
          await land(lake, 'news', p, loadId, [
            {
              t: ARTICLES,
              rows: page.rows,
              kids: [
                { table: ARTICLE_ENTITIES, rows: page.entities },
                { table: ARTICLE_KEYWORDS, rows: page.keywords },
                { table: ARTICLE_CLASSIFICATIONS, rows: page.classes },
              ],
            },
            { t: PIPELINE_ARTICLES, rows: pa },
          ]);
          dayMs[lake.name]!.push(performance.now() - t);
        }
      }
    }
    if (day === 0) continue;
    // stories (5 tracked, each updated; one new update each with 3 articles), counts, alerts, a feed
    const stories = Array.from({ length: 5 }, (_, i) => synth(STORIES, i, day));
    const updates = Array.from({ length: 5 }, (_, i) => synth(STORY_UPDATES, storySeq + i, 0, { story_uuid: stableUuid(`story_uuid/${i}`) }));
    const ua = updates.flatMap((u, i) =>
      [0, 1, 2].map((k) => synth(UPDATE_ARTICLES, (storySeq + i) * 3 + k, 0, { update_uuid: u.update_uuid, story_uuid: u.story_uuid })),
    );
    const metrics = Array.from({ length: 5 }, (_, i) => synth(STORY_METRICS, day * 5 + i, 0, { story_uuid: stableUuid(`story_uuid/${i}`) }));
    storySeq += 5;
    const counts = Array.from({ length: 24 }, (_, h) => synth(INDEX_COUNTS, day * 24 + h, 0));
    const logs = Array.from({ length: 2 }, (_, i) => synth(ALERT_LOGS, day * 2 + i, 0));
    const polls = [synth(SOURCE_POLLS, day, 0)];
    const items = Array.from({ length: 10 }, (_, i) => synth(SOURCE_ITEMS, day * 10 + i, 0, { source: 'example-news' }));
    for (const lake of lakes) {
      await land(lake, 'stories', 'top-stories', `stories-${day}`, [
        { t: STORIES, rows: stories },
        { t: STORY_UPDATES, rows: updates, kids: [{ table: UPDATE_ARTICLES, rows: ua }] },
        { t: STORY_METRICS, rows: metrics },
      ]);
      await land(lake, 'index-counts', 'counts', `counts-${day}`, [{ t: INDEX_COUNTS, rows: counts }]);
      await land(lake, 'alerts', 'alerts', `alerts-${day}`, [{ t: ALERT_LOGS, rows: logs }]);
      await land(lake, 'feed-poll', 'example-news', `feed-${day}`, [
        { t: SOURCE_POLLS, rows: polls },
        { t: SOURCE_ITEMS, rows: items },
      ]);
    }
    for (const lake of lakes) lake.pageMs.push(dayMs[lake.name]!);
    // the daily maintenance of the maintained lake: snapshots of the 7 bench days before kept
    const on = lakes[0]!;
    const keepFrom = dayStarted[Math.max(1, day - 7)]!;
    const t = performance.now();
    const rep = await on.w.maintain({ retentionDays: day > 7 ? (Date.now() - keepFrom) / 86_400_000 : 365, cleanupGraceMs: 0 });
    on.maintainMs.push(performance.now() - t);
    on.filesBefore.push(rep.before.reduce((a, x) => a + x.files, 0));

    if (MARKS.includes(day)) {
      const refDir = path.join(root, `ref-${day}`);
      await referenceOf(on.dir, refDir);
      const marks = [
        ['on', on.dir],
        ['off', lakes[1]!.dir],
        ['reference', refDir],
      ] as const;
      const qs = await queryMs(marks.map(([, dir]) => dir));
      for (const [j, [name, dir]] of marks.entries()) {
        const lay = await layoutOf(dir);
        const q = qs[j]!;
        const used = lay.tables.filter((x) => x.files + x.inlinedRows > 0);
        const row = {
          day,
          lake: name,
          rows: lay.tables.find((x) => x.table === 'articles')?.rows ?? 0,
          files: used.reduce((a, x) => a + x.files, 0),
          max_files_table: Math.max(0, ...used.map((x) => x.files)),
          // the tables with more than one file
          tables_over_1: Object.fromEntries(used.filter((x) => x.files > 1).map((x) => [x.table, x.files])),
          // the maintained lake's files just before its run that day: what a day of loads adds
          files_before_maintenance: name === 'on' ? on.filesBefore.at(-1) : null,
          inlined_rows: used.reduce((a, x) => a + x.inlinedRows, 0),
          snapshots: lay.snapshots,
          catalog_mb: Math.round(lay.catalogBytes / 1e4) / 100,
          land_page_ms: name === 'reference' ? null : Math.round(landMs(lakes.find((x) => x.name === name)!)),
          maintain_ms: name === 'on' ? Math.round(on.maintainMs.at(-1)!) : null,
          ...Object.fromEntries(Object.entries(q).map(([k, v]) => [`${k}_ms`, v])),
        };
        rows.push(row);
        say(JSON.stringify(row));
      }
      fs.rmSync(refDir, { recursive: true, force: true });
    }
  }
  for (const l of lakes) l.w.close();
  const keep = process.env.NEWSFLOW_BENCH_KEEP === '1';
  if (keep) say(`day100: lakes kept under ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
  const at = (day: number, lake: string) => rows.find((r) => r.day === day && r.lake === lake) as Record<string, number> | undefined;
  const last = MARKS.at(-1)!;
  const on = at(last, 'on');
  const ref = at(last, 'reference');
  const first = at(MARKS[0]!, 'on');
  const ratio = (a?: number, b?: number) => (a !== undefined && b ? Math.round((a / b) * 100) / 100 : null);
  return {
    id: 'day100',
    days: DAYS,
    runs_per_day: RUNS,
    inlining_row_limit: INLINE,
    rows,
    goals: {
      files_per_table_bound: 1,
      max_files_table_on: on?.max_files_table,
      count_vs_reference: ratio(on?.count_ms, ref?.count_ms),
      group_by_vs_reference: ratio(on?.group_by_ms, ref?.group_by_ms),
      join_vs_reference: ratio(on?.join_ms, ref?.join_ms),
      landing_vs_day1: ratio(on?.land_page_ms, first?.land_page_ms),
      maintain_ms_last_day: on?.maintain_ms,
      catalog_mb_on_vs_reference: ratio(on?.catalog_mb, ref?.catalog_mb),
    },
    // the lakes' folder is printed, never recorded: bench/results.json is tracked
    kept: keep,
  };
}

if (process.argv[1]?.endsWith('day100.ts')) console.log(JSON.stringify(await benchDay100()));
