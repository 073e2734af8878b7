/**
 * The URL indexing job runner: each URL of a job is fetched (the one SSRF-safe fetcher,
 * lib/fetch), read (article or not), put in the web index, and — when it is an article —
 * added to the news like a corpus article (enrichment, embedding, stories; NewsService.addArticles).
 *
 * - URLs run `concurrency` at a time over all jobs, shared round-robin between owners (FairQueue):
 *   a freed slot goes to the owner that has waited longest since it last got one, each owner's URLs
 *   in the order they came. One owner's 1,000-URL job delays another's 1-URL job by at most the
 *   fetch under way in each slot.
 * - An owner has at most `maxJobsPerOwner` jobs unfinished; one more is refused (TooManyJobs).
 * - What a job indexes is its owner's: articles and web pages visible to the owner's keys only
 *   (owner = the organization of an organization key, else the user), unless `shared`
 *   (NEWSFLOW_INDEX_URLS_SHARED=1), when they join the shared corpus and web index. Dedupe looks at
 *   what the owner sees.
 * - Every step is recorded in the store (url_job_items), so a restart resumes what was queued or
 *   running; an article's id derives from its canonical URL, so a URL done twice is still one
 *   article (the second write replaces the first).
 * - Dedupe: a URL (requested, then canonical) already stored as an article the owner sees, or a page whose text has
 *   the content hash (`bodyHash`) of the owner's article of another URL, is `skipped` with reason
 *   `duplicate`, unless `skip_dedupe`, which indexes a copy under an id of its own (job, item).
 * - A URL sent with `metadata.feed_item` (spec/news.ts FeedItemMetadata) whose page cannot be
 *   fetched or is not an article is indexed from the feed's fields (reason `feed_metadata`).
 */
import crypto from 'node:crypto';
import { FetchRefused, PageFetcher, type FetchOptions, type FetchedBytes } from '../../lib/fetch/fetcher.js';
import { stableUuid, type RawArticle } from '../corpus/read.js';
import type { WebIndex, WebPage } from './web-index.js';
import { FEED_ITEM_METADATA_KEY, FeedItemMetadata, type IndexUrlsRequestParsed } from '../../spec/index.js';
import { bodyHash, canonicalUrl, domainOf, normaliseUrl } from './canonical.js';
import { PageReadTimeout, readerPool } from './reader-pool.js';
import type { ReadPage } from './page.js';
import type { ExtractedArticle } from '../fetch/extract.js';
import { JobStore, type ItemOutcome, type Job, type JobItem, type JobStatus } from './jobs.js';
import { FairQueue } from './fair-queue.js';
import { ownerOf } from '../auth/principal.js';

/**
 * Where a read page goes as an article: the news service (NewsService.addArticles: enrichment,
 * embedding, stories, the search index). The runner needs this one method, so it does not import
 * the news service (which is built on the search and store rooms this folder also uses).
 */
export interface ArticleSink {
  addArticles(raws: RawArticle[], at?: Date): Promise<unknown>;
}

/** concurrency: URLs fetched at once over all jobs; maxJobsPerOwner: unfinished jobs an owner may have. */
export const INDEXER_DEFAULTS = { concurrency: 4, maxJobsPerOwner: 4 } as const;

/** An owner already has `limit` unfinished jobs (the route's 429). */
export class TooManyJobs extends Error {
  constructor(
    readonly owner: string,
    readonly limit: number,
  ) {
    super(`${limit} URL indexing job${limit === 1 ? ' is' : 's are'} unfinished for this key's owner (the most at once); retry when one has finished`);
  }
}

/** Fetch refusals that are the URL's or the policy's (status `refused`); the others are `failed`. */
const REFUSED = new Set(['forbidden_address', 'scheme', 'invalid_url']);

export interface IndexerOptions {
  /** URLs fetched at once, over all jobs; default 4 */
  concurrency?: number;
  /** unfinished jobs an owner may have; default 4 */
  maxJobsPerOwner?: number;
  /** pages join the shared corpus and web index (default false: their owner's only) */
  shared?: boolean;
  fetch?: FetchOptions;
  clock?: () => number;
  log?: { warn: (o: object, msg: string) => void; error: (o: object, msg: string) => void };
}

/** pub_date of an indexed page: its published time, else the fetch time, moved into [start, end]. */
export function boundPubDate(published: string | null, fetchedAt: Date, start: Date, end: Date): { pubDate: Date; dateDerived: boolean } {
  const t = published ? Date.parse(published) : NaN;
  let when = Number.isNaN(t) ? fetchedAt.getTime() : t;
  let derived = Number.isNaN(t);
  if (when < start.getTime()) [when, derived] = [start.getTime(), true];
  if (when > end.getTime()) [when, derived] = [end.getTime(), true];
  return { pubDate: new Date(when), dateDerived: derived };
}

