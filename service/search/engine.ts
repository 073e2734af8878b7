/**
 * The news index and search: BM25 (kw), embedding cosine (nl), both fused with reciprocal rank
 * fusion, every filter of the interface, strategies, windows, diversification and stable
 * offset paging. Documents are the indexed (visible) articles, appended as they arrive.
 */
import { SEARCH_LIMITS, type SearchParamsParsed } from '../../spec/index.js';
import type { NewsArticle } from '../article/model.js';
import { Bm25Index, type Bm25Frozen } from './bm25.js';
import { VectorIndex } from './vectors.js';
import { calibrated, cosineFor, type Embedder } from './embedder.js';
import { compileFilter, type DocView } from './filters.js';
import { terms } from '../text/tokenize.js';
import { unavailable } from '../errors/index.js';

const HOUR = 3_600_000;
/** RRF constant (Cormack et al. 2009). */
const RRF_K = 60;
/** `both` fuses the best FUSION_DEPTH of each list, whatever the page (pages past it widen the head). */
const FUSION_DEPTH = 1000;
/**
 * The news vectors: IVF lists made in the IVF thread, never on the event loop (an exact scan
 * until the first are made), at most 256 lists (24 probed: a tenth of the vectors scanned at a
 * million, recall@10 in bench/search and bench/scale), so assigning a million vectors to their
 * lists takes a minute or two of the IVF thread, not the n^1.5 of sqrt(n) lists.
 */
const NEWS_VECTORS = { background: true, maxLists: 256 } as const;

export interface SearchContext {
  now: number;
  /** names of the query parameters the caller actually sent (hours_back only counts when sent) */
  given: Set<string>;
  onlyDomains: string[] | null;
  /** the caller's own documents are seen besides the shared corpus (filters.ts FilterContext.viewer); absent: the shared corpus only */
  viewer?: string | null;
}

export interface Ranked {
  docs: NewsArticle[];
  /** relevance of each returned doc (method-specific scale) */
  scores: number[];
  /** offset to ask for the next page */
  nextOffset: number;
  total: number;
  method: 'kw' | 'nl' | 'both' | 'recency';
}

/** What a saved index holds (./index-file.ts writes and reads it): the live documents renumbered 0..n-1. */
export interface FrozenIndex {
  /** the article records (no full text) with their searchable text, in document order */
  docs: { a: NewsArticle; text: string }[];
  bm25: Bm25Frozen;
  vectors: ReturnType<VectorIndex['freeze']> | null;
  dim: number;
}

export class NewsIndex {
  readonly views: DocView[] = [];
  /** article id of each doc (ties break on it) */
  private readonly ids: string[] = [];
  private readonly byId = new Map<string, number>();
  /** documents with an owner (URL indexing's private pages) */
  ownedCount = 0;
  /** documents that left the index (`remove`): kept in place, never found */
  removedCount = 0;
  /** bumped by every change (add, remove, moved dates): a saved index is older when it differs */
  changes = 0;
  bm25 = new Bm25Index();
  vectors: VectorIndex | null = null;

  /** while the index loads in the background (NewsService.open): how far it is; searches answer 503 meanwhile */
  loading: { placed: number; indexed: number } | null = null;
  /** documents the index expects (NewsService's rebuild knows the count): the vector storage is sized once */
  expected = 0;

  constructor(readonly embedder: Embedder | null) {}

  /** Empty the index (a saved index that failed to load part way is dropped before the rebuild). */
  reset(): void {
    this.views.length = 0;
    this.ids.length = 0;
    this.byId.clear();
    this.ownedCount = 0;
    this.removedCount = 0;
    this.bm25 = new Bm25Index();
    this.vectors = null;
    this.changes++;
  }

  get size(): number {
    return this.views.length;
  }

  has(id: string): boolean {
    const i = this.byId.get(id);
    return i !== undefined && !this.views[i]!.gone;
  }

