/**
 * The web capability of the service (`Services.web`): URL indexing jobs (service/indexing), the
 * web index they fill, and web search over a provider (the index by default, or SearXNG).
 * Other routes (DeepNews, forecast) call `web.search(params, viewer)` like the websearch
 * route does.
 *
 * Environment (service/config.ts reads it into `ServiceConfig.webVars`; `webConfig` checks it when the service opens):
 * - NEWSFLOW_WEBSEARCH_PROVIDER `index` | `searxng`; default `searxng` when NEWSFLOW_SEARXNG_URL
 *   is set, else `index`;
 * - NEWSFLOW_SEARXNG_URL base URL of a SearXNG instance (json format enabled); the operator's
 *   own server, called directly (not through the fetch policy); the pages of its results are
 *   fetched under the policy (NEWSFLOW_FETCH_ALLOW);
 * - NEWSFLOW_FETCH_TIMEOUT_MS the longest one page fetch may take (default 30000; also caps the
 *   connect, headers and body timeouts);
 * - NEWSFLOW_INDEX_CONCURRENCY URLs fetched at once by indexing jobs, shared round-robin between
 *   owners (default 4);
 * - NEWSFLOW_INDEX_MAX_JOBS unfinished index_urls jobs an owner may have (default 4; one more: 429);
 * - NEWSFLOW_INDEX_MAX_URLS URLs one index_urls request may name, 1 to INDEX_URLS_LIMITS.maxUrls
 *   (the default, 1,000; more: 422 on `urls`);
 * - NEWSFLOW_INDEX_URLS_SHARED `1`: pages indexed through index_urls join the shared corpus and web
 *   index, seen by every key; unset or `0` (the default): only their owner's keys see them.
 */
import type { z } from 'zod';
import { INDEX_URLS_LIMITS, normaliseDomain, type WebSearchQuery } from '../../spec/index.js';
import type { Db } from '../store/db.js';
import type { NewsService } from '../news/service.js';
import { stableUuid } from '../corpus/read.js';
import { FETCH_DEFAULTS, PageFetcher, type FetchOptions } from '../../lib/fetch/fetcher.js';
import { PUBLIC_ONLY, type FetchPolicy } from '../../lib/fetch/policy.js';
import { INDEXER_DEFAULTS, UrlIndexer, type IndexerOptions } from '../indexing/runner.js';
import { JobStore } from '../indexing/jobs.js';
import { WebIndex } from '../indexing/web-index.js';
import { IndexProvider, SearxngProvider, type WebHit, type WebSearchProvider } from './providers.js';
import { keyPoints, rawText, toWebStringBlock, type WebSearchResult } from './distill.js';

export type WebSearchParams = z.input<typeof WebSearchQuery>;
export interface WebSearchAnswer {
  as_string: string;
  as_dicts: WebSearchResult[];
  offset: number | null;
}

/** Results per response. */
export const WEB_SEARCH_PAGE = 10;

export interface WebConfig {
  provider: 'index' | 'searxng';
  searxngUrl: string | null;
  fetch: FetchOptions;
  concurrency: number;
  /** unfinished jobs an owner may have */
  maxJobsPerOwner: number;
  /** URLs one request may name */
  maxUrls: number;
  /** indexed pages join the shared corpus */
  shared: boolean;
}

export class WebConfigError extends Error {}

