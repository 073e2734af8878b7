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
  /**
   * With `replay`: articles published in the last `historyDays` (after rebasing) have arrived
   * already: crawl_date = pub_date, searchable at once; the older ones are replayed.
   */
  historyDays?: number;
  /**
   * Return once the history is loaded (searchable, replay started); the older articles are
   * enriched in the background, oldest first, ahead of the replay: `SeedResult.rest`.
   */
  background?: boolean;
  /**
   * With `background`: only the history of the last `headHours` is loaded before seed returns;
   * the rest of the history follows in the background, newest first (`SeedResult.history`),
   * before the replayed articles.
   */
  headHours?: number;
  /** with `background`: the background loading waits for this (the caller's own start-up first) */
  backgroundAfter?: Promise<unknown>;
  /** enrichment results computed before (an enriched-corpus cache): a hit skips enrich and embed */
  cache?: EnrichmentCache;
}

/** What `seed` asks of an enriched-corpus cache (news/corpus-cache.ts keeps one on disk). */
export interface EnrichmentCache {
  /** once, with the corpus as read (ids and content hashes decide what the cache holds) */
  open(raws: RawArticle[], model: string | null): Promise<void>;
  /** the enrichment of this article (same content hash), dates as they were */
  get(r: RawArticle): LoadedArticle | undefined;
  /** articles this seed enriched itself */
  put(loaded: LoadedArticle[]): void;
  /** after the whole corpus is loaded */
  save(): Promise<void>;
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
  /** with `background`: the rest of the corpus, loaded; resolves to the whole seed's result */
  rest?: Promise<SeedResult>;
  /** with `background`: resolves when the whole history (`historyDays`) is searchable */
  history?: Promise<void>;
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
  /** a background seed still adding pending articles: the replay waits for them */
  private filling: Promise<unknown> | null = null;
  private stopFilling = false;
  /** resolved by close(): a background seed waiting to begin gives up */
  private closing!: () => void;
  private readonly closed = new Promise<void>((r) => (this.closing = r));

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

  /**
   * Resolves when the index holds what the store holds and stories are restored (at once unless
   * opened with `background`); rejects when loading failed or was stopped by `close`.
   */
  loaded: Promise<void> = Promise.resolve();
  /** false while the index loads in the background (the readiness of the service) */
  ready = true;
  /** articles placed in the index so far, and how many the store holds (the start-up status) */
  readonly progress = { placed: 0, indexed: 0, seconds: 0 };

  /**
   * Build the in-memory index from what the store holds. With `background`, return at once: the
   * index loads behind `loaded` (`ready` false meanwhile, searches answer 503), so the service
   * answers from its first second and SIGTERM stops it while it loads.
   */
  static async open(db: Db, opts: { embedder: Embedder | null; clock?: () => number; background?: boolean }): Promise<NewsService> {
    const svc = new NewsService(db, new NewsIndex(opts.embedder), opts.embedder, opts.clock ?? Date.now);
    const t0 = Date.now();
    const load = async () => {
      await svc.rebuild();
      await svc.stories.open();
      svc.progress.seconds = (Date.now() - t0) / 1000;
    };
    if (!opts.background) {
      await load();
      return svc;
    }
    svc.ready = false;
    svc.index.loading = svc.progress;
    svc.loaded = load().then(() => {
      svc.ready = true;
      svc.index.loading = null;
    });
    svc.loaded.catch(() => undefined);
    return svc;
  }

