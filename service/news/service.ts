/**
 * The news core of the service: the in-memory index built from the store, articles added to it
 * (URL indexing, and the corpus through ./seed.ts), search with its try_cache, credits and hit
 * events, and lookups by id. Whoever follows what becomes searchable (stories) listens with
 * `onIndexed`; NewsService knows nothing of them.
 */
import { SEARCH_LIMITS, TRY_CACHE_TTLS, type SearchParamsParsed, type SearchResponse, type SearchResponseDictItem } from '../../spec/index.js';
import type { Db } from '../store/db.js';
import { NewsStore, type HitEvent } from '../store/news.js';
import type { RawArticle } from '../corpus/read.js';
import { docFreqOf, embeddingText, enrich } from '../enrich/index.js';
import { continentOf, isPodcast, isPremium, pageRanks, publisherCountry } from '../enrich/publishers.js';
import { NewsIndex } from '../search/engine.js';
import type { Embedder } from '../search/embedder.js';
import { toDict, toStringBlock } from '../search/format.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import type { LoadedArticle, NewsArticle } from '../article/model.js';
import { HitRecorder } from './hits.js';
import { SearchCache } from './search-cache.js';

/** Credits per search by method (documented in docs/service.md, "Search"); a try_cache hit costs `SEARCH_LIMITS.cachedCreditFactor` of it. */
export const SEARCH_CREDITS = { kw: 1, recency: 1, nl: 2, both: 3 } as const;

/** Texts embedded per call while loading (test/helpers/enriched-corpus.ts cuts its groups the same way). */
export const EMBED_STEP = 256;

/** What `search` answers: the response body, and whether the try_cache answered (null: not asked). */
export interface SearchAnswer {
  body: SearchResponse;
  cache: 'HIT' | 'MISS' | null;
}

/** Told after articles became searchable; `refresh`: dates of known articles moved (a rebased reload). */
export type IndexedListener = (opts: { refresh?: boolean }) => Promise<unknown>;

/** The domains a publisher organization's key is limited to (null: every domain). */
const onlyDomains = (p: Principal | null) => (p?.org?.publisher ? p.org.domains : null);
/** The caller's own pages (URL indexing) are seen besides the shared corpus. */
const viewer = (p: Principal | null) => (p ? ownerOf(p) : null);
const ownDomain = (own: string[] | null, domain: string) => !own || own.some((d) => domain === d || domain.endsWith(`.${d}`));

export class NewsService {
  readonly store: NewsStore;
  readonly hits: HitRecorder;
  /** try_cache responses by (key, parameters) */
  private readonly cache: SearchCache;
  /** articles the store holds back (no crawl_date yet: a replay was under way); ./seed.ts takes them */
  private heldBack: NewsArticle[] = [];
  private readonly listeners: IndexedListener[] = [];
  /** work on this service to stop before it closes (the seeder's replay and background seed) */
  private readonly stops: (() => Promise<void>)[] = [];

  private constructor(
    readonly db: Db,
    readonly index: NewsIndex,
    readonly embedder: Embedder | null,
    readonly clock: () => number,
  ) {
    this.store = new NewsStore(db);
    this.hits = new HitRecorder(this.store);
    this.cache = new SearchCache(clock);
  }

