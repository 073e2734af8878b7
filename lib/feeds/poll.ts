/**
 * One poll of one source: robots.txt, politeness, a conditional GET through the one fetcher
 * (lib/fetch: the SSRF-safe policy of index_urls), then the feed parsed (lib/feeds/parse.ts). A
 * sitemap index's sitemaps are read in the same poll (the changed ones, newest first, at most
 * POLL_DEFAULTS.maxChildSitemaps). Nothing here lands or indexes: the caller decides what is new.
 *
 * Outcomes (`status`): `ok` (parsed), `not_modified` (304: nothing read), `failed` (`reason`: a
 * fetch refusal such as `http_status`, `timeout`, `forbidden_address`, or a feed error:
 * `not_well_formed`, `encoding`, `not_a_feed`, `sitemaps`; a gzip body (`.xml.gz`) is inflated with
 * a cap on its output: `too_large` past POLL_DEFAULTS.maxInflatedBytes, `gzip` when corrupt), `disallowed` (robots.txt; `robots`, or
 * `robots_unavailable` while it answers 5xx or cannot be reached), `deferred` (429/503, or its host
 * is backed off: not asked; `retryAt` says when it may be).
 */
import { FetchRefused, type PageFetcher } from '../fetch/fetcher.js';
import { GunzipRefused, gunzipCapped, isGzip } from '../fetch/gunzip.js';
import { HostBackedOff, hostOf, type HostGate } from './host-gate.js';
import { maxAgeSeconds, retryAfterMs } from './interval.js';
import { FeedError, parseFeedBytes, type DecodedFeed, type FeedItem } from './parse.js';
import { ROBOTS_USER_AGENT, RobotsCache } from './robots.js';

export const POLL_DEFAULTS = {
  /** sitemaps of a sitemap index read per poll */
  maxChildSitemaps: 25,
  /** how long a 429 or 503 without Retry-After backs its host off */
  backOffMs: 10 * 60_000,
  /** a gzip feed or sitemap (`.xml.gz`) inflates to at most this (the sitemap protocol's 50 MB uncompressed limit) */
  maxInflatedBytes: 50 * 1024 * 1024,
} as const;

export const FEED_ACCEPT =
  'application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5';

export type PollStatus = 'ok' | 'not_modified' | 'failed' | 'disallowed' | 'deferred';

export interface SourceState {
  url: string;
  etag?: string | null;
  lastModified?: string | null;
  /** epoch ms of the last successful poll (a sitemap index reads the sitemaps changed since) */
  lastSuccessAt?: number | null;
}

export interface FeedPoll {
  status: PollStatus;
  httpStatus: number | null;
  /** the feed's request (without waiting for politeness), ms */
  latencyMs: number;
  /** bytes read (a sitemap index's sitemaps included) */
  bytes: number;
  reason: string | null;
  error: string | null;
  /** the parsed feed (status ok); a sitemap index's items are its sitemaps' */
  feed: DecodedFeed | null;
  etag: string | null;
  lastModified: string | null;
  maxAgeSeconds: number | null;
  /** deferred: when the host may be asked again (epoch ms) */
  retryAt: number | null;
  /** the URL the feed was read from, after redirects */
  finalUrl: string | null;
}

export interface PollContext {
  fetcher: PageFetcher;
  gate: HostGate;
  robots: RobotsCache;
  now?: () => number;
  signal?: AbortSignal;
  maxChildSitemaps?: number;
  backOffMs?: number;
  /** cap on a gzip body's inflated size; default POLL_DEFAULTS.maxInflatedBytes */
  maxInflatedBytes?: number;
}

/**
 * A feed's bytes parsed, a gzip body (a `.xml.gz` sitemap) inflated first under the cap on its
 * output. Throws `FeedError`, or `GunzipRefused` (`too_large`, `gzip`).
 */
async function parseBody(res: { body: Buffer; contentType: string; url: string }, ctx: PollContext, now: number): Promise<DecodedFeed> {
  if (!isGzip(res.body)) return parseFeedBytes(res.body, res.contentType, res.url, now);
  const xml = await gunzipCapped(res.body, ctx.maxInflatedBytes ?? POLL_DEFAULTS.maxInflatedBytes);
  // the Content-Type names the gzip file, not the text inside: its XML declaration decides the charset
  return parseFeedBytes(xml, undefined, res.url, now);
}

