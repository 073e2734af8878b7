/**
 * Loading a corpus into the news core: seeding (read, rebase, enrich or take from the
 * enriched-corpus cache, embed, store, index) and replay (articles held back and released in
 * publication order). Seeds go through NewsService's store and index; nothing here searches.
 */
import { readCorpus, type RawArticle } from '../corpus/read.js';
import { contentHash, docFreqOf, enrich } from '../enrich/index.js';
import { pageRanks } from '../enrich/publishers.js';
import type { LoadedArticle, NewsArticle } from '../article/model.js';
import type { NewsService } from './service.js';

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

/** How long a replay tick waits before looking for due articles again. */
const REPLAY_TICK_MS = 250;
/** A background seed's chunks: small, the event loop free between them, so the service keeps answering. */
const BACKGROUND_CHUNK = 50;

const byPubDate = (a: { pubDate: Date }, b: { pubDate: Date }) => a.pubDate.getTime() - b.pubDate.getTime();
const byPubThenId = (a: NewsArticle, b: NewsArticle) => byPubDate(a, b) || (a.articleId < b.articleId ? -1 : 1);

/** One seed of one corpus: what it found to do, and its loading in chunks. */
class SeedRun {
  /** the document frequencies of the corpus, computed when the first article misses the cache */
  private df: ReturnType<typeof docFreqOf> | null = null;
  readonly totals = { inserted: 0, updated: 0 };

  private constructor(
    private readonly news: NewsService,
    private readonly opts: SeedOptions,
    /** the seed's `now` (rebase, history horizon, head hours) */
    readonly now: Date,
    readonly raws: RawArticle[],
    /** articles new or changed (content hash) */
    readonly todo: RawArticle[],
    /** unchanged articles whose dates moved (rebase) */
    readonly moved: RawArticle[],
    readonly counts: Map<string, number>,
    readonly ranks: Map<string, number>,
    private readonly horizon: number | null,
    private readonly addPending: (a: NewsArticle[]) => void,
  ) {}

  static async plan(news: NewsService, corpusPath: string, opts: SeedOptions, addPending: (a: NewsArticle[]) => void): Promise<SeedRun> {
    const now = opts.now ?? new Date(news.clock());
    let raws = readCorpus(corpusPath);
    if (opts.rebaseDates) raws = rebase(raws, now);
    await opts.cache?.open(raws, news.embedder?.model ?? null);
    const known = await news.store.hashes();
    const todo = raws.filter((r) => known.get(r.articleId)?.hash !== contentHash(r));
    const moved = raws.filter((r) => {
      const k = known.get(r.articleId);
      return k && k.hash === contentHash(r) && k.pubMs !== r.pubDate.getTime();
    });
    if (moved.length) {
      await news.store.moveDates(moved.map((r) => ({ id: r.articleId, pubMs: r.pubDate.getTime() })));
      for (const r of moved) news.index.moveDates(r.articleId, r.pubDate);
    }
    const counts = new Map<string, number>();
    for (const r of raws) counts.set(r.domain, (counts.get(r.domain) ?? 0) + 1);
    const stored = await news.db.all<{ d: string; n: bigint }>(
      "SELECT domain_url AS d, count(*) AS n FROM articles WHERE article_id NOT IN (SELECT unnest(string_split($1, ','))::UUID) GROUP BY 1",
      [raws.map((r) => r.articleId).join(',')],
    );
    for (const s of stored) counts.set(s.d, (counts.get(s.d) ?? 0) + Number(s.n));
    const horizon = opts.replay && opts.historyDays ? now.getTime() - opts.historyDays * 86_400_000 : null;
    return new SeedRun(news, opts, now, raws, todo, moved, counts, pageRanks(counts), horizon, addPending);
  }

  private rank(d: string): number {
    return this.ranks.get(d) ?? this.ranks.size + 1;
  }

  /** Without replay every article has arrived; with it, only the history (if any): null is held back. */
  crawl(r: RawArticle): Date | null {
    return !this.opts.replay || (this.horizon !== null && r.pubDate.getTime() >= this.horizon) ? r.pubDate : null;
  }