  /**
   * Take the article out of search (past the retention, or about to be added again in a newer
   * version): its document stays in place, `get` still finds its record (stories keep theirs).
   */
  remove(id: string): boolean {
    const i = this.byId.get(id);
    if (i === undefined || this.views[i]!.gone) return false;
    this.views[i]!.gone = true;
    this.removedCount++;
    this.changes++;
    return true;
  }

  /**
   * The live documents of the first `upTo`, renumbered in order (what a saved index writes). The
   * records are shared, not copied: the caller writes them out before they change.
   */
  freeze(upTo = this.views.length): FrozenIndex {
    const remap = new Int32Array(upTo).fill(-1);
    const docs: FrozenIndex['docs'] = [];
    for (let d = 0; d < upTo; d++) {
      const v = this.views[d];
      if (!v || v.gone) continue;
      remap[d] = docs.length;
      docs.push({ a: v.a, text: v.text });
    }
    return {
      docs,
      bm25: this.bm25.freeze(remap),
      vectors: this.vectors ? this.vectors.freeze(remap, docs.length) : null,
      dim: this.vectors?.dim ?? 0,
    };
  }

  /**
   * Load what a saved index held into this (empty) index: the documents placed, the postings taken as they are,
   * the vectors written into the index's storage by `fillVectors`.
   */
  thaw(
    saved: Omit<FrozenIndex, 'vectors'> & { vectors: { isSet: Uint8Array; ivf: ReturnType<VectorIndex['freeze']>['ivf'] } | null },
    fillVectors: (into: Uint8Array) => void,
  ): void {
    if (this.views.length > 0) throw new Error('a saved index loads into an empty index only');
    saved.docs.forEach((d, i) => this.place(i, d.a, null, d.text));
    this.bm25 = Bm25Index.thaw(saved.bm25);
    if (saved.vectors && saved.dim > 0) {
      this.vectors = new VectorIndex(saved.dim, Math.max(16_384, this.expected), NEWS_VECTORS);
      this.vectors.thaw(saved.docs.length, fillVectors, saved.vectors.isSet, saved.vectors.ivf);
    }
  }

