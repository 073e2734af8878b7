/**
 * Retention (NewsService `retentionDays`, `newsflow serve --retention 30d [--archive]`): articles
 * published before it leave the search index. The store keeps them (GET /v1/news/{id} still
 * reads them), or, with an archive folder, they are exported to Parquet there and leave the store.
 * Without a retention every article stays searchable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { NewsService } from '../../../service/news/service.js';
import { parseRetention } from '../../../service/config.js';
import { SearchParams } from '../../../spec/index.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { tempDir } from '../../helpers/service.js';

const DAY = 86_400_000;
const open: { db: Db; news: NewsService }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.news.close();
    o.db.close();
  }
});

async function storeCopy(): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  fs.copyFileSync(await seededCorpusStore(), path.join(dir, 'service.duckdb'));
  return { dir, file: path.join(dir, 'service.duckdb') };
}

/** The corpus's newest publication time, the newest article past a 30-day retention then (with a title of more than stop words), and how many are within it. */
async function corpusFacts(file: string) {
  const db = await Db.open(file);
  try {
    const newest = Number((await db.one<{ ms: bigint }>('SELECT epoch_ms(max(pub_date)) AS ms FROM articles'))!.ms);
    const cut = newest - 30 * DAY;
    const within = Number((await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM articles WHERE crawl_date IS NOT NULL AND epoch_ms(pub_date) >= ${cut}`))!.n);
    const old = await db.one<{ id: string; title: string }>(
      `SELECT article_id::VARCHAR AS id, title FROM articles WHERE crawl_date IS NOT NULL AND epoch_ms(pub_date) < ${cut} AND length(title) > 50 ORDER BY pub_date DESC, article_id LIMIT 1`,
    );
    const total = Number((await db.one<{ n: bigint }>('SELECT count(*) AS n FROM articles WHERE crawl_date IS NOT NULL'))!.n);
    return { newest, within, old: old!, total };
  } finally {
    db.close();
  }
}

const titleSearch = (news: NewsService, title: string) =>
  news.index.search(SearchParams.parse({ query: title, method: 'kw', historical: true, n_articles: 100 }), {
    now: news.clock(),
    given: new Set(),
    onlyDomains: null,
  });

describe('retention of the news index', () => {
  it('parses <n>d and keep-all, and says what is wrong otherwise', () => {
    expect(parseRetention('90d')).toBe(90);
    expect(parseRetention('keep-all')).toBeNull();
    expect(parseRetention(undefined)).toBeNull();
    expect(() => parseRetention('3 months')).toThrow('NEWSFLOW_RETENTION must be a number of days such as 90d, or keep-all; got "3 months"');
    expect(() => parseRetention('0d', '--retention')).toThrow(/^--retention must be/);
  });

  it('articles older than the retention leave search and stay in the store; a restart from the saved index keeps them out', async () => {
    const { file } = await storeCopy();
    const facts = await corpusFacts(file);
    expect(facts.within).toBeGreaterThan(0);
    expect(facts.within).toBeLessThan(facts.total);
    const clock = () => facts.newest + 3_600_000;
    const db = await Db.open(file);
    const news = await NewsService.open(db, { embedder: null, clock, retentionDays: 30 });
    open.push({ db, news });
    expect(news.index.size).toBe(facts.within);
    const hits = await titleSearch(news, facts.old.title);
    expect(hits.total).toBeGreaterThan(0);
    expect(hits.docs.map((d) => d.articleId)).not.toContain(facts.old.id);
    expect(hits.docs.every((d) => d.pubDate.getTime() >= clock() - 30 * DAY)).toBe(true);
    // the store keeps it: GET /v1/news/{id}
    expect((await news.article(facts.old.id, true, null))?.article_id).toBe(facts.old.id);

    // a day later, from the saved index: the articles now past it leave search too
    await news.close();
    db.close();
    open.splice(0);
    const later = () => clock() + DAY;
    const db2 = await Db.open(file);
    const again = await NewsService.open(db2, { embedder: null, clock: later, retentionDays: 30 });
    open.push({ db: db2, news: again });
    expect(again.loadedFrom.saved).toBe(true);
    expect(again.loadedFrom.caughtUp).toBe(0);
    const still = Number(
      (await db2.one<{ n: bigint }>(`SELECT count(*) AS n FROM articles WHERE crawl_date IS NOT NULL AND epoch_ms(pub_date) >= ${later() - 30 * DAY}`))!.n,
    );
    expect(again.index.size - again.index.removedCount).toBe(still);
    expect(again.loadedFrom.gone).toBe(facts.within - still);
  }, 240_000);

  it('with an archive folder: past the retention, articles are exported to Parquet and leave the store', async () => {
    const { dir, file } = await storeCopy();
    const facts = await corpusFacts(file);
    const clock = () => facts.newest + 3_600_000;
    const archiveDir = path.join(dir, 'archive', 'news');
    const db = await Db.open(file);
    const news = await NewsService.open(db, { embedder: null, clock, retentionDays: 30, archiveDir });
    open.push({ db, news });
    expect(news.index.size).toBe(facts.within);
    expect((await titleSearch(news, facts.old.title)).docs.map((d) => d.articleId)).not.toContain(facts.old.id);
    expect(await news.article(facts.old.id, false, null)).toBeNull();
    expect((await news.store.count()).indexed).toBe(facts.within);
    const files = fs.readdirSync(archiveDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^articles-.*\.parquet$/);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const parquet = path.join(archiveDir, files[0]!).replaceAll("'", "''");
      const [row] = (
        await conn.runAndReadAll(
          `SELECT count(*) AS n, count(*) FILTER (WHERE article_id::VARCHAR = '${facts.old.id}') AS found, count(full_text) AS texts FROM read_parquet('${parquet}')`,
        )
      ).getRowObjectsJS();
      expect(Number(row!.n)).toBe(facts.total - facts.within);
      expect(Number(row!.found)).toBe(1);
      expect(Number(row!.texts)).toBeGreaterThan(0);
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
    // nothing more to archive on the next round
    expect(await news.archive()).toEqual({ file: null, articles: 0 });
  }, 240_000);

  it('without a retention every indexed article stays searchable', async () => {
    const { file } = await storeCopy();
    const facts = await corpusFacts(file);
    const db = await Db.open(file);
    const news = await NewsService.open(db, { embedder: null, clock: () => facts.newest + 365 * DAY });
    open.push({ db, news });
    expect(news.index.size).toBe(facts.total);
    expect((await titleSearch(news, facts.old.title)).docs.map((d) => d.articleId)).toContain(facts.old.id);
  }, 240_000);
});