  /** Enrich (or take from the cache), embed, store and index one chunk; held-back articles go pending. */
  private async load(chunk: RawArticle[], pause?: () => Promise<void>) {
    const { news, opts } = this;
    const fresh: RawArticle[] = [];
    const loaded: LoadedArticle[] = [];
    for (const r of chunk) {
      const hit = opts.cache?.get(r);
      if (hit) loaded.push({ ...hit, article: { ...hit.article, pubDate: r.pubDate, crawlDate: this.crawl(r), pageRank: this.rank(r.domain) } });
      else fresh.push(r);
    }
    if (fresh.length) {
      // the document frequencies come from the cache's articles when every article is a hit
      const df = (this.df ??= docFreqOf(this.raws));
      const made: LoadedArticle[] = [];
      for (const r of fresh) {
        made.push(enrich(r, df, { pageRank: (d) => this.rank(d), crawlDate: this.crawl(r) }));
        // in the background, the event loop gets a turn after each article (a long text takes a while)
        await pause?.();
      }
      const vecs = await news.embed(made);
      made.forEach((l, k) => (l.embedding = vecs[k] ?? null));
      opts.cache?.put(made);
      loaded.push(...made);
    }
    const w = await news.store.write(loaded, news.embedder?.model ?? null);
    const later: NewsArticle[] = [];
    for (const l of loaded) {
      if (l.article.crawlDate) news.index.add(l.article, l.terms, l.embedding, l.article.fullText);
      else later.push(l.article);
    }
    this.addPending(later);
    return w;
  }

  /** Load `part` in chunks of `chunkSize` (progress counted from `done0`), `between` awaited after each; stops when `stopped()`. */
  async run(part: RawArticle[], chunkSize: number, done0: number, stopped: () => boolean, between?: () => Promise<void>): Promise<void> {
    for (let i = 0; i < part.length && !stopped(); i += chunkSize) {
      const chunk = part.slice(i, i + chunkSize);
      this.opts.onProgress?.(done0 + i + chunk.length / 2, this.todo.length, 'enrich');
      const w = await this.load(chunk, between);
      this.totals.inserted += w.inserted;
      this.totals.updated += w.updated;
      this.opts.onProgress?.(done0 + i + chunk.length, this.todo.length, 'store');
      await between?.();
    }
  }

  /** Publishers and page ranks written, the listeners told (stories cluster what became visible). */
  async finish(refresh = false): Promise<void> {
    await this.news.writePublishers(this.counts, this.ranks);
    await this.news.indexed({ refresh });
  }

  async result(): Promise<SeedResult> {
    const c = await this.news.store.count();
    return {
      read: this.raws.length,
      enriched: this.todo.length,
      unchanged: this.raws.length - this.todo.length,
      redated: this.moved.length,
      ...this.totals,
      total: c.total,
      indexed: c.indexed,
    };
  }
}

export class NewsSeeder {
  private replayTimer: NodeJS.Timeout | null = null;
  /** bumped by stopReplay: a tick of an older generation stops */
  private replayGen = 0;
  /** the release a replay tick is doing, awaited on close */
  private releasing: Promise<void> | null = null;
  /** held-back articles in publication order (the replay releases from the front) */
  private pending: NewsArticle[];
  /** a background seed still adding pending articles: the replay waits for them */
  private filling: Promise<unknown> | null = null;
  private stopFilling = false;
  /** resolved by close(): a background seed waiting to begin gives up */
  private closing!: () => void;
  private readonly closed = new Promise<void>((r) => (this.closing = r));

  /** Takes the articles the store held back (a replay under way when the service stopped). */
  constructor(private readonly news: NewsService) {
    this.pending = news.takeHeldBack();
    // the index loading in the background: what it holds back comes when it is loaded
    if (!news.ready)
      void news.loaded.then(
        () => this.addPending(news.takeHeldBack()),
        () => undefined,
      );
    news.beforeClose(() => this.close());
  }

  /** Load a corpus. Unchanged articles (same content hash) are skipped: loading twice changes nothing. */
  async seed(corpusPath: string, opts: SeedOptions = {}): Promise<SeedResult> {
    await this.news.loaded;
    const run = await SeedRun.plan(this.news, corpusPath, opts, (a) => this.addPending(a));
    const stopped = () => this.stopFilling;
    if (!(opts.background && opts.replay)) {
      await run.run(run.todo, opts.batchSize ?? 1000, 0, stopped);
      await run.finish(run.moved.length > 0);
      if (opts.cache) await opts.cache.save();
      if (opts.replay) this.startReplay(opts.replay);
      return run.result();
    }
    return this.seedInBackground(run, opts as SeedOptions & { replay: number });
  }

