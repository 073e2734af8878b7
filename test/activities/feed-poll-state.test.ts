/**
 * The pure parts of activities/feed-poll.ts: a host's sources stay in one batch; a source's state
 * after each kind of poll (interval, health, validators); what an item is sent with.
 */
import { describe, expect, it } from 'vitest';
import { batchByHost, itemMetadata, stateAfter } from '../../activities/feed-poll.js';
import type { FeedPoll } from '../../lib/feeds/poll.js';
import type { SourceRow } from '../../warehouse/sources.js';
import { POLL_BOUNDS } from '../../lib/feeds/interval.js';
import { FLAG_AFTER_MS } from '../../warehouse/tables/feeds.js';

const MIN = 60_000;
const at = Date.parse('2025-06-01T12:00:00Z');
const row = (o: Partial<SourceRow> = {}): SourceRow => ({
  source: 's',
  url: 'https://news.example/feed',
  origin: 'file',
  language: null,
  tags: [],
  pollIntervalS: null,
  addedAt: at - 86_400_000,
  kind: 'rss',
  title: 'News',
  status: 'ok',
  lastPollAt: at - 30 * MIN,
  lastSuccessAt: at - 30 * MIN,
  failingSince: null,
  failuresInRow: 0,
  lastHttpStatus: 200,
  lastError: null,
  itemsPerDay: 48,
  itemsSeen: 100,
  intervalS: 1800,
  nextPollAt: at,
  etag: '"old"',
  lastModified: null,
  ...o,
});
const poll = (o: Partial<FeedPoll>): FeedPoll => ({
  status: 'ok',
  httpStatus: 200,
  latencyMs: 5,
  bytes: 1000,
  reason: null,
  error: null,
  feed: null,
  etag: '"new"',
  lastModified: null,
  maxAgeSeconds: null,
  retryAt: null,
  finalUrl: null,
  ...o,
});

describe('batches by host', () => {
  it('never splits a host, and packs small hosts together', () => {
    const due = [
      ...Array.from({ length: 30 }, (_, i) => ({ source: `big-${i}`, url: `https://big.example/${i}` })),
      ...Array.from({ length: 6 }, (_, i) => ({ source: `s-${i}`, url: `https://small${i % 3}.example/${i}` })),
    ];
    const b = batchByHost(due, 25);
    expect(b.find((x) => x.includes('big-0'))).toHaveLength(30);
    expect(b.flat().sort()).toEqual(due.map((d) => d.source).sort());
    for (const h of ['small0', 'small1', 'small2']) expect(b.filter((x) => x.some((s) => due.find((d) => d.source === s)!.url.includes(h)))).toHaveLength(1);
  });
});

describe("a source's state after a poll", () => {
  it('keeps the validators of a 304 and grows the interval when nothing is new', () => {
    const s = stateAfter(row(), poll({ status: 'not_modified', httpStatus: 304, etag: '"old"' }), 0, at);
    expect(s).toMatchObject({ status: 'ok', failuresInRow: 0, lastSuccessAt: at, etag: '"old"', intervalS: 2700, nextPollAt: at + 45 * MIN, itemsSeen: 100 });
  });

  it('counts a failure, backs off, and flags the source once it has failed for a day', () => {
    const once = stateAfter(row(), poll({ status: 'failed', reason: 'http_status', httpStatus: 500, error: 'HTTP 500' }), 0, at);
    expect(once).toMatchObject({
      status: 'failing',
      failuresInRow: 1,
      failingSince: at,
      lastSuccessAt: at - 30 * MIN,
      etag: '"old"',
      lastError: 'http_status: HTTP 500',
    });
    const third = stateAfter(row({ failuresInRow: 2, failingSince: at - 2 * 3_600_000 }), poll({ status: 'failed', reason: 'timeout' }), 0, at);
    expect(third.nextPollAt! - at).toBe(4 * 30 * MIN);
    const day = stateAfter(row({ failuresInRow: 40, failingSince: at - FLAG_AFTER_MS }), poll({ status: 'failed', reason: 'dns' }), 0, at);
    expect(day).toMatchObject({ status: 'flagged', failuresInRow: 41 });
    expect(day.nextPollAt! - at).toBe(POLL_BOUNDS.maxMs);
  });

  it('waits for a Retry-After longer than its interval', () => {
    const s = stateAfter(row(), poll({ status: 'deferred', reason: 'retry_after', httpStatus: 429, retryAt: at + 3 * 3_600_000 }), 0, at);
    expect(s).toMatchObject({ status: 'failing', nextPollAt: at + 3 * 3_600_000 });
  });

  it("learns the rate of a new source from its items' dates", () => {
    const items = Array.from({ length: 25 }, (_, i) => ({
      key: `k${i}`,
      url: `https://news.example/${i}`,
      title: `t${i}`,
      summary: null,
      authors: [],
      published: new Date(at - i * 60 * MIN).toISOString(),
      language: null,
    }));
    const feed = {
      kind: 'rss' as const,
      title: 'News',
      language: 'en',
      items,
      sitemaps: [],
      ttlMinutes: null,
      updateMinutes: null,
      charset: 'utf-8',
      charsetSource: 'meta',
    };
    const s = stateAfter(row({ lastSuccessAt: null, intervalS: null, itemsPerDay: null, etag: null }), poll({ feed }), 25, at);
    expect(s.itemsPerDay).toBeCloseTo(24, 5);
    expect(s).toMatchObject({ intervalS: 3600, itemsSeen: 125, etag: '"new"' });
  });
});

describe('what an item is sent with', () => {
  it("sends the feed's own fields as metadata.feed_item, and the source", () => {
    const m = itemMetadata(
      {
        key: 'k',
        url: 'https://news.example/a',
        title: 'A title',
        summary: 'A summary',
        authors: ['Ann'],
        published: '2025-06-01T10:00:00.000Z',
        language: null,
      },
      { source: 's', url: 'https://news.example/feed', title: 'News', language: 'en', tags: ['local'] },
    );
    expect(m).toEqual({
      newsflow_source: 's',
      newsflow_tags: ['local'],
      feed_item: {
        title: 'A title',
        summary: 'A summary',
        authors: ['Ann'],
        published: '2025-06-01T10:00:00.000Z',
        language: 'en',
        source_name: 'News',
        source_url: 'https://news.example/feed',
      },
    });
    // an item without a title has nothing to be indexed from but its page
    expect(
      itemMetadata(
        { key: 'k', url: 'https://news.example/b', title: '', summary: null, authors: [], published: null, language: null },
        { source: 's', url: 'u', title: null, language: null, tags: [] },
      ),
    ).toEqual({ newsflow_source: 's' });
  });
});