  get(id: string): NewsArticle | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.views[i]!.a;
  }

  /** Whether `viewer` (auth/principal.ts `ownerOf`, null: nobody's own) may see an article: shared, or its own. */
  static visible(a: Pick<NewsArticle, 'owner'>, viewer: string | null | undefined): boolean {
    return !a.owner || a.owner === viewer;
  }

  /** Add an indexed article (crawlDate set) with its index terms and embedding. */
  add(a: NewsArticle, indexTerms: string[], embedding: Float32Array | null, fullText: string | null): void {
    if (this.has(a.articleId)) return;
    const doc = this.views.length;
    this.place(doc, a, fullText);
    this.bm25.add(doc, indexTerms);
    if (embedding) this.placeVector(doc, embedding);
  }

  /**
   * Put an indexed article at document `doc` (a rebuild streams the store's articles in any order,
   * each with its place; `add` appends), without its terms and vector (`placeTerms`, `placeVector`).
   */
  place(doc: number, a: NewsArticle, fullText: string | null, searchText?: string): void {
    const entityKeys = new Set<string>();
    for (const [t, vs] of Object.entries(a.entities)) for (const v of vs) entityKeys.add(`${t.toLowerCase()}:${v.toLowerCase()}`);
    const points: [number, number][] = Object.values(a.geo ?? {}).map((g) => [g.latitude, g.longitude]);
    const text = searchText ?? NewsIndex.searchText(a, fullText);
    this.views[doc] = {
      a: a.fullText === null ? a : { ...a, fullText: null },
      text,
      entityKeys,
      points,
      pubMs: a.pubDate.getTime(),
      crawlMs: a.crawlDate ? a.crawlDate.getTime() : NaN,
      premium: a.isPremium,
      owner: a.owner ?? null,
    };
    if (a.owner) this.ownedCount++;
    this.ids[doc] = a.articleId;
    this.byId.set(a.articleId, doc);
    this.changes++;
  }

  /** The lowercased text string_guarantee looks in: title, summary, key points, full text. */
  static searchText(a: NewsArticle, fullText: string | null): string {
    return [a.title, a.summary, ...a.keyPoints, fullText ?? ''].join('\n').toLowerCase();
  }

  placeTerms(doc: number, indexTerms: string[]): void {
    this.bm25.add(doc, indexTerms);
  }

  placeVector(doc: number, embedding: Float32Array): void {
    this.vectors ??= new VectorIndex(embedding.length, Math.max(16_384, this.expected), NEWS_VECTORS);
    this.vectors.set(doc, embedding);
  }

  /** Whether document `doc` has a vector (a rebuild embeds those that have none). */
  hasVector(doc: number): boolean {
    return !!this.vectors && this.vectors.has(doc);
  }

  /** A rebased reload moved an article's dates. */
  moveDates(id: string, pubDate: Date): void {
    const i = this.byId.get(id);
    if (i === undefined) return;
    const v = this.views[i]!;
    const a = v.a;
    v.a = { ...a, pubDate, crawlDate: a.crawlDate ? pubDate : null };
    v.pubMs = pubDate.getTime();
    v.crawlMs = v.a.crawlDate ? pubDate.getTime() : NaN;
    this.changes++;
  }

  /** The effective method and time window of a request (strategies, historical, hours_back). */
  plan(p: SearchParamsParsed, ctx: SearchContext) {
    let method = p.method;
    let historical = p.historical;
    let from: number | null = null;
    let to: number | null = null;
    if (p.strategy === 'latest news') {
      method = 'nl';
      historical = false;
      from = ctx.now - SEARCH_LIMITS.latestNewsHours * HOUR;
    } else if (p.strategy === 'news knowledge') {
      method = 'kw';
      historical = true;
      from = ctx.now - SEARCH_LIMITS.newsKnowledgeDays * 24 * HOUR;
    } else {
      if (!historical) from = ctx.now - SEARCH_LIMITS.recentWindowHours * HOUR;
      if (ctx.given.has('hours_back')) from = ctx.now - p.hours_back * HOUR;
      if (p.start_timestamp != null) from = p.start_timestamp * 1000;
      if (p.end_timestamp != null) to = p.end_timestamp * 1000;
    }
    if (!historical && to === null) to = ctx.now;
    return { method, historical, window: { field: p.time_filter, from, to } };
  }

  async search(p: SearchParamsParsed, ctx: SearchContext): Promise<Ranked> {
    if (this.loading) {
      const { placed, indexed } = this.loading;
      throw unavailable(`the news index is loading (${placed} of ${indexed} articles read); retry in a few seconds`, { 'retry-after': '5' });
    }
    const plan = this.plan(p, ctx);
    const filter = compileFilter(p, {
      window: plan.window,
      onlyDomains: ctx.onlyDomains,
      viewer: ctx.viewer,
      owned: this.ownedCount > 0,
      removed: this.removedCount > 0,
    });
    const cache = new Int8Array(this.views.length); // 0 unknown, 1 yes, 2 no
    const accept = (doc: number) => {
      let v = cache[doc]!;
      if (v === 0) {
        v = filter(this.views[doc]!) ? 1 : 2;
        cache[doc] = v;
      }
      return v === 1;
    };
    // how much of the ranking a page needs (the rest is never sorted)
    const uuidOffset = typeof p.offset === 'string' ? this.byId.get(p.offset) : undefined;
    const need = (typeof p.offset === 'number' ? p.offset : 0) + p.n_articles;
    const depth = (p.diversify_sources ? need * 3 : need) + 1;
    const q = p.query.trim();
    let ranked: { doc: number; score: number }[];
    let method: Ranked['method'] = plan.method;
    if (!q) {
      // filters only: newest first
      method = 'recency';
      ranked = [];
      for (let i = 0; i < this.views.length; i++) if (accept(i)) ranked.push({ doc: i, score: 0 });
      const t = (i: number) => (plan.window.field === 'pub_date' ? this.views[i]!.a.pubDate : this.views[i]!.a.crawlDate!).getTime();
      ranked.sort((a, b) => t(b.doc) - t(a.doc) || this.tie(a.doc, b.doc));
    } else if (plan.method === 'kw') {
      ranked = this.top(this.kw(q, accept), depth, uuidOffset);
    } else if (plan.method === 'nl') {
      ranked = this.top(await this.nl(q, accept, p.similarity_score_threshold), depth, uuidOffset);
    } else {
      // RRF over the heads of both lists; a fixed head keeps pages consistent with each other
      const head = Math.max(FUSION_DEPTH, depth);
      const [kw, nl] = [this.top(this.kw(q, accept), head, uuidOffset), this.top(await this.nl(q, accept, p.similarity_score_threshold), head, uuidOffset)];
      const fused = new Map<number, number>();
      kw.forEach((r, i) => fused.set(r.doc, (fused.get(r.doc) ?? 0) + 1 / (RRF_K + i + 1)));
      nl.forEach((r, i) => fused.set(r.doc, (fused.get(r.doc) ?? 0) + 1 / (RRF_K + i + 1)));
      ranked = this.sorted({ docs: Int32Array.from(fused.keys()), scores: Float64Array.from(fused.values()) });
    }
    if (p.diversify_sources) ranked = this.diversify(ranked, (this.startOf(p, ranked) + p.n_articles) * 3);
    const start = this.startOf(p, ranked);
    const page = ranked.slice(start, start + p.n_articles);
    return {
      docs: page.map((r) => this.views[r.doc]!.a),
      scores: page.map((r) => r.score),
      nextOffset: start + page.length,
      total: ranked.length,
      method,
    };
  }

  /** Offset as a count, or as the id of the last article already seen (continue after it). */
  private startOf(p: SearchParamsParsed, ranked: { doc: number }[]): number {
    if (typeof p.offset === 'number') return p.offset;
    const doc = this.byId.get(p.offset);
    const at = doc === undefined ? -1 : ranked.findIndex((r) => r.doc === doc);
    return at + 1;
  }

  private tie(a: number, b: number): number {
    const x = this.ids[a]!;
    const y = this.ids[b]!;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /**
   * The best `k` results in ranking order (score, then article id). With a UUID offset the
   * ranking runs at least to that article, so the page after it can be cut.
   */
  private top(r: { docs: Int32Array; scores: Float64Array }, k: number, through?: number): { doc: number; score: number }[] {
    const n = r.docs.length;
    if (through !== undefined) {
      const at = r.docs.indexOf(through);
      if (at >= 0) {
        const s = r.scores[at]!;
        let before = 0;
        for (let i = 0; i < n; i++) if (r.scores[i]! > s || (r.scores[i] === s && this.tie(r.docs[i]!, through) < 0)) before++;
        k += before + 1;
      }
    }
    if (k <= 0 || k * 4 >= n) return this.sorted(r).slice(0, k > 0 ? k : n);
    return this.select(r, k);
  }

  /** true when doc a (score sa) ranks before doc b (score sb): score, then article id */
  private before(sa: number, a: number, sb: number, b: number): boolean {
    return sa > sb || (sa === sb && this.tie(a, b) < 0);
  }

  /**
   * The best `k` of `r` in ranking order with a bounded heap (its root the worst kept), so a
   * search sorts k results, not every match; the same list as sorting all and cutting.
   */
  private select(r: { docs: Int32Array; scores: Float64Array }, k: number): { doc: number; score: number }[] {
    const hd = new Int32Array(k);
    const hs = new Float64Array(k);
    let size = 0;
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) return;
        let w = l;
        if (l + 1 < size && this.before(hs[w]!, hd[w]!, hs[l + 1]!, hd[l + 1]!)) w = l + 1;
        if (!this.before(hs[i]!, hd[i]!, hs[w]!, hd[w]!)) return;
        const d = hd[i]!;
        const s = hs[i]!;
        hd[i] = hd[w]!;
        hs[i] = hs[w]!;
        hd[w] = d;
        hs[w] = s;
        i = w;
      }
    };
    const n = r.docs.length;
    for (let i = 0; i < n; i++) {
      const d = r.docs[i]!;
      const s = r.scores[i]!;
      if (size < k) {
        // sift up: the worst kept stays at the root
        let j = size++;
        while (j > 0) {
          const up = (j - 1) >> 1;
          if (!this.before(hs[up]!, hd[up]!, s, d)) break;
          hd[j] = hd[up]!;
          hs[j] = hs[up]!;
          j = up;
        }
        hd[j] = d;
        hs[j] = s;
      } else if (this.before(s, d, hs[0]!, hd[0]!)) {
        hd[0] = d;
        hs[0] = s;
        down(0);
      }
    }
    return this.sorted({ docs: hd.subarray(0, size), scores: hs.subarray(0, size) });
  }

  private sorted(r: { docs: Int32Array; scores: Float64Array }): { doc: number; score: number }[] {
    const out = Array.from(r.docs, (doc, i) => ({ doc, score: r.scores[i]! }));
    out.sort((a, b) => b.score - a.score || this.tie(a.doc, b.doc));
    return out;
  }

  private kw(q: string, accept: (doc: number) => boolean) {
    return this.bm25.score(terms(q, 'en'), accept);
  }

  async embedQuery(q: string): Promise<Float32Array | null> {
    if (!this.embedder || !this.vectors) return null;
    const [v] = await this.embedder.embed([q]);
    if (!v) return null;
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    return v.map((x) => x / n);
  }

  private async nl(q: string, accept: (doc: number) => boolean, threshold: number) {
    const v = await this.embedQuery(q);
    if (!v || !this.vectors || !this.embedder) return { docs: new Int32Array(0), scores: new Float64Array(0) };
    const r = this.embedder.relevantCosine;
    const hits = this.vectors.search(v, { candidates: null, accept, threshold: cosineFor(threshold, r) });
    return { docs: hits.docs, scores: hits.scores.map((c) => calibrated(c, r)) };
  }

  /**
   * Balance sources: greedy re-rank of the head of the list, each pick discounted by how many
   * earlier picks share its publisher (x0.6 each) and its country (x0.85 each).
   */
  private diversify(ranked: { doc: number; score: number }[], head: number): { doc: number; score: number }[] {
    const pool = ranked.slice(0, Math.max(head, 1));
    const rest = ranked.slice(pool.length);
    const out: { doc: number; score: number }[] = [];
    const perDomain = new Map<string, number>();
    const perCountry = new Map<string, number>();
    const base = (i: number) => (pool[i]!.score > 0 ? pool[i]!.score : 1 / (i + 1));
    const used = new Set<number>();
    while (out.length < pool.length) {
      let best = -1;
      let bestS = -Infinity;
      for (let i = 0; i < pool.length; i++) {
        if (used.has(i)) continue;
        const a = this.views[pool[i]!.doc]!.a;
        const s = base(i) * 0.6 ** (perDomain.get(a.domain) ?? 0) * 0.85 ** (perCountry.get(a.country) ?? 0);
        if (s > bestS) {
          bestS = s;
          best = i;
        }
      }
      used.add(best);
      const a = this.views[pool[best]!.doc]!.a;
      perDomain.set(a.domain, (perDomain.get(a.domain) ?? 0) + 1);
      perCountry.set(a.country, (perCountry.get(a.country) ?? 0) + 1);
      out.push(pool[best]!);
    }
    return [...out, ...rest];
  }
}
