/**
 * The news core of the service: loading (seed, rebase, replay), the in-memory index built from
 * the store, search and lookup with hit events, and the try_cache response cache.
 */
import type { Db } from '../store/db.js';
import { NewsStore } from '../store/news.js';
import { readCorpus, type RawArticle } from '../corpus/read.js';
import { contentHash, docFreqOf, embeddingText, enrich } from '../enrich/index.js';
import { continentOf, isPodcast, isPremium, pageRanks, publisherCountry } from '../enrich/publishers.js';
import { NewsIndex } from '../search/engine.js';
import type { Embedder } from '../search/embedder.js';
import type { LoadedArticle, NewsArticle } from './model.js';
import { HitRecorder } from './hits.js';
import { StoryService } from '../stories/service.js';

export interface SeedOptions {
  /** shift each source's dates so its newest article is `now`, keeping the spacing */
  rebaseDates?: boolean;
  /** hold articles back and release them in publication order at SPEED x real time */
  replay?: number;
  now?: Date;
  onProgress?: (done: number, total: number, phase: string) => void;
  batchSize?: number;
}

export interface SeedResult {
  read: number;
  enriched: number;
  unchanged: number;
  /** unchanged articles whose dates moved (rebase) */
  redated: number;
  inserted: number;
  updated: number;
  total: number;
  indexed: number;
}

export interface CachedSearch {
  until: number;
  body: Record<string, unknown>;
  credits: number;
  articles: { id: string; domain: string }[];
}

export class NewsService {
  /** try_cache responses by (key, parameters) */
  readonly searchCache = new Map<string, CachedSearch>();
  readonly store: NewsStore;
  readonly hits: HitRecorder;
  /** stories: articles clustered as they become visible (seed, replay, start) */
  readonly stories: StoryService;
  private replayTimer: NodeJS.Timeout | null = null;
  /** bumped by stopReplay: a tick of an older generation stops */
  private replayGen = 0;
  /** the release a replay tick is doing, awaited on close */
  private releasing: Promise<void> | null = null;
  private pending: NewsArticle[] = [];

  private constructor(
    readonly db: Db,
    readonly index: NewsIndex,
    readonly embedder: Embedder | null,
    readonly clock: () => number,
  ) {
    this.store = new NewsStore(db);
    this.hits = new HitRecorder(this.store);
    this.stories = new StoryService(db, index, clock);
  }

  /** Build the in-memory index from what the store holds. */
  static async open(db: Db, opts: { embedder: Embedder | null; clock?: () => number }): Promise<NewsService> {
    const svc = new NewsService(db, new NewsIndex(opts.embedder), opts.embedder, opts.clock ?? Date.now);
    await svc.rebuild();
    await svc.stories.open();
    return svc;
  }

  private async rebuild(): Promise<void> {
    const all = await this.store.all();
    if (all.length === 0) return;
    const [postings, vectors, texts] = await Promise.all([
      this.store.postings(),
      this.embedder ? this.store.embeddings(this.embedder.model) : Promise.resolve(new Map<string, Float32Array>()),
      this.db.all<{ id: string; t: string | null }>('SELECT article_id::VARCHAR AS id, full_text AS t FROM articles WHERE full_text IS NOT NULL'),
    ]);
    const fullText = new Map(texts.map((r) => [r.id, r.t]));
    const missing = all.filter((a) => this.embedder && !vectors.has(a.articleId));
    if (missing.length && this.embedder) {
      // embeddings of another model (or none): compute and store them now
      const vs = await this.embedAll(missing.map((a) => ({ article: { ...a, fullText: fullText.get(a.articleId) ?? null }, terms: [], embedding: null })));
      await this.store.writeEmbeddings(missing.map((a, i) => [a.articleId, vs[i]!]), this.embedder.model);
      missing.forEach((a, i) => vectors.set(a.articleId, vs[i]!));
    }
    for (const a of all) {
      if (a.crawlDate) this.index.add(a, postings.get(a.articleId) ?? [], vectors.get(a.articleId) ?? null, fullText.get(a.articleId) ?? null);
      else this.pending.push(a);
    }
  }

  private async embedAll(batch: LoadedArticle[], onProgress?: (n: number) => void): Promise<Float32Array[]> {
    if (!this.embedder) return [];
    const out: Float32Array[] = [];
    const step = 256;
    for (let i = 0; i < batch.length; i += step) {
      out.push(...(await this.embedder.embed(batch.slice(i, i + step).map((b) => embeddingText(b.article)))));
      onProgress?.(Math.min(batch.length, i + step));
    }
    return out;
  }

