/**
 * Index counts: indexed articles per UTC time bucket (spec/news.ts), filtered with the search filters
 * (service/search/filters.ts) over the index's documents. Served by GET /v1/index_counts and
 * drawn by the charts (service/charts/). The rules (alignment, zero buckets, default range,
 * bucket limit) are written beside the schema in spec/news.ts.
 */
import { DATETIME_RANGE, INDEX_COUNTS_LIMITS, SearchParams, type IndexCountsQueryParsed, type SearchParamsParsed } from '../../spec/index.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { validationError } from '../errors/index.js';
import type { NewsService } from '../news/service.js';
import { compileFilter } from '../search/filters.js';

export interface IndexCount {
  start: string;
  end: string;
  count: number;
}

export type Sampling = IndexCountsQueryParsed['sampling'];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Widths of the fixed-width samplings; 1m is a calendar month. */
const WIDTH: Record<Exclude<Sampling, '1m'>, number> = { '5m': 5 * MINUTE, '1h': HOUR, '12h': 12 * HOUR, '1d': DAY, '1w': 7 * DAY };
/** 1970-01-05 was a Monday: weeks are counted from it. */
const MONDAY = Date.UTC(1970, 0, 5);

/** 00:00 UTC on the 1st of month `m` (may overflow into other years) of year `y`; any year (Date.UTC maps 0-99 to 19xx). */
function monthStart(y: number, m: number): number {
  const d = new Date(0);
  d.setUTCFullYear(y, m, 1);
  return d.getTime();
}

/** Start (epoch ms) of the bucket holding `t`. */
export function bucketStart(t: number, s: Sampling): number {
  if (s === '1m') {
    const d = new Date(t);
    return monthStart(d.getUTCFullYear(), d.getUTCMonth());
  }
  const origin = s === '1w' ? MONDAY : 0;
  return origin + Math.floor((t - origin) / WIDTH[s]) * WIDTH[s];
}

/** The bucket start `n` buckets after (or before, n < 0) the bucket start `start`. */
export function addBuckets(start: number, s: Sampling, n: number): number {
  if (s === '1m') {
    const d = new Date(start);
    return monthStart(d.getUTCFullYear(), d.getUTCMonth() + n);
  }
  return start + n * WIDTH[s];
}

/** Index of the bucket holding `t`, counted from the bucket starting at `first`. */
function bucketIndex(t: number, first: number, s: Sampling): number {
  if (s === '1m') {
    const a = new Date(t);
    const b = new Date(first);
    return (a.getUTCFullYear() - b.getUTCFullYear()) * 12 + (a.getUTCMonth() - b.getUTCMonth());
  }
  return Math.floor((t - first) / WIDTH[s]);
}

/** The requested range [from, to) in epoch ms, defaults applied. */
export function countRange(q: Pick<IndexCountsQueryParsed, 'start_datetime' | 'end_datetime' | 'sampling'>, now: number): { from: number; to: number } {
  const start = q.start_datetime ? Date.parse(q.start_datetime) : null;
  const to = q.end_datetime ? Date.parse(q.end_datetime) : Math.max(now, start ?? now);
  const from = start ?? addBuckets(bucketStart(to - 1, q.sampling), q.sampling, -(INDEX_COUNTS_LIMITS.defaultBuckets[q.sampling] - 1));
  return { from, to };
}

/** The index-count parameters as search filters: every article counts (premium, podcasts), any time. */
function searchFilters(q: IndexCountsQueryParsed): SearchParamsParsed {
  const { start_datetime: _s, end_datetime: _e, sampling: _m, domains, ...filters } = q;
  const given = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== null && v !== undefined));
  return SearchParams.parse({ ...given, domain_url: domains ?? null, premium: true, historical: true });
}

/**
 * Counts per bucket for parsed index-count parameters. A publisher organization's principal
 * counts only its own domains. 422 (`loc` under `query`) for too many buckets.
 */
export function indexCounts(q: IndexCountsQueryParsed, news: NewsService, principal: Principal | null): IndexCount[] {
  const s = q.sampling;
  const { from, to } = countRange(q, news.clock());
  if (to <= from) return [];
  const first = bucketStart(from, s);
  const n = bucketIndex(to - 1, first, s) + 1;
  if (n > INDEX_COUNTS_LIMITS.maxBuckets) {
    throw validationError([
      {
        loc: ['query', 'start_datetime'],
        msg: `start_datetime: ${new Date(from).toISOString()} to ${new Date(to).toISOString()} is ${n} buckets of ${s}; at most ${INDEX_COUNTS_LIMITS.maxBuckets} per request (narrow the range or choose a coarser sampling)`,
        type: 'value_error.too_many_buckets',
      },
    ]);
  }
  if (addBuckets(first, s, n) > DATETIME_RANGE.max) {
    const name = q.end_datetime ? 'end_datetime' : 'start_datetime';
    throw validationError([
      {
        loc: ['query', name],
        msg: `${name}: the last bucket of ${s} would end after 9999-12-31T23:59:59Z, which no date-time can name; end the range earlier`,
        type: 'value_error.datetime_range',
      },
    ]);
  }
  const starts = Array.from({ length: n + 1 }, (_, i) => addBuckets(first, s, i));
  const own = principal?.org?.publisher ? principal.org.domains : null;
  const accept = compileFilter(searchFilters(q), {
    window: { field: q.time_filter, from: first, to: starts[n]! - 1 },
    onlyDomains: own,
    viewer: principal ? ownerOf(principal) : null,
    owned: news.index.ownedCount > 0,
  });
  const counts = new Array<number>(n).fill(0);
  for (const d of news.index.views) {
    if (!accept(d)) continue;
    const t = (q.time_filter === 'pub_date' ? d.a.pubDate : d.a.crawlDate!).getTime();
    counts[bucketIndex(t, first, s)]!++;
  }
  return counts.map((count, i) => ({ start: new Date(starts[i]!).toISOString(), end: new Date(starts[i + 1]!).toISOString(), count }));
}