  /**
   * The history first (its newest `headHours` searchable when seed returns, the rest newest
   * first), then the replayed articles oldest first, behind a running replay.
   */
  private async seedInBackground(run: SeedRun, opts: SeedOptions & { replay: number }): Promise<SeedResult> {
    const headFrom = opts.headHours ? run.now.getTime() - opts.headHours * 3_600_000 : -Infinity;
    const history = run.todo.filter((r) => run.crawl(r) !== null).sort((a, b) => byPubDate(b, a));
    const head = history.filter((r) => r.pubDate.getTime() >= headFrom);
    const older = history.filter((r) => r.pubDate.getTime() < headFrom);
    const rest = run.todo.filter((r) => run.crawl(r) === null).sort(byPubDate);
    const stopped = () => this.stopFilling;
    await run.run(head, opts.batchSize ?? 1000, 0, stopped);
    await run.finish(run.moved.length > 0);
    const oldest = Math.min(...run.raws.filter((r) => run.crawl(r) === null).map((r) => r.pubDate.getTime()), ...this.pending.map((a) => a.pubDate.getTime()));
    this.stopFilling = false;
    const pause = () => new Promise<void>((r) => setImmediate(r));
    let historyDone!: () => void;
    let historyFailed!: (e: unknown) => void;
    const historyLoaded = new Promise<void>((res, rej) => ((historyDone = res), (historyFailed = rej)));
    historyLoaded.catch(() => undefined);
    const fill = (async () => {
      await Promise.race([opts.backgroundAfter?.catch(() => undefined), this.closed]);
      try {
        await run.run(older, BACKGROUND_CHUNK, head.length, stopped, pause);
        if (older.length) await this.news.indexed();
        historyDone();
      } catch (e) {
        historyFailed(e);
        throw e;
      }
      await run.run(rest, BACKGROUND_CHUNK, head.length + older.length, stopped, pause);
      if (this.stopFilling) return run.result();
      await run.finish();
      if (opts.cache) await opts.cache.save();
      return run.result();
    })();
    this.filling = fill.catch(() => undefined).finally(() => (this.filling = null));
    this.startReplay(opts.replay, Number.isFinite(oldest) ? oldest : undefined);
    return { ...(await run.result()), rest: fill, history: historyLoaded };
  }

  /** pending articles stay in publication order (the replay releases from the front) */
  private addPending(articles: NewsArticle[]): void {
    if (!articles.length) return;
    const last = this.pending[this.pending.length - 1];
    this.pending.push(...articles);
    if (last && articles.some((a) => a.pubDate.getTime() < last.pubDate.getTime())) this.pending.sort(byPubThenId);
  }

  /**
   * Replay: pending articles are released in publication order; an article published `d` after
   * the first pending one is released `d / speed` after the replay starts, with crawl_date = the
   * release time.
   */
  startReplay(speed: number, firstPubMs?: number): void {
    if (!this.news.ready) {
      void this.news.loaded.then(
        () => this.startReplay(speed, firstPubMs),
        () => undefined,
      );
      return;
    }
    this.stopReplay();
    const gen = this.replayGen;
    this.pending.sort(byPubThenId);
    const clock = this.news.clock;
    const t0 = clock();
    // a background seed passes the oldest article it will add (it may not be pending yet)
    const first = firstPubMs ?? this.pending[0]?.pubDate.getTime() ?? 0;
    const tick = async () => {
      const elapsed = clock() - t0;
      const due: NewsArticle[] = [];
      while (this.pending.length && (this.pending[0]!.pubDate.getTime() - first) / speed <= elapsed) due.push(this.pending.shift()!);
      if (due.length) {
        this.releasing = this.release(due, new Date(clock()));
        await this.releasing;
        this.releasing = null;
      }
      // stopped (or restarted) while this tick was releasing: do not re-arm
      if (gen !== this.replayGen) return;
      if (this.pending.length || this.filling) this.replayTimer = setTimeout(() => void tick(), REPLAY_TICK_MS);
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
    const { store, index, embedder } = this.news;
    const ids = articles.map((a) => a.articleId);
    await store.release(ids, at);
    const [postings, vectors, full] = await Promise.all([
      store.postingsOf(ids),
      embedder ? store.embeddingsOf(ids, embedder.model) : Promise.resolve(new Map<string, Float32Array>()),
      store.byIds(ids, true),
    ]);
    const texts = new Map(full.map((a) => [a.articleId, a.fullText]));
    for (const a of articles)
      index.add({ ...a, crawlDate: at }, postings.get(a.articleId) ?? [], vectors.get(a.articleId) ?? null, texts.get(a.articleId) ?? null);
    await this.news.indexed();
  }

  /** Stop the replay and any background seed; awaits the release under way (NewsService.close runs it first). */
  async close(): Promise<void> {
    this.stopReplay();
    this.stopFilling = true;
    this.closing();
    await this.filling;
    await this.releasing?.catch(() => undefined);
  }
}

/** Shift each source's dates by one offset so that its newest article is at `now`. */
export function rebase(raws: RawArticle[], now: Date): RawArticle[] {
  const newest = new Map<string, number>();
  for (const r of raws) newest.set(r.source, Math.max(newest.get(r.source) ?? 0, r.pubDate.getTime()));
  return raws.map((r) => ({ ...r, pubDate: new Date(r.pubDate.getTime() + (now.getTime() - newest.get(r.source)!)) }));
}