  /** Load a corpus. Unchanged articles (same content hash) are skipped: loading twice changes nothing. */
  async seed(corpusPath: string, opts: SeedOptions = {}): Promise<SeedResult> {
    const now = opts.now ?? new Date(this.clock());
    let raws = readCorpus(corpusPath);
    if (opts.rebaseDates) raws = rebase(raws, now);
    const known = await this.store.hashes();
    const todo = raws.filter((r) => known.get(r.articleId)?.hash !== contentHash(r));
    const moved = raws.filter((r) => {
      const k = known.get(r.articleId);
      return k && k.hash === contentHash(r) && k.pubMs !== r.pubDate.getTime();
    });
    if (moved.length) {
      await this.store.moveDates(moved.map((r) => ({ id: r.articleId, pubMs: r.pubDate.getTime() })));
      for (const r of moved) this.index.moveDates(r.articleId, r.pubDate);
    }
    const counts = new Map<string, number>();
    for (const r of raws) counts.set(r.domain, (counts.get(r.domain) ?? 0) + 1);
    const stored = await this.db.all<{ d: string; n: bigint }>('SELECT domain_url AS d, count(*) AS n FROM articles WHERE article_id NOT IN (SELECT unnest(string_split($1, \',\'))::UUID) GROUP BY 1', [raws.map((r) => r.articleId).join(',')]);
    for (const s of stored) counts.set(s.d, (counts.get(s.d) ?? 0) + Number(s.n));
    const ranks = pageRanks(counts);
    const df = docFreqOf(raws);
    const size = opts.batchSize ?? 1000;
    let inserted = 0;
    let updated = 0;
    for (let i = 0; i < todo.length; i += size) {
      const chunk = todo.slice(i, i + size);
      const crawl = (r: RawArticle) => (opts.replay ? null : r.pubDate);
      const loaded = chunk.map((r) => enrich(r, df, { pageRank: (d) => ranks.get(d) ?? ranks.size + 1, crawlDate: crawl(r) }));
      opts.onProgress?.(i + chunk.length / 2, todo.length, 'enrich');
      const vecs = await this.embedAll(loaded);
      loaded.forEach((l, k) => (l.embedding = vecs[k] ?? null));
      const w = await this.store.write(loaded, this.embedder?.model ?? null);
      inserted += w.inserted;
      updated += w.updated;
      for (const l of loaded) {
        if (l.article.crawlDate) this.index.add(l.article, l.terms, l.embedding, l.article.fullText);
        else this.pending.push(l.article);
      }
      opts.onProgress?.(i + chunk.length, todo.length, 'store');
    }
    await this.writePublishers(counts, ranks);
    await this.stories.ingest({ refresh: moved.length > 0 });
    if (opts.replay) this.startReplay(opts.replay);
    const c = await this.store.count();
    return { read: raws.length, enriched: todo.length, unchanged: raws.length - todo.length, redated: moved.length, inserted, updated, total: c.total, indexed: c.indexed };
  }

  /** index_urls and crawl add pages one job item at a time; one at a time through here */
  private adding: Promise<unknown> = Promise.resolve();

  /**
   * Add fetched pages (`source: 'web'`) as articles, like corpus articles: enriched (document
   * frequencies of the index so far plus the batch), embedded, stored, indexed now with
   * crawl_date = `at`, publishers and page ranks recomputed, then clustered into stories. An id
   * that is stored already is updated in the store (the search index keeps what it holds).
   */
  addArticles(raws: RawArticle[], at = new Date(this.clock())): Promise<NewsArticle[]> {
    const run = async (): Promise<NewsArticle[]> => {
      if (raws.length === 0) return [];
      const local = docFreqOf(raws);
      const df = new Map<string, number>();
      for (const [t, n] of local.df) df.set(t, n + this.index.bm25.df(t));
      const freq = { df, n: this.index.size + raws.length };
      const counts = new Map<string, number>();
      for (const r of await this.db.all<{ d: string; n: bigint }>('SELECT domain_url AS d, count(*) AS n FROM articles GROUP BY 1')) counts.set(r.d, Number(r.n));
      for (const r of raws) counts.set(r.domain, (counts.get(r.domain) ?? 0) + 1);
      let ranks = pageRanks(counts);
      const loaded = raws.map((r) => enrich(r, freq, { pageRank: (d) => ranks.get(d) ?? ranks.size + 1, crawlDate: at }));
      const vecs = await this.embedAll(loaded);
      loaded.forEach((l, k) => (l.embedding = vecs[k] ?? null));
      await this.store.write(loaded, this.embedder?.model ?? null);
      counts.clear();
      for (const r of await this.db.all<{ d: string; n: bigint }>('SELECT domain_url AS d, count(*) AS n FROM articles GROUP BY 1')) counts.set(r.d, Number(r.n));
      ranks = pageRanks(counts);
      await this.writePublishers(counts, ranks);
      for (const l of loaded) this.index.add(l.article, l.terms, l.embedding, l.article.fullText);
      await this.stories.ingest();
      return loaded.map((l) => l.article);
    };
    const next = this.adding.then(run, run);
    this.adding = next.catch(() => undefined);
    return next;
  }

