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
import fs from 'node:fs';
import path from 'node:path';
import { NewsIndex } from '../search/engine.js';
import { IndexFileError, readIndexArrays, readIndexDocs, readIndexMeta, saveIndex, type IndexMeta } from '../search/index-file.js';
import type { Embedder } from '../search/embedder.js';
import { toDict, toStringBlock } from '../search/format.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import type { LoadedArticle, NewsArticle } from '../article/model.js';
import { HitRecorder } from './hits.js';
import { SearchCache } from './search-cache.js';

/** Credits per search by method (documented in docs/service.md, "Search"); a try_cache hit costs `SEARCH_LIMITS.cachedCreditFactor` of it. */
export const SEARCH_CREDITS = { kw: 1, recency: 1, nl: 2, both: 3 } as const;

/** A changed index is saved this often (and when the service closes); the store stays the source of truth. */
export const INDEX_SAVE_EVERY_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

/** The folder of the saved news index beside the store (null: an in-memory store saves none). */
export const indexDirOf = (db: Db): string | null => (db.file === ':memory:' ? null : path.join(path.dirname(db.file), 'news-index'));

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
  /** articles published more than this many days ago leave the search index (null: kept all); the store keeps them */
  readonly retentionDays: number | null;
  /** where articles past the retention are exported to (Parquet) before they leave the store (null: the store keeps them) */
  readonly archiveDir: string | null;
  /** try_cache responses by (key, parameters) */
  private readonly cache: SearchCache;
  /** articles the store holds back (no crawl_date yet: a replay was under way); ./seed.ts takes them */
  private heldBack: NewsArticle[] = [];
  private readonly listeners: IndexedListener[] = [];
  /** work on this service to stop before it closes (the seeder's replay and background seed) */
  private readonly stops: (() => Promise<void>)[] = [];

  /** where the index is saved (null: not saved) */
  readonly indexDir: string | null;
  /** `index.changes` when it was last saved or loaded as saved (-1: never) */
  private savedChanges = -1;
  /** the save under way (close waits for it) */
  private saving: Promise<void> = Promise.resolve();
  private saveTimer: NodeJS.Timeout | null = null;
  /** whether the index finished loading (only a whole index is saved) */
  private loadedWhole = false;
  /** how the index was loaded: from the saved index (with the rows caught up) or rebuilt from the store */
  readonly loadedFrom = { saved: false, caughtUp: 0, gone: 0, why: null as string | null };

  private constructor(
    readonly db: Db,
    readonly index: NewsIndex,
    readonly embedder: Embedder | null,
    readonly clock: () => number,
    opts: { indexDir?: string | null; retentionDays?: number | null; archiveDir?: string | null } = {},
  ) {
    this.indexDir = opts.indexDir === undefined ? indexDirOf(db) : opts.indexDir;
    this.retentionDays = opts.retentionDays ?? null;
    this.archiveDir = opts.archiveDir ?? null;
    this.store = new NewsStore(db);
    this.hits = new HitRecorder(this.store);
    this.cache = new SearchCache(clock);
  }

  /**
   * Resolves when the index holds what the store holds and what `alsoLoad` added is done (at once
   * unless opened with `background`); rejects when loading failed or was stopped by `close`.
   */
  loaded: Promise<void> = Promise.resolve();
  /** false while the index loads in the background: the readiness of the service (/readyz) */
  ready = true;
  /** articles placed in the index so far, and how many the store holds (the start-up status) */
  readonly progress = { placed: 0, indexed: 0 };
  /** set by close: a load under way stops at its next chunk */
  private closingDown = false;

  /**
   * Build the in-memory index from what the store holds. With `background`, return at once: the
   * index loads behind `loaded` (`ready` false meanwhile, searches answer 503), so the service
   * answers from its first second and SIGTERM stops it while it loads.
   */
  static async open(
    db: Db,
    opts: {
      embedder: Embedder | null;
      clock?: () => number;
      background?: boolean;
      /** where the index is saved and loaded from (default: `news-index` beside the store; null: never saved) */
      indexDir?: string | null;
      retentionDays?: number | null;
      archiveDir?: string | null;
    },
  ): Promise<NewsService> {
    const svc = new NewsService(db, new NewsIndex(opts.embedder), opts.embedder, opts.clock ?? Date.now, opts);
    if (!opts.background) {
      await svc.load();
      return svc;
    }
    svc.ready = false;
    svc.index.loading = svc.progress;
    svc.loaded = svc.load().then(() => {
      svc.index.loading = null;
    });
    svc.alsoLoad(() => Promise.resolve());
    return svc;
  }

  /**
   * Run `fn` once the index is loaded (stories restore their clusters from it); `loaded` and
   * `ready` wait for it too.
   */
  alsoLoad(fn: () => Promise<unknown>): void {
    const next = this.loaded.then(fn).then(() => undefined);
    this.loaded = next;
    next.catch(() => undefined);
    if (!this.ready)
      void next.then(
        () => this.loaded === next && (this.ready = true),
        () => undefined,
      );
  }

  /** The earliest publication date the retention keeps (null: all). */
  retainFrom(): number | null {
    return this.retentionDays === null ? null : this.clock() - this.retentionDays * DAY_MS;
  }

  /**
   * Load the index: the saved one (./index-file.ts) with the store's newer rows caught up, else
   * (none, or one that cannot be used: a line says why) rebuilt from the store; then saved
   * (at once when it changed, after that every INDEX_SAVE_EVERY_MS and at close).
   */
  private async load(): Promise<void> {
    let restored: IndexMeta | null = null;
    if (this.indexDir && fs.existsSync(this.indexDir)) {
      try {
        restored = await this.restore(this.indexDir);
      } catch (e) {
        if (this.closingDown) throw e;
        const why = e instanceof IndexFileError ? e.message : `it could not be read (${(e as Error).message})`;
        this.loadedFrom.why = why;
        process.emitWarning(`the saved news index is not used: ${why}; rebuilding it from the store`);
        this.index.reset();
        this.progress.placed = 0;
      }
    }
    if (restored) {
      this.loadedFrom.saved = true;
      await this.fill({ watermarkUs: restored.watermarkUs });
    } else {
      await this.fill();
    }
    this.loadedWhole = true;
    // nothing is added before the load ends (addArticles waits for it): archived at once
    await this.archiveNow();
    if (!this.indexDir && this.retentionDays === null) return;
    if (this.index.changes !== this.savedChanges) this.saving = this.saveIndex().catch((e: unknown) => this.saveFailed(e));
    this.saveTimer = setInterval(() => {
      this.sweepRetention();
      void this.archive();
      if (this.index.changes !== this.savedChanges) this.saving = this.saveIndex().catch((e: unknown) => this.saveFailed(e));
    }, INDEX_SAVE_EVERY_MS);
    this.saveTimer.unref();
  }

  private saveFailed(e: unknown): void {
    process.emitWarning(`the news index was not saved (${(e as Error).message}); the next start rebuilds what it lacks from the store`);
  }

  /** Read the saved index into the (empty) index; throws IndexFileError when it cannot be used. */
  private async restore(dir: string): Promise<IndexMeta> {
    const meta = await readIndexMeta(dir, this.embedder?.model ?? null);
    const docs: { a: NewsArticle; text: string }[] = [];
    this.progress.indexed = meta.docs;
    await readIndexDocs(dir, (part) => {
      if (this.closingDown) throw new Error('the service closed while its index was loading');
      docs.push(...part);
      this.progress.placed = docs.length;
    });
    if (docs.length !== meta.docs) throw new IndexFileError(`the saved index holds ${docs.length} documents, its meta.json says ${meta.docs}`);
    const { bm25, vectors, fillVectors } = readIndexArrays(dir, meta);
    this.index.thaw({ docs, bm25, vectors, dim: meta.dim }, fillVectors);
    this.savedChanges = this.index.changes;
    return meta;
  }

  /**
   * Save the index now (after the additions under way; none when the store is in memory). The
   * store's newest row time is read first: a row written after it is caught up at the next start.
   */
  saveIndex(): Promise<void> {
    const dir = this.indexDir;
    if (!dir || !this.loadedWhole) return Promise.resolve();
    const run = async () => {
      const changes = this.index.changes;
      if (changes === this.savedChanges) return;
      const watermarkUs = await this.store.watermark();
      const frozen = this.index.freeze();
      await saveIndex(dir, frozen, { model: this.embedder?.model ?? null, watermarkUs, retentionDays: this.retentionDays });
      this.savedChanges = changes;
    };
    const next = this.adding.then(run, run);
    this.adding = next.catch(() => undefined);
    return next;
  }

  /**
   * With an archive folder: the articles past the retention are exported to Parquet there and
   * deleted from the store (after the additions under way). Resolves to what was archived.
   */
  archive(): Promise<{ file: string | null; articles: number }> {
    const run = () => this.archiveNow();
    const next = this.adding.then(run, run);
    this.adding = next.catch((e: unknown) => process.emitWarning(`articles past the retention were not archived: ${(e as Error).message}`));
    return next;
  }

  private async archiveNow(): Promise<{ file: string | null; articles: number }> {
    const from = this.retainFrom();
    const dir = this.archiveDir;
    if (from === null || !dir) return { file: null, articles: 0 };
    this.sweepRetention();
    const stamp = new Date(this.clock()).toISOString().replace(/[:.]/g, '-');
    return this.store.archiveBefore(from, dir, stamp);
  }

  /** Articles past the retention leave the search index (the store keeps them unless archived). */
  sweepRetention(): number {
    const from = this.retainFrom();
    if (from === null) return 0;
    let n = 0;
    for (const v of this.index.views) if (!v.gone && v.pubMs < from && this.index.remove(v.a.articleId)) n++;
    return n;
  }

  /**
   * Fill the index from the store, streamed in chunks (store/news.ts streamIndex): no copy of the
   * whole corpus is ever held at once (the article records keep no full text). With `saved` (a
   * saved index was loaded): only the rows it lacks, after its documents, and its documents whose
   * rows changed or are past the retention leave search. Articles without an embedding of this
   * model are embedded and stored after.
   */
  private async fill(saved?: { watermarkUs: number }): Promise<void> {
    const first = this.index.size;
    let indexed = 0;
    const held = new Map<number, NewsArticle>();
    const heldWithVector = new Set<number>();
    const stop = () => {
      if (this.closingDown) throw new Error('the service closed while its index was loading');
    };
    const views = this.index.views;
    await this.store.streamIndex(
      this.embedder?.model ?? null,
      {
        count: (n) => {
          indexed = first + n;
          this.index.expected = first + n;
          this.progress.indexed = first + n;
          this.progress.placed = first;
          this.loadedFrom.caughtUp = n;
        },
        gone: (docs) => {
          for (const d of docs) this.index.remove(views[d]!.a.articleId);
          this.loadedFrom.gone = docs.length;
        },
        articles: (rows) => {
          stop();
          this.progress.placed += rows.length;
          for (const { doc, a } of rows) {
            if (doc < indexed) this.index.place(doc, a, a.fullText);
            else held.set(doc, { ...a, fullText: null });
          }
        },
        terms: (rows) => {
          stop();
          for (const { doc, terms } of rows) if (doc < indexed) this.index.placeTerms(doc, terms);
        },
        vectors: (rows) => {
          stop();
          for (const { doc, v } of rows) {
            if (doc < indexed) this.index.placeVector(doc, v);
            else heldWithVector.add(doc);
          }
        },
      },
      {
        saved: saved && {
          docs: views.map((v, doc) => ({ doc, id: v.a.articleId, pubMs: v.pubMs, crawlMs: v.crawlMs })).filter((d) => !views[d.doc]!.gone),
          watermarkUs: saved.watermarkUs,
          first,
        },
        retainFromMs: this.retainFrom(),
      },
    );
    // in (crawl, pub, id) order, as the store placed them
    const heldDocs = [...held.keys()].sort((a, b) => a - b);
    this.heldBack.push(...heldDocs.map((d) => held.get(d)!));
    if (!this.embedder) return;
    // embeddings of another model (or none): compute and store them now
    const missing: number[] = [];
    for (let doc = 0; doc < indexed; doc++) if (!this.index.hasVector(doc) && !views[doc]!.gone) missing.push(doc);
    for (const doc of heldDocs) if (!heldWithVector.has(doc)) missing.push(doc);
    const articleOf = (doc: number) => (doc < indexed ? this.index.views[doc]!.a : held.get(doc)!);
    for (let i = 0; i < missing.length; i += 1000) {
      stop();
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
      const vs = await this.embed(
        part.map((d) => ({ article: { ...articleOf(d), fullText: texts.get(articleOf(d).articleId) ?? null }, terms: [], embedding: null })),
      );
      await this.store.writeEmbeddings(
        part.map((d, k) => [ids[k]!, vs[k]!]),
        this.embedder.model,
      );
      part.forEach((d, k) => d < indexed && this.index.placeVector(d, vs[k]!));
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
      // pages indexed while the index loads (a resumed URL job) are added after it
      await this.loaded;
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
    this.closingDown = true;
    if (this.saveTimer) clearInterval(this.saveTimer);
    await this.loaded.catch(() => undefined);
    for (const stop of this.stops) await stop();
    await this.adding;
    await this.saving;
    // what changed since the last save (the store has it all: a failed save costs the next start a catch-up)
    await this.saveIndex().catch((e: unknown) => this.saveFailed(e));
    await this.hits.close();
  }
}