/** Who owns a job: the organization of an organization key, else the key's user. */
export { ownerOf };

export function jobMessage(counts: Record<string, number>): string {
  const n = Object.values(counts).reduce((a, b) => a + b, 0);
  const todo = (counts.queued ?? 0) + (counts.running ?? 0);
  const done = `${counts.indexed ?? 0} indexed, ${counts.skipped ?? 0} skipped, ${counts.refused ?? 0} refused, ${counts.failed ?? 0} failed`;
  return `${n} URL${n === 1 ? '' : 's'}: ${done}${todo ? `, ${todo} to do` : ''}`;
}

export function finalStatus(counts: Record<string, number>): JobStatus {
  const ok = (counts.indexed ?? 0) + (counts.skipped ?? 0);
  const bad = (counts.refused ?? 0) + (counts.failed ?? 0);
  if (bad === 0) return 'completed';
  return ok > 0 ? 'partial' : 'failed';
}

export class UrlIndexer {
  readonly jobs: JobStore;
  private readonly queue: FairQueue;
  private readonly fetcher: PageFetcher;
  private readonly abort = new AbortController();
  private readonly clock: () => number;
  /** job id -> URLs not finished yet */
  private readonly remaining = new Map<string, number>();
  /** job id -> its owner, for the jobs not finished */
  private readonly ownerOfJob = new Map<string, string>();
  /** job id -> normalised URL -> first item seq asking for it (dedupe within a job) */
  private readonly firstOf = new Map<string, Map<string, number>>();
  /** content hash -> canonical URL of a page being added now (two URLs of one article in flight at once) */
  private readonly inflight = new Map<string, string>();
  private closing = false;

  constructor(
    jobs: JobStore,
    private readonly news: ArticleSink,
    private readonly web: WebIndex,
    private readonly opts: IndexerOptions = {},
  ) {
    this.jobs = jobs;
    this.clock = opts.clock ?? Date.now;
    this.queue = new FairQueue(opts.concurrency ?? INDEXER_DEFAULTS.concurrency);
    this.fetcher = new PageFetcher(opts.fetch ?? {});
  }

  private now = () => new Date(this.clock());

  /** Queue again what a stopped service left queued or running. */
  async resume(): Promise<number> {
    let n = 0;
    for (const job of await this.jobs.unfinished()) {
      const items = await this.jobs.items(job.jobId);
      const todo = items.filter((i) => i.status === 'queued' || i.status === 'running');
      this.track(job.jobId, items, job.owner);
      if (todo.length === 0) await this.finish(job.jobId);
      else this.enqueue(job, todo);
      n += todo.length;
    }
    return n;
  }

  /** Jobs of an owner not finished yet (queued or running). */
  unfinishedOf(owner: string): number {
    let n = 0;
    for (const o of this.ownerOfJob.values()) if (o === owner) n++;
    return n;
  }

  /** A new job: stored, then its URLs queued. Throws TooManyJobs when the owner has `maxJobsPerOwner` unfinished. */
  async submit(owner: string, keyId: string | null, req: IndexUrlsRequestParsed): Promise<Job> {
    const limit = this.opts.maxJobsPerOwner ?? INDEXER_DEFAULTS.maxJobsPerOwner;
    if (this.unfinishedOf(owner) >= limit) throw new TooManyJobs(owner, limit);
    const now = this.now();
    const job: Job = {
      jobId: crypto.randomUUID(),
      owner,
      keyId,
      status: 'queued',
      startTime: new Date(req.start_time),
      endTime: new Date(req.end_time),
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    };
    const urls = req.urls.map((u) => ({
      url: u.url.trim(),
      skipDedupe: !!u.skip_dedupe,
      data: u.data ?? null,
      metadata: u.metadata ?? null,
      enrichments: u.enrichments ?? null,
    }));
    // the slot is taken before the first await: two requests at once cannot both pass the limit
    this.ownerOfJob.set(job.jobId, owner);
    try {
      await this.jobs.create(job, urls, now);
    } catch (e) {
      this.ownerOfJob.delete(job.jobId);
      throw e;
    }
    const items: JobItem[] = urls.map((u, seq) => ({
      ...u,
      jobId: job.jobId,
      seq,
      status: 'queued',
      reason: null,
      detail: null,
      finalUrl: null,
      canonicalUrl: null,
      httpStatus: null,
      title: null,
      articleId: null,
      updatedAt: now,
    }));
    this.track(job.jobId, items, owner);
    const submitted = { ...job };
    this.enqueue(job, items);
    return submitted;
  }

