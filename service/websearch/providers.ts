/**
 * Web search providers behind one interface: the service's own web index (default) and a
 * SearXNG instance's JSON API, whose top results are fetched and read live through the one
 * SSRF-safe fetcher.
 */
import { request } from 'undici';
import type { PageFetcher } from '../../lib/fetch/fetcher.js';
import { normaliseUrl, domainOf } from '../indexing/canonical.js';
import { readerPool } from '../indexing/reader-pool.js';
import type { WebIndex, WebPage } from '../indexing/web-index.js';

/** What a provider is asked (already checked and normalised by the caller). */
export interface ProviderRequest {
  queries: string[];
  /** the time window on the page's date (ms), either end open */
  from: number | null;
  to: number | null;
  /** domains (lower case, no www.) */
  domains: string[];
  /** strict: only the domains, and only pages whose published time is known and in the window */
  strict: boolean;
  offset: number;
  limit: number;
  /** the instant the window was computed from (ms; default: the provider's clock now) */
  now?: number;
  /** whose own indexed pages are found besides the shared ones (the index provider; auth/principal.ts ownerOf) */
  viewer?: string | null;
  signal?: AbortSignal;
}

/** One result, before distillation. */
export interface WebHit {
  url: string;
  title: string;
  domain: string;
  published: Date | null;
  /** the page's text ('' when only a snippet is known) */
  text: string;
  /** the provider's own snippet, used when the page could not be read */
  snippet: string | null;
  language: string | null;
  /** the article id when the page is an indexed article */
  articleId: string | null;
}

export interface WebSearchProvider {
  readonly name: string;
  search(req: ProviderRequest): Promise<{ hits: WebHit[]; more: boolean }>;
}

/** A provider that could not answer (HTTP error, timeout, bad JSON): the route's 502. */
export class WebSearchProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
  ) {
    super(`${provider} provider failed: ${message}`);
  }
}

const RRF_K = 60;

export const domainMatches = (domain: string, wanted: string[]) => wanted.some((d) => domain === d || domain.endsWith(`.${d}`));

/**
 * Fuse ranked lists (one per query) by reciprocal rank fusion; with domains and not strict, the
 * pages of those domains come first (each part in fused order). Ties by key.
 */
export function fuse<T>(lists: T[][], key: (t: T) => string, preferred: (t: T) => boolean): T[] {
  const score = new Map<string, { t: T; s: number }>();
  for (const list of lists) {
    list.forEach((t, rank) => {
      const k = key(t);
      const e = score.get(k) ?? { t, s: 0 };
      e.s += 1 / (RRF_K + rank + 1);
      score.set(k, e);
    });
  }
  const all = [...score.entries()].sort((a, b) => b[1].s - a[1].s || (a[0] < b[0] ? -1 : 1)).map(([, e]) => e.t);
  return [...all.filter(preferred), ...all.filter((t) => !preferred(t))];
}

/** Whether a date passes the window (an unknown date passes unless strict). */
function inWindow(date: Date | null, req: ProviderRequest): boolean {
  if (req.from === null && req.to === null) return true;
  if (!date) return !req.strict;
  const t = date.getTime();
  return (req.from === null || t >= req.from) && (req.to === null || t <= req.to);
}

/** The service's own web index: every page URL indexing fetched, ranked by BM25. */
export class IndexProvider implements WebSearchProvider {
  readonly name = 'index';
  constructor(private readonly index: WebIndex) {}

  async search(req: ProviderRequest): Promise<{ hits: WebHit[]; more: boolean }> {
    const accept = (p: WebPage) =>
      (!req.strict || req.domains.length === 0 || domainMatches(p.domain, req.domains)) &&
      // not strict: a page without a published time is judged by when it was fetched
      inWindow(p.published ?? (req.strict ? null : p.fetchedAt), req);
    const lists = req.queries.map((q) => this.index.rank(q, accept, req.viewer ?? null).map((r) => r.page));
    const fused = fuse(
      lists,
      (p) => p.url,
      (p) => req.domains.length > 0 && domainMatches(p.domain, req.domains),
    );
    const page = fused.slice(req.offset, req.offset + req.limit);
    return {
      hits: page.map((p) => ({
        url: p.url,
        title: p.title,
        domain: p.domain,
        published: p.published,
        text: p.text,
        snippet: null,
        language: p.language,
        articleId: p.articleId,
      })),
      more: fused.length > req.offset + req.limit,
    };
  }
}

interface SearxResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
  publishedDate?: unknown;
}

export const SEARXNG_DEFAULTS = {
  /** time for SearXNG's answer */
  timeoutMs: 15_000,
  /** result pages fetched at once */
  fetchConcurrency: 5,
  /** SearXNG result pages asked per query at most */
  maxPages: 3,
} as const;