  /** Build the in-memory index from what the store holds. */
  static async open(db: Db, opts: { embedder: Embedder | null; clock?: () => number }): Promise<NewsService> {
    const svc = new NewsService(db, new NewsIndex(opts.embedder), opts.embedder, opts.clock ?? Date.now);
    await svc.rebuild();
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
      const vs = await this.embed(missing.map((a) => ({ article: { ...a, fullText: fullText.get(a.articleId) ?? null }, terms: [], embedding: null })));
      await this.store.writeEmbeddings(
        missing.map((a, i) => [a.articleId, vs[i]!]),
        this.embedder.model,
      );
      missing.forEach((a, i) => vectors.set(a.articleId, vs[i]!));
    }
    for (const a of all) {
      if (a.crawlDate) this.index.add(a, postings.get(a.articleId) ?? [], vectors.get(a.articleId) ?? null, fullText.get(a.articleId) ?? null);
      else this.heldBack.push(a);
    }
  }

  /** The articles the store held back at open (once: the replay of ./seed.ts owns them then). */
  takeHeldBack(): NewsArticle[] {
    const out = this.heldBack;
    this.heldBack = [];
    return out;
  }

  /** `fn` runs after articles became searchable (a seed, a replay release, added pages), awaited in turn. */
  onIndexed(fn: IndexedListener): void {
    this.listeners.push(fn);
  }

  /** Tell the listeners that articles became searchable. */
  async indexed(opts: { refresh?: boolean } = {}): Promise<void> {
    for (const fn of this.listeners) await fn(opts);
  }

  /** The embeddings of loaded articles, `EMBED_STEP` texts at a time (none without an embedder). */
  async embed(batch: LoadedArticle[], onProgress?: (n: number) => void): Promise<Float32Array[]> {
    if (!this.embedder) return [];
    const out: Float32Array[] = [];
    for (let i = 0; i < batch.length; i += EMBED_STEP) {
      out.push(...(await this.embedder.embed(batch.slice(i, i + EMBED_STEP).map((b) => embeddingText(b.article)))));
      onProgress?.(Math.min(batch.length, i + EMBED_STEP));
    }
    return out;
  }

  /** index_urls and crawl add pages one job item at a time; one at a time through here */
  private adding: Promise<unknown> = Promise.resolve();

  /**
   * Add fetched pages (`source: 'web'`) as articles, like corpus articles: enriched (document
   * frequencies of the index so far plus the batch), embedded, stored, indexed now with
   * crawl_date = `at`, publishers and page ranks recomputed, then the listeners told (stories
   * cluster them). An id that is stored already is updated in the store (the search index keeps
   * what it holds).
   */
  addArticles(raws: RawArticle[], at = new Date(this.clock())): Promise<NewsArticle[]> {
    const run = async (): Promise<NewsArticle[]> => {
      if (raws.length === 0) return [];
      const local = docFreqOf(raws);
      const df = new Map<string, number>();
      for (const [t, n] of local.df) df.set(t, n + this.index.bm25.df(t));
      const freq = { df, n: this.index.size + raws.length };
      const counts = await this.domainCounts();
      for (const r of raws) counts.set(r.domain, (counts.get(r.domain) ?? 0) + 1);
      const ranks = pageRanks(counts);
      const loaded = raws.map((r) => enrich(r, freq, { pageRank: (d) => ranks.get(d) ?? ranks.size + 1, crawlDate: at }));
      const vecs = await this.embed(loaded);
      loaded.forEach((l, k) => (l.embedding = vecs[k] ?? null));
      await this.store.write(loaded, this.embedder?.model ?? null);
      const stored = await this.domainCounts();
      await this.writePublishers(stored, pageRanks(stored));
      for (const l of loaded) this.index.add(l.article, l.terms, l.embedding, l.article.fullText);
      await this.indexed();
      return loaded.map((l) => l.article);
    };
    const next = this.adding.then(run, run);
    this.adding = next.catch(() => undefined);
    return next;
  }

  private async domainCounts(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const r of await this.db.all<{ d: string; n: bigint }>('SELECT domain_url AS d, count(*) AS n FROM articles GROUP BY 1')) counts.set(r.d, Number(r.n));
    return counts;
  }

  /** The publishers table from article counts by domain and their page ranks; articles take their publisher's rank. */
  async writePublishers(counts: Map<string, number>, ranks: Map<string, number>): Promise<void> {
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
   * GET /v1/news/search for `principal`: the try_cache (a hit costs `cachedCreditFactor` of the
   * credits), the search, the credits by method, and a surface hit for every article returned.
   * `given`: the names of the query parameters the caller sent (hours_back counts only when sent).
   */
  async search(p: SearchParamsParsed, principal: Principal | null, given: Set<string> = new Set()): Promise<SearchAnswer> {
    const now = this.clock();
    const key = p.try_cache ? SearchCache.keyOf(principal?.keyId, p, given) : null;
    const hit = key ? this.cache.get(key) : undefined;
    if (hit) {
      this.recordHits('surface', principal, hit.articles, p.query || null);
      return { body: { ...hit.body, usage: { credits: hit.credits * SEARCH_LIMITS.cachedCreditFactor } }, cache: 'HIT' };
    }
    const r = await this.index.search(p, { now, given, onlyDomains: onlyDomains(principal), viewer: viewer(principal) });
    const dicts = p.return_type !== 'string' ? r.docs.map((a) => toDict(a, { graphs: p.return_graphs, geo: p.return_geo, fullText: false })) : null;
    const asString = p.return_type !== 'dicts' ? r.docs.map((a, i) => toStringBlock(a, i, p.doc_start_delimiter, p.doc_end_delimiter)).join('\n\n') : null;
    const credits = SEARCH_CREDITS[r.method];
    const body: SearchResponse = { as_dicts: dicts, as_string: asString, offset: r.nextOffset, usage: { credits } };
    const articles = r.docs.map((a) => ({ id: a.articleId, domain: a.domain }));
    if (key) this.cache.set(key, { until: now + TRY_CACHE_TTLS[p.try_cache!] * 1000, body, credits, articles });
    this.recordHits('surface', principal, articles, p.query || null);
    return { body, cache: key ? 'MISS' : null };
  }

  /** GET /v1/news: the articles of `ids` the caller may see, in the order asked; full texts count as hits. */
  async articles(ids: string[], fullText: boolean, principal: Principal | null): Promise<SearchResponseDictItem[]> {
    const own = onlyDomains(principal);
    const me = viewer(principal);
    const found = await this.store.byIds([...new Set(ids)], fullText);
    const visible = found.filter((a) => NewsIndex.visible(a, me) && ownDomain(own, a.domain));
    const order = new Map(ids.map((id, i) => [id.toLowerCase(), i]));
    visible.sort((a, b) => order.get(a.articleId)! - order.get(b.articleId)!);
    if (fullText)
      this.recordHits(
        'full_text',
        principal,
        visible.map((a) => ({ id: a.articleId, domain: a.domain })),
        null,
      );
    return visible.map((a) => toDict(a, { graphs: false, geo: false, fullText }));
  }

  /** GET /v1/news/{article_id}: the article if the caller may see it (null: unknown or not theirs). */
  async article(id: string, fullText: boolean, principal: Principal | null): Promise<SearchResponseDictItem | null> {
    const own = onlyDomains(principal);
    const [a] = await this.store.byIds([id.toLowerCase()], fullText);
    if (!a || !NewsIndex.visible(a, viewer(principal)) || !ownDomain(own, a.domain)) return null;
    if (fullText) this.recordHits('full_text', principal, [{ id: a.articleId, domain: a.domain }], null);
    return toDict(a, { graphs: false, geo: false, fullText });
  }

  /** Hit events of `principal` for articles it was shown (distribution analytics count them). */
  recordHits(kind: HitEvent['kind'], principal: Principal | null, articles: { id: string; domain: string }[], query: string | null): void {
    const ts = new Date(this.clock());
    this.hits.record(
      articles.map((a) => ({ ts, kind, keyId: principal?.keyId ?? null, orgId: principal?.org?.id ?? null, domain: a.domain, articleId: a.id, query })),
    );
  }

  /** `fn` runs first when the service closes (what feeds it stops before its writes are awaited). */
  beforeClose(fn: () => Promise<void>): void {
    this.stops.push(fn);
  }

  async close(): Promise<void> {
    for (const stop of this.stops) await stop();
    await this.adding;
    await this.hits.close();
  }
}
