/**
 * The saved news index (service/search/index-file.ts): a service saves its index beside the store
 * and a restart loads it instead of rebuilding it (the same search results as a rebuild), rows
 * the store got after the save are caught up from the store, and a damaged or older-version saved
 * index is rebuilt with a warning, never a crash.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { NewsService, indexDirOf } from '../../../service/news/service.js';
import type { Embedder } from '../../../service/search/embedder.js';
import { SearchParams } from '../../../spec/index.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { tempDir } from '../../helpers/service.js';

const MODEL = 'all-MiniLM-L6-v2-int8';
const open: { db: Db; news: NewsService }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.news.close();
    o.db.close();
  }
});

async function storeCopy(): Promise<string> {
  const dir = tempDir();
  fs.copyFileSync(await seededCorpusStore(), path.join(dir, 'service.duckdb'));
  return path.join(dir, 'service.duckdb');
}

/** The seeded store's own model; a query embeds as the stored vector of `like` (so nl search has a known best hit). */
function embedderLike(like: Float32Array): Embedder {
  return { model: MODEL, dim: like.length, relevantCosine: 0.3, embed: async (texts) => texts.map(() => like.slice()) };
}

async function openNews(file: string, embedder: Embedder, opts: { indexDir?: string | null } = {}): Promise<NewsService> {
  const db = await Db.open(file);
  const news = await NewsService.open(db, { embedder, ...opts });
  open.push({ db, news });
  return news;
}

async function closeAll(): Promise<void> {
  for (const o of open.splice(0)) {
    await o.news.close();
    o.db.close();
  }
}

const queries = [
  { query: 'election', method: 'kw' },
  { query: 'football match', method: 'kw', string_guarantee: ['goal'] },
  { query: 'anything', method: 'nl' },
  { query: 'prices rise', method: 'both', n_articles: 20 },
  { query: '', method: 'kw', n_articles: 15 },
];

async function results(news: NewsService) {
  const out = [];
  for (const q of queries) {
    const r = await news.index.search(SearchParams.parse({ historical: true, n_articles: 10, ...q }), { now: Date.now(), given: new Set(), onlyDomains: null });
    out.push({ ids: r.docs.map((d) => d.articleId), scores: r.scores, total: r.total });
  }
  return out;
}

async function vectorOfFirst(file: string): Promise<{ id: string; v: Float32Array }> {
  const db = await Db.open(file);
  try {
    const [row] = await db.all<{ id: string }>('SELECT article_id::VARCHAR AS id FROM articles WHERE crawl_date IS NOT NULL ORDER BY article_id LIMIT 1');
    const { NewsStore } = await import('../../../service/store/news.js');
    const v = (await new NewsStore(db).embeddingsOf([row!.id], MODEL)).get(row!.id)!;
    return { id: row!.id, v };
  } finally {
    db.close();
  }
}

function warnings(): { lines: string[]; stop(): void } {
  const lines: string[] = [];
  const on = (w: Error) => lines.push(w.message);
  process.on('warning', on);
  return { lines, stop: () => process.off('warning', on) };
}

describe('the saved news index', () => {
  it('a restart loads the saved index: the same search results as a rebuild; a row stored after the save is caught up', async () => {
    const file = await storeCopy();
    const { id, v } = await vectorOfFirst(file);
    const emb = embedderLike(v);
    const first = await openNews(file, emb);
    expect(first.loadedFrom.saved).toBe(false);
    const rebuilt = await results(first);
    expect(rebuilt[2]!.ids[0]).toBe(id);
    expect(rebuilt.every((r) => r.ids.length > 0)).toBe(true);
    await closeAll();
    const dir = indexDirOf({ file } as Db)!;
    expect(fs.existsSync(path.join(dir, 'meta.json'))).toBe(true);

    const again = await openNews(file, emb);
    expect(again.loadedFrom).toMatchObject({ saved: true, caughtUp: 0, gone: 0 });
    expect(again.index.size).toBe(first.index.size);
    expect(await results(again)).toEqual(rebuilt);
    await closeAll();

    // an article stored while the index was not saved (a service that never saves it)
    const unsaved = await openNews(file, emb, { indexDir: null });
    const raw = {
      articleId: '0f0f0f0f-0000-4000-8000-000000000001',
      source: 'web' as const,
      sourceKey: 'saved-index-test',
      url: 'https://example.org/zanzibar-regatta',
      domain: 'example.org',
      title: 'Zanzibarregatta draws record fleet',
      text: 'The Zanzibarregatta drew a record fleet of sailing boats this weekend, organisers said.',
      pubDate: new Date(),
      sourceCategories: [],
      sourceSentiment: null,
      urlDerived: false,
      dateDerived: false,
    };
    await unsaved.addArticles([raw]);
    await closeAll();

    const caught = await openNews(file, emb);
    expect(caught.loadedFrom).toMatchObject({ saved: true, caughtUp: 1, gone: 0 });
    const r = await caught.index.search(SearchParams.parse({ query: 'zanzibarregatta', method: 'kw', n_articles: 5, historical: true }), {
      now: Date.now(),
      given: new Set(),
      onlyDomains: null,
    });
    expect(r.docs.map((d) => d.articleId)).toEqual([raw.articleId]);
    // what was caught up is saved again: the next start has nothing to catch up
    await closeAll();
    const next = await openNews(file, emb);
    expect(next.loadedFrom).toMatchObject({ saved: true, caughtUp: 0 });
    expect(next.index.has(raw.articleId)).toBe(true);
  }, 240_000);

  it('a damaged or older-version saved index is rebuilt from the store with a warning', async () => {
    const file = await storeCopy();
    const { v } = await vectorOfFirst(file);
    const emb = embedderLike(v);
    const reference = await results(await openNews(file, emb));
    await closeAll();
    const dir = indexDirOf({ file } as Db)!;

    // a flipped byte in the postings
    const postings = path.join(dir, 'post-docs.i32');
    const bytes = fs.readFileSync(postings);
    bytes[100] = bytes[100]! ^ 0xff;
    fs.writeFileSync(postings, bytes);
    const w = warnings();
    try {
      const damaged = await openNews(file, emb);
      expect(damaged.loadedFrom.saved).toBe(false);
      expect(damaged.loadedFrom.why).toMatch(/post-docs\.i32 of the saved index does not match its checksum/);
      expect(await results(damaged)).toEqual(reference);
      await closeAll();
      // the rebuild was saved again, whole
      expect((await openNews(file, emb)).loadedFrom.saved).toBe(true);
      await closeAll();

      // another version of the format
      const metaFile = path.join(dir, 'meta.json');
      fs.writeFileSync(metaFile, JSON.stringify({ ...JSON.parse(fs.readFileSync(metaFile, 'utf8')), version: 0 }));
      const older = await openNews(file, emb);
      expect(older.loadedFrom.why).toMatch(/version 0, this service reads version 1/);
      expect(await results(older)).toEqual(reference);
      await closeAll();

      // a truncated vectors file and a meta.json that is not JSON
      fs.truncateSync(path.join(dir, 'vectors.f32'), 1000);
      expect((await openNews(file, emb)).loadedFrom.why).toMatch(/vectors\.f32 of the saved index has 1000 bytes/);
      await closeAll();
      fs.writeFileSync(metaFile, '{"format":');
      const garbled = await openNews(file, emb);
      expect(garbled.loadedFrom.why).toMatch(/meta\.json is not JSON/);
      expect(await results(garbled)).toEqual(reference);
    } finally {
      w.stop();
    }
    expect(w.lines.filter((l) => l.startsWith('the saved news index is not used:'))).toHaveLength(4);
  }, 240_000);
});