/**
 * SearXNG (`GET {base}/search?q=...&format=json`; the instance must allow the json format in its
 * settings.yml). Each query asks its result pages until offset + limit results are known; the
 * results are fused across queries, filtered (window on `publishedDate`, domains), and the page
 * asked for is fetched and read through the SSRF-safe fetcher; a result that cannot be fetched
 * keeps SearXNG's snippet. The window becomes SearXNG's `time_range` (day, week, month, year) when
 * it ends now; one domain becomes `site:` in the query.
 */
export class SearxngProvider implements WebSearchProvider {
  readonly name = 'searxng';
  constructor(
    private readonly baseUrl: string,
    private readonly fetcher: PageFetcher,
    private readonly clock: () => number = Date.now,
  ) {}

  private async ask(query: string, pageno: number, timeRange: string | null, signal?: AbortSignal): Promise<SearxResult[]> {
    const u = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    u.searchParams.set('q', query);
    u.searchParams.set('format', 'json');
    u.searchParams.set('pageno', String(pageno));
    if (timeRange) u.searchParams.set('time_range', timeRange);
    let status: number;
    let text: string;
    try {
      const res = await request(u, {
        method: 'GET',
        headers: { accept: 'application/json' },
        headersTimeout: SEARXNG_DEFAULTS.timeoutMs,
        bodyTimeout: SEARXNG_DEFAULTS.timeoutMs,
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(SEARXNG_DEFAULTS.timeoutMs)]) : AbortSignal.timeout(SEARXNG_DEFAULTS.timeoutMs),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (e) {
      const name = (e as Error).name;
      throw new WebSearchProviderError('searxng', /Timeout|Abort/i.test(name) ? 'timeout' : 'unreachable');
    }
    if (status < 200 || status > 299) throw new WebSearchProviderError('searxng', `HTTP ${status}`);
    try {
      const body = JSON.parse(text) as { results?: unknown };
      if (!Array.isArray(body.results)) throw new Error('no results list');
      return body.results as SearxResult[];
    } catch {
      throw new WebSearchProviderError('searxng', 'bad JSON');
    }
  }

  private timeRange(req: ProviderRequest): string | null {
    // the window's own "now": a lookback of 24 hours is a day however long ago it was computed
    const now = req.now ?? this.clock();
    if (req.from === null || (req.to !== null && req.to < now - 60_000)) return null;
    const hours = (now - req.from) / 3_600_000;
    return hours <= 24 ? 'day' : hours <= 24 * 7 ? 'week' : hours <= 24 * 31 ? 'month' : hours <= 24 * 366 ? 'year' : null;
  }

  async search(req: ProviderRequest): Promise<{ hits: WebHit[]; more: boolean }> {
    const timeRange = this.timeRange(req);
    const site = req.domains.length === 1 && req.strict ? ` site:${req.domains[0]}` : '';
    const want = req.offset + req.limit + 1;
    const lists: WebHit[][] = [];
    for (const q of req.queries) {
      const hits: WebHit[] = [];
      const seen = new Set<string>();
      for (let pageno = 1; pageno <= SEARXNG_DEFAULTS.maxPages && hits.length < want; pageno++) {
        const results = await this.ask(`${q}${site}`, pageno, timeRange, req.signal);
        let added = 0;
        for (const r of results) {
          const url = typeof r.url === 'string' ? normaliseUrl(r.url) : null;
          if (!url || seen.has(url)) continue;
          seen.add(url);
          added++;
          const t = typeof r.publishedDate === 'string' ? Date.parse(r.publishedDate) : NaN;
          const hit: WebHit = {
            url,
            title: typeof r.title === 'string' && r.title.trim() ? r.title.trim() : url,
            domain: domainOf(url),
            published: Number.isNaN(t) ? null : new Date(t),
            text: '',
            snippet: typeof r.content === 'string' ? r.content.trim() : null,
            language: null,
            articleId: null,
          };
          if (req.strict && req.domains.length > 0 && !domainMatches(hit.domain, req.domains)) continue;
          if (!inWindow(hit.published, req)) continue;
          hits.push(hit);
        }
        if (added === 0) break;
      }
      lists.push(hits);
    }
    const fused = fuse(
      lists,
      (h) => h.url,
      (h) => req.domains.length > 0 && domainMatches(h.domain, req.domains),
    );
    const page = fused.slice(req.offset, req.offset + req.limit);
    await this.readAll(page, req.signal);
    return { hits: page, more: fused.length > req.offset + req.limit };
  }

  /** Fetch and read the result pages, a few at a time; a page that cannot be read keeps its snippet. */
  private async readAll(hits: WebHit[], signal?: AbortSignal): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < hits.length) {
        const h = hits[next++]!;
        try {
          const page = await this.fetcher.fetchBytes(h.url, signal);
          const { read } = await readerPool().readBytes(page);
          h.text = read.text;
          if (read.title && read.title !== page.url) h.title = read.title;
          h.language = read.language;
          if (!h.published && read.published) h.published = new Date(read.published);
        } catch {
          // refused, failed or unreadable: the result keeps SearXNG's snippet
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SEARXNG_DEFAULTS.fetchConcurrency, hits.length) }, worker));
  }
}