  private async writePublishers(counts: Map<string, number>, ranks: Map<string, number>): Promise<void> {
    const rows = [...counts.keys()].map((domain) => {
      const { country, source } = publisherCountry(domain);
      return { domain, country, countrySource: source, continent: continentOf(country), pageRank: ranks.get(domain)!, articles: counts.get(domain)!, isPodcast: isPodcast(domain, '', ''), isPremium: isPremium(domain) };
    });
    await this.store.writePublishers(rows);
    await this.db.run('UPDATE articles SET page_rank = p.page_rank FROM publishers p WHERE p.domain = articles.domain_url AND articles.page_rank <> p.page_rank');
  }

  /**
   * Replay: pending articles are released in publication order; an article published `d` after
   * the first pending one is released `d / speed` after the replay starts, with crawl_date = the
   * release time.
   */
  startReplay(speed: number): void {
    this.stopReplay();
    const gen = this.replayGen;
    this.pending.sort((a, b) => a.pubDate.getTime() - b.pubDate.getTime() || (a.articleId < b.articleId ? -1 : 1));
    const t0 = this.clock();
    const first = this.pending[0]?.pubDate.getTime() ?? 0;
    const tick = async () => {
      const elapsed = this.clock() - t0;
      const due: NewsArticle[] = [];
      while (this.pending.length && (this.pending[0]!.pubDate.getTime() - first) / speed <= elapsed) due.push(this.pending.shift()!);
      if (due.length) {
        this.releasing = this.release(due, new Date(this.clock()));
        await this.releasing;
        this.releasing = null;
      }
      // stopped (or restarted) while this tick was releasing: do not re-arm
      if (gen !== this.replayGen) return;
      if (this.pending.length) this.replayTimer = setTimeout(() => void tick(), 250);
      else this.replayTimer = null;
    };
    void tick();
  }

  stopReplay(): void {
    this.replayGen++;
    if (this.replayTimer) clearTimeout(this.replayTimer);
    this.replayTimer = null;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  private async release(articles: NewsArticle[], at: Date): Promise<void> {
    const ids = articles.map((a) => a.articleId);
    await this.store.release(ids, at);
    const [postings, vectors, full] = await Promise.all([
      this.store.postingsOf(ids),
      this.embedder ? this.store.embeddingsOf(ids, this.embedder.model) : Promise.resolve(new Map<string, Float32Array>()),
      this.store.byIds(ids, true),
    ]);
    const texts = new Map(full.map((a) => [a.articleId, a.fullText]));
    for (const a of articles) this.index.add({ ...a, crawlDate: at }, postings.get(a.articleId) ?? [], vectors.get(a.articleId) ?? null, texts.get(a.articleId) ?? null);
    await this.stories.ingest();
  }

  cacheSearch(key: string, entry: CachedSearch): void {
    if (this.searchCache.size >= 10_000) {
      const now = this.clock();
      for (const [k, v] of this.searchCache) if (v.until <= now) this.searchCache.delete(k);
      if (this.searchCache.size >= 10_000) this.searchCache.delete(this.searchCache.keys().next().value!);
    }
    this.searchCache.set(key, entry);
  }

  async close(): Promise<void> {
    this.stopReplay();
    await this.adding;
    await this.releasing?.catch(() => undefined);
    await this.hits.flush();
  }
}

/** Shift each source's dates by one offset so that its newest article is at `now`. */
export function rebase(raws: RawArticle[], now: Date): RawArticle[] {
  const newest = new Map<string, number>();
  for (const r of raws) newest.set(r.source, Math.max(newest.get(r.source) ?? 0, r.pubDate.getTime()));
  return raws.map((r) => ({ ...r, pubDate: new Date(r.pubDate.getTime() + (now.getTime() - newest.get(r.source)!)) }));
}