  private track(jobId: string, items: JobItem[], owner: string): void {
    this.ownerOfJob.set(jobId, owner);
    this.remaining.set(jobId, items.filter((i) => i.status === 'queued' || i.status === 'running').length);
    const first = new Map<string, number>();
    for (const i of items) {
      const u = normaliseUrl(i.url);
      if (u && !i.skipDedupe && !first.has(u)) first.set(u, i.seq);
    }
    this.firstOf.set(jobId, first);
  }

  private enqueue(job: Job, items: JobItem[]): void {
    for (const item of items)
      void this.queue
        .add(job.owner, () => this.run(job, item))
        .catch((e: unknown) => this.opts.log?.error({ err: e, jobId: job.jobId, seq: item.seq }, 'index_urls item failed'));
  }

  private async run(job: Job, item: JobItem): Promise<void> {
    if (this.closing) return;
    if (job.status === 'queued') {
      job.status = 'running';
      await this.jobs.setJobStatus(job.jobId, 'running', this.now(), false);
    }
    await this.jobs.setRunning(job.jobId, item.seq, this.now());
    let outcome: ItemOutcome;
    try {
      outcome = await this.index(job, item);
    } catch (e) {
      if (this.closing) return; // left running: the next start does it again
      this.opts.log?.error({ err: e, jobId: job.jobId, url: item.url }, 'index_urls: indexing a page failed');
      outcome = { ...EMPTY, status: 'failed', reason: 'error', detail: 'internal error while indexing the page' };
    }
    // stopped while fetching: the aborted fetch is not this URL's fault; left running, done again on the next start
    if (this.closing && outcome.articleId === null && (outcome.status === 'failed' || outcome.status === 'refused')) return;
    await this.jobs.finishItem(job.jobId, item.seq, outcome, this.now());
    const left = (this.remaining.get(job.jobId) ?? 1) - 1;
    this.remaining.set(job.jobId, left);
    if (left <= 0) await this.finish(job.jobId);
  }

  private async finish(jobId: string): Promise<void> {
    const counts = countsOf(await this.jobs.items(jobId));
    await this.jobs.setJobStatus(jobId, finalStatus(counts), this.now(), true);
    this.remaining.delete(jobId);
    this.firstOf.delete(jobId);
    this.ownerOfJob.delete(jobId);
  }

  /**
   * Whether an item may be indexed from its feed's fields when its page is not used: never in
   * shared mode, where an article would be seen by every tenant under the domain of a URL whose
   * page did not say it (anyone could plant one under any domain).
   */
  private get feedFallback(): boolean {
    return !this.opts.shared;
  }

  /** Who sees what a job indexes: null the shared corpus (`shared`), else the job's owner. */
  private pageOwner(job: Job): string | null {
    return this.opts.shared ? null : job.owner;
  }

  /** An article the job's owner sees stored under `url` by something other than this job, or null. */
  private async duplicate(url: string, job: Job): Promise<string | null> {
    const found = await this.jobs.articleByUrl(url, job.owner);
    return found && found.jobId !== job.jobId ? found.articleId : null;
  }

