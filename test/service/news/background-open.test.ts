/**
 * The news index loaded in the background (NewsService.open with `background`, what `newsflow
 * serve` does): open returns before the index is read, a search meanwhile is a 503 with
 * Retry-After that says how far the load is (never a wait for the whole load), `ready` turns true
 * when the index holds every indexed article of the store (the same index a plain open builds),
 * and close while it loads stops the load instead of waiting for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { NewsService } from '../../../service/news/service.js';
import { HttpError } from '../../../service/errors/index.js';
import { SearchParams } from '../../../spec/index.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { tempDir } from '../../helpers/service.js';

const open: { db: Db; news: NewsService }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.news.close();
    o.db.close();
  }
});

async function storeCopy(): Promise<Db> {
  const dir = tempDir();
  fs.copyFileSync(await seededCorpusStore(), path.join(dir, 'service.duckdb'));
  return Db.open(path.join(dir, 'service.duckdb'));
}

const search = (news: NewsService) =>
  news.index.search(SearchParams.parse({ query: 'election', method: 'kw', historical: true, n_articles: 5 }), {
    now: Date.now(),
    given: new Set(),
    onlyDomains: null,
  });

describe('the news index loaded in the background', () => {
  it('answers 503 while it loads, then the same index a plain open builds', async () => {
    const db = await storeCopy();
    const news = await NewsService.open(db, { embedder: null, background: true });
    open.push({ db, news });
    expect(news.ready).toBe(false);
    const early = await search(news).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(HttpError);
    expect((early as HttpError).status).toBe(503);
    expect((early as HttpError).headers['retry-after']).toBe('5');
    expect(String((early as HttpError).detail)).toMatch(/the news index is loading \(\d+ of \d+ articles read\)/);
    await news.loaded;
    expect(news.ready).toBe(true);
    const { indexed } = await news.store.count();
    expect(news.index.size).toBe(indexed);
    const db2 = await storeCopy();
    const plain = await NewsService.open(db2, { embedder: null });
    open.push({ db: db2, news: plain });
    const [a, b] = [await search(news), await search(plain)];
    expect(a.docs.map((d) => d.articleId)).toEqual(b.docs.map((d) => d.articleId));
    expect(a.scores).toEqual(b.scores);
    expect(a.total).toBeGreaterThan(0);
  });

  it('close while it loads stops the load', async () => {
    const db = await storeCopy();
    const news = await NewsService.open(db, { embedder: null, background: true });
    const failed = news.loaded.then(
      () => 'loaded',
      (e: unknown) => (e as Error).message,
    );
    await news.close();
    db.close();
    // either it had finished, or it stopped with the reason
    expect(['loaded', 'the service closed while its index was loading']).toContain(await failed);
  });
});