  /**
   * Build the in-memory index from the store, streamed in chunks (store/news.ts streamIndex): no
   * copy of the whole corpus is ever held at once, each article's full text is dropped once its
   * view is made. Articles without an embedding of this model are embedded and stored after.
   */
  private async rebuild(): Promise<void> {
    let indexed = 0;
    const pending = new Map<number, NewsArticle>();
    const pendingWithVector = new Set<number>();
    await this.store.streamIndex(this.embedder?.model ?? null, {
      count: (n) => {
        indexed = n;
        this.index.expected = n;
        this.progress.indexed = n;
      },
      articles: (rows) => {
        if (this.stopFilling) throw new Error('the service closed while its index was loading');
        this.progress.placed += rows.length;
        for (const { doc, a } of rows) {
          if (doc < indexed) this.index.place(doc, a, a.fullText);
          else pending.set(doc, { ...a, fullText: null });
        }
      },
      terms: (rows) => {
        if (this.stopFilling) throw new Error('the service closed while its index was loading');
        for (const { doc, terms } of rows) if (doc < indexed) this.index.placeTerms(doc, terms);
      },
      vectors: (rows) => {
        if (this.stopFilling) throw new Error('the service closed while its index was loading');
        for (const { doc, v } of rows) {
          if (doc < indexed) this.index.placeVector(doc, v);
          else pendingWithVector.add(doc);
        }
      },
    });
    // in (crawl, pub, id) order, as the store gave them
    const docs = [...pending.keys()].sort((a, b) => a - b);
    this.pending.push(...docs.map((d) => pending.get(d)!));
    if (!this.embedder) return;
    // embeddings of another model (or none): compute and store them now
    const missing: number[] = [];
    for (let doc = 0; doc < indexed; doc++) if (!this.index.hasVector(doc)) missing.push(doc);
    for (const doc of docs) if (!pendingWithVector.has(doc)) missing.push(doc);
    const articleOf = (doc: number) => (doc < indexed ? this.index.views[doc]!.a : pending.get(doc)!);
    for (let i = 0; i < missing.length; i += 1000) {
      const part = missing.slice(i, i + 1000);
      const ids = part.map((d) => articleOf(d).articleId);
      const texts = new Map(
        (
          await this.db.all<{ id: string; t: string | null }>(
            "SELECT article_id::VARCHAR AS id, full_text AS t FROM articles WHERE article_id IN (SELECT unnest(string_split($1, ','))::UUID)",
            [ids.join(',')],
          )
        ).map((r) => [r.id, r.t]),
      );
      const vs = await this.embedAll(
        part.map((d) => ({ article: { ...articleOf(d), fullText: texts.get(articleOf(d).articleId) ?? null }, terms: [], embedding: null })),
      );
      await this.store.writeEmbeddings(
        part.map((d, k) => [ids[k]!, vs[k]!]),
        this.embedder.model,
      );
      part.forEach((d, k) => d < indexed && this.index.placeVector(d, vs[k]!));
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
    await this.loaded;
    const now = opts.now ?? new Date(this.clock());
    let raws = readCorpus(corpusPath);
    if (opts.rebaseDates) raws = rebase(raws, now);
    await opts.cache?.open(raws, this.embedder?.model ?? null);
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
    const stored = await this.db.all<{ d: string; n: bigint }>(
      "SELECT domain_url AS d, count(*) AS n FROM articles WHERE article_id NOT IN (SELECT unnest(string_split($1, ','))::UUID) GROUP BY 1",
      [raws.map((r) => r.articleId).join(',')],
    );
    for (const s of stored) counts.set(s.d, (counts.get(s.d) ?? 0) + Number(s.n));
    const ranks = pageRanks(counts);
    const rank = (d: string) => ranks.get(d) ?? ranks.size + 1;
    const horizon = opts.replay && opts.historyDays ? now.getTime() - opts.historyDays * 86_400_000 : null;
    // without replay every article has arrived; with it, only the history (if any)
    const crawl = (r: RawArticle) => (!opts.replay || (horizon !== null && r.pubDate.getTime() >= horizon) ? r.pubDate : null);
    // the document frequencies come from the cache's articles when every article is a hit
    let df: ReturnType<typeof docFreqOf> | null = null;
    const load = async (chunk: RawArticle[], pause?: () => Promise<void>) => {
      const fresh: RawArticle[] = [];
      const loaded: LoadedArticle[] = [];
      for (const r of chunk) {
        const hit = opts.cache?.get(r);
        if (hit) loaded.push({ ...hit, article: { ...hit.article, pubDate: r.pubDate, crawlDate: crawl(r), pageRank: rank(r.domain) } });
        else fresh.push(r);
      }
      if (fresh.length) {
        df ??= docFreqOf(raws);
        const d = df;
        const made: LoadedArticle[] = [];
        for (const r of fresh) {
          made.push(enrich(r, d, { pageRank: rank, crawlDate: crawl(r) }));
          // in the background, the event loop gets a turn after each article (a long text takes a while)
          await pause?.();
        }
        const vecs = await this.embedAll(made);
        made.forEach((l, k) => (l.embedding = vecs[k] ?? null));
        opts.cache?.put(made);
        loaded.push(...made);
      }
      const w = await this.store.write(loaded, this.embedder?.model ?? null);
      const later: NewsArticle[] = [];
      for (const l of loaded) {
        if (l.article.crawlDate) this.index.add(l.article, l.terms, l.embedding, l.article.fullText);
        else later.push(l.article);
      }
      this.addPending(later);
      return w;
    };
    const size = opts.batchSize ?? 1000;
    const totals = { inserted: 0, updated: 0 };
    const run = async (part: RawArticle[], chunkSize: number, done0: number, between?: () => Promise<void>) => {
      for (let i = 0; i < part.length && !this.stopFilling; i += chunkSize) {
        const chunk = part.slice(i, i + chunkSize);
        opts.onProgress?.(done0 + i + chunk.length / 2, todo.length, 'enrich');
        const w = await load(chunk, between);
        totals.inserted += w.inserted;
        totals.updated += w.updated;
        opts.onProgress?.(done0 + i + chunk.length, todo.length, 'store');
        await between?.();
      }
    };
    const result = async (): Promise<SeedResult> => {
      const c = await this.store.count();
      return {
        read: raws.length,
        enriched: todo.length,
        unchanged: raws.length - todo.length,
        redated: moved.length,
        ...totals,
        total: c.total,
        indexed: c.indexed,
      };
    };
    if (!(opts.background && opts.replay)) {
      await run(todo, size, 0);
      await this.writePublishers(counts, ranks);
      await this.stories.ingest({ refresh: moved.length > 0 });
      if (opts.cache) await opts.cache.save();
      if (opts.replay) this.startReplay(opts.replay);
      return result();
    }
    // the history first (its newest `headHours` searchable when seed returns, the rest newest first),
    // then the replayed articles oldest first, behind a running replay
    const byPub = (a: RawArticle, b: RawArticle) => a.pubDate.getTime() - b.pubDate.getTime();
    const headFrom = opts.headHours ? now.getTime() - opts.headHours * 3_600_000 : -Infinity;
    const history = todo.filter((r) => crawl(r) !== null).sort((a, b) => byPub(b, a));
    const head = history.filter((r) => r.pubDate.getTime() >= headFrom);
    const older = history.filter((r) => r.pubDate.getTime() < headFrom);
    const rest = todo.filter((r) => crawl(r) === null).sort(byPub);
    await run(head, size, 0);
    await this.writePublishers(counts, ranks);
    await this.stories.ingest({ refresh: moved.length > 0 });
    const oldest = Math.min(...raws.filter((r) => crawl(r) === null).map((r) => r.pubDate.getTime()), ...this.pending.map((a) => a.pubDate.getTime()));
    this.stopFilling = false;
    // small chunks, the event loop free between them: the service keeps answering
    const pause = () => new Promise<void>((r) => setImmediate(r));
    let historyDone!: () => void;
    let historyFailed!: (e: unknown) => void;
    const historyLoaded = new Promise<void>((res, rej) => ((historyDone = res), (historyFailed = rej)));
    historyLoaded.catch(() => undefined);
    const fill = (async () => {
      await Promise.race([opts.backgroundAfter?.catch(() => undefined), this.closed]);
      try {
        await run(older, 50, head.length, pause);
        if (older.length) await this.stories.ingest();
        historyDone();
      } catch (e) {
        historyFailed(e);
        throw e;
      }
      await run(rest, 50, head.length + older.length, pause);
      if (this.stopFilling) return result();
      await this.writePublishers(counts, ranks);
      await this.stories.ingest();
      if (opts.cache) await opts.cache.save();
      return result();
    })();
    this.filling = fill.catch(() => undefined).finally(() => (this.filling = null));
    this.startReplay(opts.replay, Number.isFinite(oldest) ? oldest : undefined);
    return { ...(await result()), rest: fill, history: historyLoaded };
  }

  /** pending articles stay in publication order (the replay releases from the front) */
  private addPending(articles: NewsArticle[]): void {
    if (!articles.length) return;
    const last = this.pending[this.pending.length - 1];
    this.pending.push(...articles);
    if (last && articles.some((a) => a.pubDate.getTime() < last.pubDate.getTime())) {
      this.pending.sort((a, b) => a.pubDate.getTime() - b.pubDate.getTime() || (a.articleId < b.articleId ? -1 : 1));
    }
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
      // pages indexed while the index loads (a resumed URL job) are added after it
      await this.loaded;
      const local = docFreqOf(raws);
      const df = new Map<string, number>();
      for (const [t, n] of local.df) df.set(t, n + this.index.bm25.df(t));
      const freq = { df, n: this.index.size + raws.length };
      const counts = new Map<string, number>();
      for (const r of await this.db.all<{ d: string; n: bigint }>('SELECT domain_url AS d, count(*) AS n FROM articles GROUP BY 1'))
        counts.set(r.d, Number(r.n));
      for (const r of raws) counts.set(r.domain, (counts.get(r.domain) ?? 0) + 1);
      let ranks = pageRanks(counts);
      const loaded = raws.map((r) => enrich(r, freq, { pageRank: (d) => ranks.get(d) ?? ranks.size + 1, crawlDate: at }));
      const vecs = await this.embedAll(loaded);
      loaded.forEach((l, k) => (l.embedding = vecs[k] ?? null));
      await this.store.write(loaded, this.embedder?.model ?? null);
      counts.clear();
      for (const r of await this.db.all<{ d: string; n: bigint }>('SELECT domain_url AS d, count(*) AS n FROM articles GROUP BY 1'))
        counts.set(r.d, Number(r.n));
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
      return {
        domain,
        country,
        countrySource: source,
        continent: continentOf(country),
        pageRank: ranks.get(domain)!,
        articles: counts.get(domain)!,
        isPodcast: isPodcast(domain, '', ''),
        isPremium: isPremium(domain),
      };
    });
    await this.store.writePublishers(rows);
    await this.db.run(
      'UPDATE articles SET page_rank = p.page_rank FROM publishers p WHERE p.domain = articles.domain_url AND articles.page_rank <> p.page_rank',
    );
  }

  /**
   * Replay: pending articles are released in publication order; an article published `d` after
   * the first pending one is released `d / speed` after the replay starts, with crawl_date = the
   * release time.
   */
  startReplay(speed: number, firstPubMs?: number): void {
    if (!this.ready) {
      void this.loaded.then(() => this.startReplay(speed, firstPubMs)).catch(() => undefined);
      return;
    }
    this.stopReplay();
    const gen = this.replayGen;
    this.pending.sort((a, b) => a.pubDate.getTime() - b.pubDate.getTime() || (a.articleId < b.articleId ? -1 : 1));
    const t0 = this.clock();
    // a background seed passes the oldest article it will add (it may not be pending yet)
    const first = firstPubMs ?? this.pending[0]?.pubDate.getTime() ?? 0;
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
      if (this.pending.length || this.filling) this.replayTimer = setTimeout(() => void tick(), 250);
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
    for (const a of articles)
      this.index.add({ ...a, crawlDate: at }, postings.get(a.articleId) ?? [], vectors.get(a.articleId) ?? null, texts.get(a.articleId) ?? null);
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
    this.stopFilling = true;
    this.closing();
    await this.loaded.catch(() => undefined);
    await this.filling;
    await this.adding;
    await this.releasing?.catch(() => undefined);
    await this.hits.close();
  }
}

/** Shift each source's dates by one offset so that its newest article is at `now`. */
export function rebase(raws: RawArticle[], now: Date): RawArticle[] {
  const newest = new Map<string, number>();
  for (const r of raws) newest.set(r.source, Math.max(newest.get(r.source) ?? 0, r.pubDate.getTime()));
  return raws.map((r) => ({ ...r, pubDate: new Date(r.pubDate.getTime() + (now.getTime() - newest.get(r.source)!)) }));
}