  private async index(job: Job, item: JobItem): Promise<ItemOutcome> {
    const requested = normaliseUrl(item.url);
    if (!requested) return { ...EMPTY, status: 'refused', reason: 'invalid_url', detail: `not an http(s) URL: ${item.url.slice(0, 200)}` };
    if (!item.skipDedupe) {
      const first = this.firstOf.get(job.jobId)?.get(requested);
      if (first !== undefined && first !== item.seq)
        return { ...EMPTY, status: 'skipped', reason: 'duplicate', detail: `the same URL as urls[${first}] of this job`, canonicalUrl: requested };
      const dup = await this.duplicate(requested, job);
      if (dup)
        return { ...EMPTY, status: 'skipped', reason: 'duplicate', detail: `already indexed as article ${dup}`, canonicalUrl: requested, articleId: dup };
    }
    const feedItem = FeedItemMetadata.safeParse(item.metadata?.[FEED_ITEM_METADATA_KEY]);
    let page: FetchedBytes;
    try {
      page = await this.fetcher.fetchBytes(item.url, this.abort.signal);
    } catch (e) {
      if (!(e instanceof FetchRefused)) throw e;
      const failed: ItemOutcome = {
        ...EMPTY,
        status: REFUSED.has(e.reason) ? 'refused' : 'failed',
        reason: e.reason,
        detail: refusalDetail(e),
        finalUrl: e.url !== item.url ? e.url : null,
        httpStatus: e.status ?? null,
      };
      // the feed's fields only for a page the server reached and that answered (never for an
      // address the policy refuses, a name that does not resolve, or a host that never answered)
      if (!feedItem.success || this.closing || !this.feedFallback || !ANSWERED.has(e.reason)) return failed;
      return this.fromFeedItem(job, item, requested, feedItem.data, failed, `the page could not be fetched (${refusalDetail(e)})`);
    }
    let read: ReadPage;
    try {
      // charset detection and reading, both in a reader thread within the page's budget
      read = (await readerPool().readBytes(page)).read;
    } catch (e) {
      if (!(e instanceof PageReadTimeout)) throw e;
      return { ...EMPTY, status: 'failed', reason: 'timeout', detail: e.message, finalUrl: page.url, httpStatus: page.status };
    }
    const canonical = canonicalUrl(page.url, read.canonical);
    const fetched = { ...EMPTY, finalUrl: page.url, canonicalUrl: canonical, httpStatus: page.status, title: read.title };
    const fetchedAt = this.now();
    const owner = this.pageOwner(job);
    const webPage: WebPage = {
      owner: owner ?? '',
      url: canonical,
      finalUrl: page.url,
      domain: domainOf(canonical),
      title: read.title,
      text: read.text,
      siteName: read.siteName,
      language: read.language,
      published: read.published ? new Date(read.published) : null,
      fetchedAt,
      isArticle: !!read.article,
      articleId: null,
    };
    const extras = { jobId: job.jobId, metadata: item.metadata, enrichments: item.enrichments };
    if (!item.skipDedupe && canonical !== requested) {
      const dup = await this.duplicate(canonical, job);
      if (dup) return { ...fetched, status: 'skipped', reason: 'duplicate', detail: `its canonical URL is already indexed as article ${dup}`, articleId: dup };
    }
    if (!read.article) {
      await this.web.put(webPage, extras);
      if (feedItem.success && this.feedFallback)
        return this.fromFeedItem(job, item, requested, feedItem.data, fetched, `the page is not an article (${read.skipped})`);
      return { ...fetched, status: 'skipped', reason: 'not_article', detail: read.skipped };
    }
    const hash = item.skipDedupe ? null : bodyHash(read.text);
    if (hash) {
      const same = this.web.articleWithBody(hash, owner ?? '');
      if (same && same.url !== canonical)
        return {
          ...fetched,
          status: 'skipped',
          reason: 'duplicate',
          detail: `its text is the text of article ${same.articleId} at ${same.url}`,
          articleId: same.articleId,
        };
      const flying = this.inflight.get(`${owner ?? ''}:${hash}`);
      if (flying && flying !== canonical)
        return { ...fetched, status: 'skipped', reason: 'duplicate', detail: `its text is the text of ${flying}, indexed now` };
      this.inflight.set(`${owner ?? ''}:${hash}`, canonical);
    }
    // a page without a date of its own takes its feed's
    const published = read.published ?? (feedItem.success ? (feedItem.data.published ?? null) : null);
    try {
      return await this.addPage(job, item, canonical, webPage, { ...read, article: read.article, published }, fetched, fetchedAt, extras);
    } finally {
      if (hash && this.inflight.get(`${owner ?? ''}:${hash}`) === canonical) this.inflight.delete(`${owner ?? ''}:${hash}`);
    }
  }

  /** An article page, added to the news and the web index. */
  private async addPage(
    job: Job,
    item: JobItem,
    canonical: string,
    webPage: WebPage,
    read: ReadPage & { article: ExtractedArticle },
    fetched: ItemOutcome,
    fetchedAt: Date,
    extras: { jobId: string; metadata: JobItem['metadata']; enrichments: JobItem['enrichments'] },
  ): Promise<ItemOutcome> {
    const owner = this.pageOwner(job);
    // an owner's own copy has an id of its own: another owner indexing the same URL gets another article
    const key = owner === null ? `web:${canonical}` : `web:${owner}:${canonical}`;
    const articleId = item.skipDedupe ? stableUuid(`${key}:${job.jobId}:${item.seq}`) : stableUuid(key);
    const { pubDate, dateDerived } = boundPubDate(read.published, fetchedAt, job.startTime, job.endTime);
    const raw: RawArticle = {
      articleId,
      source: 'web',
      sourceKey: canonical,
      url: canonical,
      domain: webPage.domain,
      title: read.title,
      text: read.text,
      pubDate,
      sourceCategories: [],
      sourceSentiment: null,
      urlDerived: false,
      dateDerived,
      authors: read.article.authors,
      language: read.language,
      imageUrl: read.article.image_url,
      owner,
    };
    await this.news.addArticles([raw], fetchedAt);
    await this.web.put({ ...webPage, articleId }, extras);
    return { ...fetched, status: 'indexed', reason: null, detail: null, articleId };
  }