/** The web capability's settings from its variables (ServiceConfig `webVars`), its fetchers under `policy`. */
export function webConfig(env: Readonly<Record<string, string | undefined>>, policy: FetchPolicy = PUBLIC_ONLY): WebConfig {
  const searxngUrl = env.NEWSFLOW_SEARXNG_URL?.trim() || null;
  const provider = (env.NEWSFLOW_WEBSEARCH_PROVIDER?.trim() || (searxngUrl ? 'searxng' : 'index')) as WebConfig['provider'];
  if (provider !== 'index' && provider !== 'searxng') throw new WebConfigError(`NEWSFLOW_WEBSEARCH_PROVIDER must be index or searxng, not ${provider}`);
  if (provider === 'searxng' && !searxngUrl) throw new WebConfigError('NEWSFLOW_WEBSEARCH_PROVIDER=searxng needs NEWSFLOW_SEARXNG_URL');
  if (searxngUrl && !/^https?:\/\//i.test(searxngUrl)) throw new WebConfigError(`NEWSFLOW_SEARXNG_URL must be an http(s) URL, not ${searxngUrl}`);
  const fetch: FetchOptions = { policy };
  if (env.NEWSFLOW_FETCH_TIMEOUT_MS) {
    const ms = Number(env.NEWSFLOW_FETCH_TIMEOUT_MS);
    if (!Number.isInteger(ms) || ms < 1) throw new WebConfigError(`NEWSFLOW_FETCH_TIMEOUT_MS must be a positive integer, not ${env.NEWSFLOW_FETCH_TIMEOUT_MS}`);
    Object.assign(fetch, {
      totalTimeoutMs: ms,
      connectTimeoutMs: Math.min(ms, FETCH_DEFAULTS.connectTimeoutMs),
      headersTimeoutMs: Math.min(ms, FETCH_DEFAULTS.headersTimeoutMs),
      bodyTimeoutMs: Math.min(ms, FETCH_DEFAULTS.bodyTimeoutMs),
    });
  }
  const concurrency = Number(env.NEWSFLOW_INDEX_CONCURRENCY ?? INDEXER_DEFAULTS.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new WebConfigError(`NEWSFLOW_INDEX_CONCURRENCY must be a positive integer, not ${env.NEWSFLOW_INDEX_CONCURRENCY}`);
  const whole = (name: string, fallback: number, max = Infinity): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new WebConfigError(`${name} must be a whole number from 1${max === Infinity ? '' : ` to ${max}`}, not ${env[name]}`);
    return n;
  };
  const shared = env.NEWSFLOW_INDEX_URLS_SHARED?.trim() ?? '';
  if (!['', '0', '1'].includes(shared))
    throw new WebConfigError(`NEWSFLOW_INDEX_URLS_SHARED must be 1 (indexed pages join the shared corpus) or 0, not ${shared}`);
  return {
    provider,
    searxngUrl,
    fetch,
    concurrency,
    maxJobsPerOwner: whole('NEWSFLOW_INDEX_MAX_JOBS', INDEXER_DEFAULTS.maxJobsPerOwner),
    maxUrls: whole('NEWSFLOW_INDEX_MAX_URLS', INDEX_URLS_LIMITS.maxUrls, INDEX_URLS_LIMITS.maxUrls),
    shared: shared === '1',
  };
}

/** A request the provider cannot take (the route's 422 on `loc`). */
export class WebSearchParamError extends Error {
  constructor(
    readonly loc: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

export class WebSearchService {
  private readonly searchFetcher: PageFetcher;

  private constructor(
    readonly index: WebIndex,
    readonly indexer: UrlIndexer,
    readonly provider: WebSearchProvider,
    fetcher: PageFetcher,
    private readonly clock: () => number,
    /** the settings it was opened with */
    readonly config: WebConfig,
  ) {
    this.searchFetcher = fetcher;
  }

  /** Open the web index, build the provider, resume unfinished indexing jobs. */
  static async open(
    db: Db,
    news: NewsService,
    opts: { config?: WebConfig; clock?: () => number; log?: IndexerOptions['log'] } = {},
  ): Promise<WebSearchService> {
    const config = opts.config ?? webConfig({});
    const clock = opts.clock ?? news.clock;
    const index = await WebIndex.open(db);
    const indexer = new UrlIndexer(new JobStore(db), news, index, {
      concurrency: config.concurrency,
      maxJobsPerOwner: config.maxJobsPerOwner,
      shared: config.shared,
      fetch: config.fetch,
      clock,
      log: opts.log,
    });
    const fetcher = new PageFetcher(config.fetch);
    const provider = config.provider === 'searxng' ? new SearxngProvider(config.searxngUrl!, fetcher, clock) : new IndexProvider(index);
    const web = new WebSearchService(index, indexer, provider, fetcher, clock, config);
    await indexer.resume();
    return web;
  }

  /**
   * Web search (GET /v1/chat/websearch): the provider's results for the queries, each distilled
   * to extractive key points and its raw text, WEB_SEARCH_PAGE per call from `offset`. `viewer`
   * (auth/principal.ts ownerOf) finds its own indexed pages besides the shared ones.
   * Throws WebSearchParamError for a request it cannot take, WebSearchProviderError when the
   * provider fails.
   */
  async search(params: WebSearchParams, viewer: string | null = null): Promise<WebSearchAnswer> {
    const queries = params.queries.map((q) => q.trim());
    const now = this.clock();
    let from: number | null = params.lookback != null ? now - params.lookback * 3_600_000 : null;
    let to: number | null = null;
    if (params.start_datetime) from = Math.max(from ?? -Infinity, Date.parse(params.start_datetime));
    if (params.end_datetime) to = Date.parse(params.end_datetime);
    // end_datetime before start_datetime is the schema's 422; before the start lookback sets, the window is empty
    if (from !== null && to !== null && to < from) return { as_string: '', as_dicts: [], offset: null };
    let offset = 0;
    if (typeof params.offset === 'number') offset = params.offset;
    else if (typeof params.offset === 'string') {
      if (!/^\d{1,9}$/.test(params.offset.trim()))
        throw new WebSearchParamError(
          ['query', 'offset'],
          `offset: ${JSON.stringify(params.offset.slice(0, 100))} is not a cursor of this server (a count of results to skip)`,
        );
      offset = Number(params.offset.trim());
    }
    const domains = [...new Set((params.domains ?? []).map(normaliseDomain).filter(Boolean))];
    const { hits, more } = await this.provider.search({ queries, from, to, domains, strict: !!params.strict, offset, limit: WEB_SEARCH_PAGE, now, viewer });
    const dicts = hits.map((h) => distil(h, queries));
    return {
      as_string: dicts.map((r, i) => toWebStringBlock(r, i)).join('\n\n'),
      as_dicts: dicts,
      offset: more ? offset + hits.length : null,
    };
  }

  async close(): Promise<void> {
    await this.indexer.close();
    await this.searchFetcher.destroy();
  }
}

function distil(h: WebHit, queries: string[]): WebSearchResult {
  const text = h.text || h.snippet || '';
  return {
    title: h.title,
    url: h.url,
    source: h.domain,
    published: h.published ? h.published.toISOString() : '',
    key_points: keyPoints(text, queries, h.language),
    raw_text: rawText(text),
    as_string_key: h.articleId ?? stableUuid(`web:${h.url}`),
  };
}