/** A robots.txt cache that reads through the fetcher and the gate (politeness applies to robots.txt too). */
export function robotsThrough(fetcher: PageFetcher, gate: HostGate, now?: () => number): RobotsCache {
  return new RobotsCache(
    async (robotsUrl) => {
      const r = await gate.run(hostOf(robotsUrl), () => fetcher.fetchResource(robotsUrl, { accept: 'text/plain, */*;q=0.5' }));
      return { status: r.status, body: r.body.toString('utf8') };
    },
    { now },
  );
}

const empty = (status: PollStatus, o: Partial<FeedPoll> = {}): FeedPoll => ({
  status,
  httpStatus: null,
  latencyMs: 0,
  bytes: 0,
  reason: null,
  error: null,
  feed: null,
  etag: null,
  lastModified: null,
  maxAgeSeconds: null,
  retryAt: null,
  finalUrl: null,
  ...o,
});

/** robots.txt's verdict on `url`, with the host's Crawl-delay set on the gate; null when allowed. */
async function robotsRefusal(url: string, ctx: PollContext): Promise<FeedPoll | null> {
  const rules = await ctx.robots.rulesFor(url);
  ctx.gate.setCrawlDelay(hostOf(url), rules.crawlDelayMs);
  if (rules.allowed(url)) return null;
  return rules.kind === 'unavailable'
    ? empty('disallowed', { reason: 'robots_unavailable', error: `robots.txt cannot be read, so nothing is fetched (${rules.detail})` })
    : empty('disallowed', { reason: 'robots', error: `robots.txt disallows ${new URL(url).pathname} for ${ROBOTS_USER_AGENT}` });
}

type Fetched = { ok: true; res: Awaited<ReturnType<PageFetcher['fetchResource']>>; ms: number } | { ok: false; poll: FeedPoll };

/** Redirects a poll follows across origins (each a new GET once the target's robots.txt allows it). */
const MAX_ROBOTS_HOPS = 5;

/**
 * A GET through the gate; refusals become the poll they mean (429/503 back the host off). A
 * redirect is followed only where robots.txt allows it: a hop whose origin's rules are cached and
 * allow it is followed at once; any other stops the GET (the host's gate is held meanwhile, so its
 * robots.txt cannot be read inside it), its robots.txt is read, and the GET goes on from there,
 * or the poll is `disallowed`.
 */
async function get(url: string, headers: Record<string, string>, ctx: PollContext): Promise<Fetched> {
  const follow = (next: string) => ctx.robots.cached(next)?.allowed(next) === true;
  let target = url;
  const earlier: string[] = [];
  for (let hop = 0; ; hop++) {
    const got = await getOnce(target, headers, ctx, follow);
    if (got.ok) {
      if (earlier.length) got.res = { ...got.res, redirects: [...earlier, ...got.res.redirects] };
      return got;
    }
    if (!('location' in got) || hop >= MAX_ROBOTS_HOPS) return { ok: false, poll: got.poll };
    const refused = await robotsRefusal(got.location, ctx);
    if (refused) return { ok: false, poll: { ...refused, error: `${url} redirects to ${got.location}: ${refused.error}` } };
    earlier.push(target);
    target = got.location;
  }
}

async function getOnce(
  url: string,
  headers: Record<string, string>,
  ctx: PollContext,
  follow: (next: string) => boolean,
): Promise<Fetched | { ok: false; poll: FeedPoll; location: string }> {
  const now = ctx.now ?? Date.now;
  const host = hostOf(url);
  let t0 = 0;
  try {
    const res = await ctx.gate.run(host, () => {
      t0 = performance.now();
      return ctx.fetcher.fetchResource(url, { headers, accept: FEED_ACCEPT, signal: ctx.signal, follow });
    });
    return { ok: true, res, ms: Math.round(performance.now() - t0) };
  } catch (e) {
    const ms = t0 ? Math.round(performance.now() - t0) : 0;
    if (e instanceof HostBackedOff) return { ok: false, poll: empty('deferred', { reason: 'backoff', error: e.message, retryAt: e.until }) };
    if (!(e instanceof FetchRefused)) throw e;
    if (e.reason === 'redirect' && e.location) {
      return {
        ok: false,
        location: e.location,
        poll: empty('failed', { httpStatus: e.status ?? null, latencyMs: ms, reason: 'too_many_redirects', error: e.message }),
      };
    }
    if (e.status === 429 || e.status === 503) {
      const until = now() + (retryAfterMs(e.retryAfter, now()) ?? ctx.backOffMs ?? POLL_DEFAULTS.backOffMs);
      ctx.gate.backOff(host, until);
      const error = `HTTP ${e.status}${e.retryAfter ? `, Retry-After ${e.retryAfter}` : ''}: not asked again before ${new Date(until).toISOString()}`;
      return { ok: false, poll: empty('deferred', { httpStatus: e.status, latencyMs: ms, reason: 'retry_after', error, retryAt: until }) };
    }
    return { ok: false, poll: empty('failed', { httpStatus: e.status ?? null, latencyMs: ms, reason: e.reason, error: e.message }) };
  }
}