  /**
   * An item whose page was not used, indexed from what its feed says (`metadata.feed_item`):
   * under its requested URL, with the feed's title, summary (enriched in place of the text; no
   * full_text), authors, date and language; reason `feed_metadata`, `why` as the detail.
   */
  private async fromFeedItem(job: Job, item: JobItem, url: string, meta: FeedItemMetadata, base: ItemOutcome, why: string): Promise<ItemOutcome> {
    const fetchedAt = this.now();
    const owner = this.pageOwner(job);
    const key = owner === null ? `web:${url}` : `web:${owner}:${url}`;
    const articleId = item.skipDedupe ? stableUuid(`${key}:${job.jobId}:${item.seq}`) : stableUuid(key);
    const published = meta.published && !Number.isNaN(Date.parse(meta.published)) ? meta.published : null;
    const { pubDate, dateDerived } = boundPubDate(published, fetchedAt, job.startTime, job.endTime);
    const lang = /^([a-z]{2,3})(?:[-_]|$)/i.exec(meta.language ?? '')?.[1]?.toLowerCase();
    const raw: RawArticle = {
      articleId,
      source: 'web',
      sourceKey: url,
      url,
      domain: domainOf(url),
      title: meta.title.trim(),
      text: '',
      feedSummary: meta.summary?.trim() || undefined,
      pubDate,
      sourceCategories: [],
      sourceSentiment: null,
      urlDerived: false,
      dateDerived,
      authors: (meta.authors ?? []).map((a) => a.trim()).filter(Boolean),
      language: lang,
      imageUrl: null,
      owner,
    };
    await this.news.addArticles([raw], fetchedAt);
    return { ...base, status: 'indexed', reason: 'feed_metadata', detail: why, canonicalUrl: url, title: raw.title, articleId };
  }

  /** URLs waiting or under way, over all jobs. */
  get pending(): number {
    return this.queue.size + this.queue.running;
  }

  /** Stop: nothing new starts, fetches under way are aborted (their URLs stay running, resumed on the next start). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.queue.clear();
    this.abort.abort();
    await this.queue.onIdle();
    await this.fetcher.destroy();
  }
}

/** Refusals after which the page's host answered (a status, a type, a size): the feed's fields may stand in for its page. */
const ANSWERED = new Set(['http_status', 'not_html', 'too_large']);

/**
 * What a job item says of a refusal: its category in words, never a host name, a resolved
 * address or a socket error (which would let a caller map the names and addresses inside the
 * server's network); the HTTP status of an `http_status`.
 */
export function refusalDetail(e: FetchRefused): string {
  switch (e.reason) {
    case 'forbidden_address':
      return 'forbidden_address: the fetch policy does not allow the address of this host';
    case 'dns':
      return 'not_found: the host name does not resolve';
    case 'invalid_url':
      return 'invalid_url: not a URL';
    case 'scheme':
      return 'scheme: only http and https are fetched';
    case 'network':
      return 'network: the connection failed or was closed';
    case 'timeout':
      return 'timeout: the page took too long';
    case 'too_many_redirects':
      return 'too_many_redirects: too many redirects';
    case 'http_status':
      return `http_status: HTTP ${e.status ?? ''}`.trim();
    case 'not_html':
      return 'not_html: not an HTML page';
    case 'too_large':
      return 'too_large: the page is over the size cap';
    default:
      return e.reason;
  }
}

const EMPTY: ItemOutcome = { status: 'failed', reason: null, detail: null, finalUrl: null, canonicalUrl: null, httpStatus: null, title: null, articleId: null };

export function countsOf(items: Pick<JobItem, 'status'>[]): Record<string, number> {
  const counts: Record<string, number> = { queued: 0, running: 0, indexed: 0, skipped: 0, refused: 0, failed: 0 };
  for (const i of items) counts[i.status] = (counts[i.status] ?? 0) + 1;
  return counts;
}