/** Poll one source once. Never throws for the source's faults (they are the outcome); throws when `signal` aborts. */
export async function pollFeed(src: SourceState, ctx: PollContext): Promise<FeedPoll> {
  const now = ctx.now ?? Date.now;
  const host = hostOf(src.url);
  const until = ctx.gate.backedOffUntil(host);
  if (until) return empty('deferred', { reason: 'backoff', error: `${host} asked us to wait until ${new Date(until).toISOString()}`, retryAt: until });
  const refused = await robotsRefusal(src.url, ctx);
  if (refused) return refused;
  const headers: Record<string, string> = {};
  if (src.etag) headers['if-none-match'] = src.etag;
  if (src.lastModified) headers['if-modified-since'] = src.lastModified;
  const got = await get(src.url, headers, ctx);
  if (!got.ok) return got.poll;
  const { res, ms } = got;
  const base = {
    httpStatus: res.status,
    latencyMs: ms,
    bytes: res.bytes,
    // a 304 may leave out the validators: keep the ones sent
    etag: res.etag ?? (res.status === 304 ? (src.etag ?? null) : null),
    lastModified: res.lastModified ?? (res.status === 304 ? (src.lastModified ?? null) : null),
    maxAgeSeconds: maxAgeSeconds(res.cacheControl),
    finalUrl: res.url,
  };
  if (res.status === 304) return empty('not_modified', base);
  let feed: DecodedFeed;
  try {
    feed = await parseBody(res, ctx, now());
  } catch (e) {
    if (!(e instanceof FeedError) && !(e instanceof GunzipRefused)) throw e;
    return empty('failed', { ...base, reason: e.reason, error: e.message });
  }
  if (feed.kind !== 'sitemapindex') return empty('ok', { ...base, feed });
  return readSitemaps(src, feed, base, ctx);
}

/** A sitemap index's changed sitemaps (newest first, capped), their items as the index's. */
async function readSitemaps(src: SourceState, index: DecodedFeed, base: Partial<FeedPoll>, ctx: PollContext): Promise<FeedPoll> {
  const since = src.lastSuccessAt ?? null;
  const changed = index.sitemaps
    .filter((s) => since === null || !s.lastmod || Date.parse(s.lastmod) > since)
    .sort((a, b) => (b.lastmod ?? '').localeCompare(a.lastmod ?? ''))
    .slice(0, ctx.maxChildSitemaps ?? POLL_DEFAULTS.maxChildSitemaps);
  const items: FeedItem[] = [];
  const seen = new Set<string>();
  const failures: string[] = [];
  let bytes = base.bytes ?? 0;
  for (const s of changed) {
    const refused = await robotsRefusal(s.url, ctx);
    if (refused) {
      failures.push(`${s.url}: ${refused.error}`);
      continue;
    }
    const got = await get(s.url, {}, ctx);
    if (!got.ok) {
      failures.push(`${s.url}: ${got.poll.error}`);
      if (got.poll.status === 'deferred') break;
      continue;
    }
    bytes += got.res.bytes;
    try {
      const child = await parseBody(got.res, ctx, (ctx.now ?? Date.now)());
      for (const i of child.items.filter((x) => !seen.has(x.key))) {
        seen.add(i.key);
        items.push(i);
      }
    } catch (e) {
      if (!(e instanceof FeedError) && !(e instanceof GunzipRefused)) throw e;
      failures.push(`${s.url}: ${e.message}`);
    }
  }
  const feed = { ...index, items };
  const note = failures.length ? `${failures.length} of ${changed.length} sitemaps not read: ${failures.slice(0, 3).join('; ')}` : null;
  if (changed.length > 0 && failures.length === changed.length) return empty('failed', { ...base, bytes, feed, reason: 'sitemaps', error: note });
  return empty('ok', { ...base, bytes, feed, error: note });
}
