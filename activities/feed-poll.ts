/**
 * Activities of the feed poller (workflows/feed-poll.ts): which sources are due, and polling a
 * batch of them.
 *
 * A batch (the sources of a few hosts; a host's sources are never split, so no two activities
 * poll one host at once) is polled in three steps:
 * 1. fetch: each host's sources one at a time through lib/feeds (robots.txt, politeness,
 *    conditional GET: a 304 is parsed, sent and indexed nothing), hosts side by side;
 * 2. send: the items not in `source_items` go to the API's index_urls (through the client, like
 *    any user; each URL once, with the feed's own fields in `metadata.feed_item`; a URL another
 *    source sent already lands as seen without a call), and land in `source_items` only once
 *    index_urls has accepted them: a killed worker resends what did not land, and index_urls
 *    dedupes what it gets twice (canonical URL, content hash);
 * 3. land: one `source_polls` row per source (merge on the batch's id and the source: a retried
 *    activity rewrites them) and each source's new state (interval, health) in `sources`.
 */
import { Context } from '@temporalio/activity';
import PQueue from 'p-queue';
import { type NewsClient, RateLimitError, ValidationError } from '../client/index.js';
import { FEED_ITEM_METADATA_KEY, FeedItemMetadata as FeedItemMetadataSchema, INDEX_URLS_LIMITS, ScrapedURLItem, type FeedItemMetadata } from '../spec/index.js';
import { PageFetcher, type FetchOptions } from '../lib/fetch/fetcher.js';
import { HostGate, hostOf } from '../lib/feeds/host-gate.js';
import { POLL_BOUNDS, failureInterval, nextInterval, nextRate, rateFromDates, type PollBounds } from '../lib/feeds/interval.js';
import { pollFeed, robotsThrough, type FeedPoll, type PollContext } from '../lib/feeds/poll.js';
import type { FeedItem } from '../lib/feeds/parse.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { SourceStore, type PollRow, type SeenItem, type SourceRow, type SourceState } from '../warehouse/sources.js';
import { FLAG_AFTER_MS } from '../warehouse/tables/feeds.js';
import { failingFast } from './api-failure.js';

export const FEED_POLL_DEFAULTS = {
  /** URLs per index_urls call */
  chunk: 100,
  /** hosts of a batch fetched at once */
  hostConcurrency: 8,
  /** sources per batch (a host with more gets a batch of its own) */
  batchSize: 25,
  /** sources due per workflow run (the rest wait for the next run) */
  limit: 1000,
  /** how long a chunk waits out index_urls' 429 (the owner's unfinished-jobs cap) before the batch fails */
  busyWaitMs: 20 * 60_000,
} as const;

export interface FeedPollDeps {
  client: NewsClient;
  warehouse: Warehouse;
  /** the fetcher's options (policy: the project's `fetchPolicy`, timeouts, user agent); default: public addresses only and the fetcher's defaults */
  fetch?: FetchOptions;
  /** politeness delay per host (default lib/feeds/host-gate.ts HOST_GATE_DEFAULTS) */
  delayMs?: number;
  bounds?: PollBounds;
  chunk?: number;
  hostConcurrency?: number;
  /** default FEED_POLL_DEFAULTS.busyWaitMs */
  busyWaitMs?: number;
}

export interface DueSources {
  /** source names per batch */
  batches: string[][];
  /** whether more sources were due than `limit` */
  more: boolean;
}

export interface BatchResult {
  polled: number;
  ok: number;
  notModified: number;
  failed: number;
  deferred: number;
  /** items the sources had not seen before */
  fresh: number;
  /** URLs sent to index_urls (each once; a URL sent for another source before is not sent again) */
  sent: number;
  /** index_urls calls */
  calls: number;
  /** new items not sent: invalid against index_urls' request schema, or refused by index_urls (their reasons are in source_polls.error) */
  skipped: number;
}

/** Items whose reasons one source_polls row names (the count is there in full). */
const REASONS_NAMED = 3;

/**
 * The index_urls entry of an item, or why there is none: the entry is checked against the request
 * schema of index_urls (spec ScrapedURLItem, the feed's fields FeedItemMetadata), so one bad item
 * (a 3,000-character link, a title over the bound) is skipped on its own instead of making the
 * whole call a 422.
 */
export function indexEntry(
  item: FeedItem,
  row: Pick<SourceRow, 'source' | 'url' | 'title' | 'language' | 'tags'>,
): { entry: { url: string; metadata: Record<string, unknown> } } | { reason: string } {
  const entry = { url: item.url ?? '', metadata: itemMetadata(item, row) };
  const checked = ScrapedURLItem.safeParse(entry);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return { reason: `${issue.path.join('.') || 'item'}: ${issue.message}`.slice(0, 300) };
  }
  const feedItem = entry.metadata[FEED_ITEM_METADATA_KEY];
  if (feedItem !== undefined) {
    const meta = FeedItemMetadataSchema.safeParse(feedItem);
    if (!meta.success) {
      const issue = meta.error.issues[0]!;
      return { reason: `metadata.${FEED_ITEM_METADATA_KEY}.${issue.path.join('.')}: ${issue.message}`.slice(0, 300) };
    }
  }
  return { entry };
}

/** Group due sources by host, hosts packed into batches of about `size` sources (a host is never split). */
export function batchByHost(due: { source: string; url: string }[], size: number): string[][] {
  const hosts = new Map<string, string[]>();
  for (const d of due) {
    let h: string;
    try {
      h = hostOf(d.url);
    } catch {
      h = '';
    }
    const list = hosts.get(h) ?? [];
    list.push(d.source);
    hosts.set(h, list);
  }
  const batches: string[][] = [];
  let cur: string[] = [];
  for (const names of hosts.values()) {
    if (cur.length && cur.length + names.length > size) {
      batches.push(cur);
      cur = [];
    }
    cur.push(...names);
  }
  if (cur.length) batches.push(cur);
  return batches;
}

/** The `metadata` an item is sent to index_urls with: the feed's own fields (spec FeedItemMetadata) and the source. */
export function itemMetadata(item: FeedItem, src: Pick<SourceRow, 'source' | 'url' | 'title' | 'language' | 'tags'>): Record<string, unknown> {
  const meta: Record<string, unknown> = { newsflow_source: src.source };
  if (src.tags.length) meta.newsflow_tags = src.tags;
  if (item.title) {
    const feedItem: FeedItemMetadata = {
      title: item.title.slice(0, 2000),
      summary: item.summary?.slice(0, 20_000) ?? null,
      authors: item.authors.slice(0, 50).map((a) => a.slice(0, 500)),
      published: item.published,
      language: item.language ?? src.language,
      source_name: src.title ?? src.source,
      source_url: src.url,
    };
    meta[FEED_ITEM_METADATA_KEY] = feedItem;
  }
  return meta;
}

/**
 * A source's state after a poll at `at` that found `fresh` new items: its interval and next poll
 * (lib/feeds/interval.ts), its health (`failing` after a failed, refused or deferred poll,
 * `flagged` once failing for FLAG_AFTER_MS; polled on at the upper bound, never dropped).
 */
export function stateAfter(row: SourceRow, poll: FeedPoll, fresh: number, at: number, bounds: PollBounds = POLL_BOUNDS): SourceState {
  const previousMs = row.intervalS === null ? null : row.intervalS * 1000;
  const base = { source: row.source, kind: poll.feed?.kind ?? row.kind, title: poll.feed?.title ?? row.title, lastPollAt: at, lastHttpStatus: poll.httpStatus };
  if (poll.status === 'ok' || poll.status === 'not_modified') {
    const items = poll.feed?.items ?? [];
    const rate =
      row.lastSuccessAt === null ? (rateFromDates(items.map((i) => i.published)) ?? row.itemsPerDay) : nextRate(row.itemsPerDay, fresh, at - row.lastSuccessAt);
    const intervalMs = nextInterval({
      rate,
      previousMs,
      sawNew: fresh > 0,
      declaredMs: row.pollIntervalS === null ? null : row.pollIntervalS * 1000,
      hints: { ttlMinutes: poll.feed?.ttlMinutes, updateMinutes: poll.feed?.updateMinutes, maxAgeSeconds: poll.maxAgeSeconds },
      bounds,
    });
    return {
      ...base,
      status: 'ok',
      lastSuccessAt: at,
      failingSince: null,
      failuresInRow: 0,
      lastError: poll.error,
      itemsPerDay: rate,
      itemsSeen: row.itemsSeen + fresh,
      intervalS: Math.round(intervalMs / 1000),
      nextPollAt: at + intervalMs,
      etag: poll.etag,
      lastModified: poll.lastModified,
    };
  }
  const failures = row.failuresInRow + 1;
  const failingSince = row.failingSince ?? at;
  const intervalMs = previousMs ?? (row.pollIntervalS ? row.pollIntervalS * 1000 : bounds.initialMs);
  const flagged = at - failingSince >= FLAG_AFTER_MS;
  let next = at + (flagged ? Math.max(intervalMs, bounds.maxMs) : failureInterval(intervalMs, failures, bounds));
  if (poll.status === 'deferred' && poll.retryAt) next = Math.max(next, poll.retryAt);
  return {
    ...base,
    status: flagged ? 'flagged' : 'failing',
    lastSuccessAt: row.lastSuccessAt,
    failingSince,
    failuresInRow: failures,
    lastError: `${poll.reason ?? poll.status}: ${poll.error ?? ''}`.slice(0, 2000),
    itemsPerDay: row.itemsPerDay,
    itemsSeen: row.itemsSeen,
    intervalS: Math.round(intervalMs / 1000),
    nextPollAt: next,
    etag: row.etag,
    lastModified: row.lastModified,
  };
}

const seenItem = (row: SourceRow, item: FeedItem, at: number, jobId: string | null): SeenItem => ({
  source: row.source,
  itemKey: item.key,
  url: item.url,
  title: item.title || null,
  published: item.published ? Date.parse(item.published) : null,
  firstSeenAt: at,
  jobId,
});

/** A poll that threw: failed on its own (reason `error`). */
const failedPoll = (startedAt: number, error: string): FeedPoll => ({
  status: 'failed',
  reason: 'error',
  error: error.slice(0, 2000),
  httpStatus: null,
  latencyMs: Date.now() - startedAt,
  bytes: 0,
  feed: null,
  etag: null,
  lastModified: null,
  maxAgeSeconds: null,
  retryAt: null,
  finalUrl: null,
});

/** A poll's error with the items it skipped: `skipped 2 items: item k1: url: ...; item k2: ...`. */
function withNotes(error: string | null, n: { skipped: number; reasons: string[] } | undefined): string | null {
  if (!n) return error;
  const skipped = `skipped ${n.skipped} item${n.skipped === 1 ? '' : 's'}: ${n.reasons.join('; ')}${n.skipped > n.reasons.length ? '; ...' : ''}`;
  return (error ? `${error}; ${skipped}` : skipped).slice(0, 2000);
}

type BatchInput = { batchId: string; at: number; sources: string[] };
type PollOptions = { heartbeat?: (progress: unknown) => void; signal?: AbortSignal };
/** a source's poll in a batch */
type Polled = { row: SourceRow; poll: FeedPoll; startedAt: number };
/** an item its source had not seen */
type Fresh = { row: SourceRow; item: FeedItem };
type IndexEntry = { url: string; metadata: Record<string, unknown> };
/** per source: the items skipped, the first reasons */
type Notes = Map<string, { skipped: number; reasons: string[] }>;

/** The poller of one worker process: one fetcher, one politeness gate, one robots.txt cache. */
export class FeedPoller {
  readonly store: SourceStore;
  private readonly ctx: PollContext;
  private readonly fetcher: PageFetcher;

  constructor(private readonly deps: FeedPollDeps) {
    this.store = new SourceStore(deps.warehouse);
    this.fetcher = new PageFetcher(deps.fetch ?? {});
    const gate = new HostGate({ delayMs: deps.delayMs });
    this.ctx = { fetcher: this.fetcher, gate, robots: robotsThrough(this.fetcher, gate) };
  }

  async due(input: { at: number; limit?: number; batchSize?: number }): Promise<DueSources> {
    const limit = input.limit ?? FEED_POLL_DEFAULTS.limit;
    const due = await this.store.due(input.at, limit);
    return { batches: batchByHost(due, input.batchSize ?? FEED_POLL_DEFAULTS.batchSize), more: due.length >= limit };
  }

  /** Poll a batch of sources at `at` (epoch ms: the workflow's time); see the top of this file. */
  async pollBatch(input: BatchInput, o: PollOptions = {}): Promise<BatchResult> {
    const beat = o.heartbeat ?? (() => undefined);
    const rows = await this.store.get(input.sources);
    // 1. fetch
    const polled = await this.fetchAll(rows, o, beat);
    // 2. send what is new, each URL once
    const sent = await this.sendNew(input, polled, o, beat);
    // 3. land the polls and the sources' state
    await this.landPolls(input, polled, sent.fresh, sent.notes);
    const count = (st: string) => polled.filter((p) => p.poll.status === st).length;
    return {
      polled: polled.length,
      ok: count('ok'),
      notModified: count('not_modified'),
      failed: count('failed') + count('disallowed'),
      deferred: count('deferred'),
      fresh: sent.fresh.length,
      sent: sent.urls,
      calls: sent.calls,
      skipped: [...sent.notes.values()].reduce((a, n) => a + n.skipped, 0),
    };
  }

  /** Every source polled, hosts side by side, a host's sources one after another. */
  private async fetchAll(rows: SourceRow[], o: PollOptions, beat: (progress: unknown) => void): Promise<Polled[]> {
    const byHost = new Map<string, SourceRow[]>();
    for (const r of rows) byHost.set(hostOf(r.url), [...(byHost.get(hostOf(r.url)) ?? []), r]);
    const polled: Polled[] = [];
    const hosts = new PQueue({ concurrency: this.deps.hostConcurrency ?? FEED_POLL_DEFAULTS.hostConcurrency });
    for (const list of byHost.values())
      void hosts.add(async () => {
        for (const row of list) {
          const startedAt = Date.now();
          let poll: FeedPoll;
          try {
            poll = await pollFeed(
              { url: row.url, etag: row.etag, lastModified: row.lastModified, lastSuccessAt: row.lastSuccessAt },
              { ...this.ctx, signal: o.signal },
            );
          } catch (e) {
            // a source whose poll throws (a bug a feed finds) fails on its own; its host's other sources go on
            if (o.signal?.aborted) throw e;
            poll = failedPoll(startedAt, `${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? String(e)}`);
          }
          polled.push({ row, poll, startedAt });
          beat({ step: 'fetch', polled: polled.length });
        }
      });
    await hosts.onIdle();
    return polled;
  }

  /** The items not seen before, each URL sent to index_urls once, in chunks; what was sent lands as seen. */
  private async sendNew(
    input: BatchInput,
    polled: Polled[],
    o: PollOptions,
    beat: (progress: unknown) => void,
  ): Promise<{ fresh: Fresh[]; urls: number; calls: number; notes: Notes }> {
    const items = polled.flatMap(({ row, poll }) => (poll.status === 'ok' ? (poll.feed?.items ?? []) : []).filter((i) => i.url).map((item) => ({ row, item })));
    const seen = await this.store.seen(items.map(({ row, item }) => ({ source: row.source, itemKey: item.key })));
    const fresh = items.filter(({ row, item }) => !seen.has(`${row.source}\u0001${item.key}`));
    const byUrl = new Map<string, Fresh[]>();
    for (const f of fresh) byUrl.set(f.item.url!, [...(byUrl.get(f.item.url!) ?? []), f]);
    // a URL another source (or another item) had sent already is not sent again: its items land as seen
    const before = await this.store.sentUrls([...byUrl.keys()]);
    const known = [...before].flatMap((u) => byUrl.get(u)!);
    if (known.length)
      await this.store.landItems(
        known.map(({ row, item }) => seenItem(row, item, input.at, null)),
        `${input.batchId}/known`,
      );
    // each entry checked against index_urls' request schema: a bad one is skipped (its reason on its source's poll), its siblings go on
    const notes: Notes = new Map();
    const note = (source: string, reason: string) => {
      const n = notes.get(source) ?? { skipped: 0, reasons: [] };
      n.skipped++;
      if (n.reasons.length < REASONS_NAMED) n.reasons.push(reason);
      notes.set(source, n);
    };
    const entries = new Map<string, IndexEntry>();
    for (const u of byUrl.keys()) {
      if (before.has(u)) continue;
      const { row, item } = byUrl.get(u)![0]!;
      const e = indexEntry(item, row);
      if ('entry' in e) entries.set(u, e.entry);
      else for (const f of byUrl.get(u)!) note(f.row.source, `item ${f.item.key.slice(0, 120)}: ${e.reason}`);
    }
    const urls = [...entries.keys()];
    const chunk = Math.min(this.deps.chunk ?? FEED_POLL_DEFAULTS.chunk, INDEX_URLS_LIMITS.maxUrls);
    let calls = 0;
    for (let i = 0; i < urls.length; i += chunk) {
      const part = urls.slice(i, i + chunk);
      const dates = part.map((u) => byUrl.get(u)![0]!.item.published).filter((p): p is string => !!p);
      const earliest = Math.min(input.at - 86_400_000, ...dates.map((d) => Date.parse(d)));
      let res: Awaited<ReturnType<NewsClient['indexUrls']>>;
      try {
        res = await this.indexUrls(
          {
            start_time: new Date(earliest).toISOString(),
            end_time: new Date(Math.max(input.at, Date.now()) + 86_400_000).toISOString(),
            urls: part.map((u) => entries.get(u)!),
          },
          o,
          () => beat({ step: 'send', waiting: 'index_urls busy', sent: i, of: urls.length }),
        );
      } catch (e) {
        // a 422 no retry heals (a server with a lower maxUrls or stricter bounds): these items are
        // skipped with the API's answer as reason, not landed (sent again next poll), the rest go on
        if (!(e instanceof ValidationError)) throw e;
        calls++;
        for (const u of part)
          for (const f of byUrl.get(u)!) note(f.row.source, `item ${f.item.key.slice(0, 120)}: index_urls refused it: ${e.message.slice(0, 200)}`);
        continue;
      }
      calls++;
      const accepted: SeenItem[] = part.flatMap((u) => byUrl.get(u)!.map(({ row, item }) => seenItem(row, item, input.at, res.job_id ?? null)));
      await this.store.landItems(accepted, `${input.batchId}/items/${i / chunk}`);
      beat({ step: 'send', sent: Math.min(i + chunk, urls.length), of: urls.length });
    }
    return { fresh, urls: urls.length, calls, notes };
  }

  /**
   * One index_urls call. A 429 past the client's retries (the owner's unfinished-jobs cap: its
   * earlier jobs still indexing) is backpressure, not a failure: wait for a slot, beating, and send
   * the chunk again.
   */
  private async indexUrls(
    body: Parameters<NewsClient['indexUrls']>[0],
    o: PollOptions,
    waiting: () => void,
  ): Promise<Awaited<ReturnType<NewsClient['indexUrls']>>> {
    const waitUntil = Date.now() + (this.deps.busyWaitMs ?? FEED_POLL_DEFAULTS.busyWaitMs);
    for (;;) {
      try {
        return await this.deps.client.indexUrls(body);
      } catch (e) {
        if (!(e instanceof RateLimitError) || Date.now() >= waitUntil || o.signal?.aborted) throw e;
        waiting();
        await new Promise((r) => setTimeout(r, Math.max(1000, (e.retryAfter ?? 5) * 1000)));
        if (o.signal?.aborted) throw e;
      }
    }
  }

  /** The batch's source_polls rows and each source's state after its poll. */
  private async landPolls(input: BatchInput, polled: Polled[], fresh: Fresh[], notes: Notes): Promise<void> {
    const bounds = this.deps.bounds ?? POLL_BOUNDS;
    const freshBy = new Map<string, number>();
    for (const f of fresh) freshBy.set(f.row.source, (freshBy.get(f.row.source) ?? 0) + 1);
    const states: SourceState[] = [];
    const rowsOut: PollRow[] = [];
    for (const { row, poll, startedAt } of polled) {
      const n = freshBy.get(row.source) ?? 0;
      const s = stateAfter(row, poll, n, input.at, bounds);
      states.push(s);
      rowsOut.push({
        pollId: `${input.batchId}/${row.source}`,
        source: row.source,
        startedAt,
        status: poll.status,
        reason: poll.reason,
        httpStatus: poll.httpStatus,
        latencyMs: poll.latencyMs,
        bytes: poll.bytes,
        itemsSeen: poll.feed?.items.length ?? 0,
        itemsNew: n,
        nextPollAt: s.nextPollAt,
        error: withNotes(poll.error, notes.get(row.source)),
      });
    }
    await this.store.landPolls(rowsOut, states, input.batchId);
  }

  /**
   * Record a batch whose polling failed for good (its activity ran out of retries or met an error
   * no retry heals) on each of its sources: a `failed` source_polls row (reason `batch_failed`,
   * the error) and the failing state, so the round goes on and the source is polled again later.
   */
  async recordFailedBatch(input: { batchId: string; at: number; sources: string[]; error: string }): Promise<BatchResult> {
    const rows = await this.store.get(input.sources);
    const bounds = this.deps.bounds ?? POLL_BOUNDS;
    const states: SourceState[] = [];
    const polls: PollRow[] = [];
    for (const row of rows) {
      const poll = { ...failedPoll(input.at, input.error), reason: 'batch_failed', latencyMs: 0 };
      const s = stateAfter(row, poll, 0, input.at, bounds);
      states.push(s);
      polls.push({
        pollId: `${input.batchId}/${row.source}`,
        source: row.source,
        startedAt: input.at,
        status: 'failed',
        reason: 'batch_failed',
        httpStatus: null,
        latencyMs: 0,
        bytes: 0,
        itemsSeen: 0,
        itemsNew: 0,
        nextPollAt: s.nextPollAt,
        error: poll.error,
      });
    }
    await this.store.landPolls(polls, states, `${input.batchId}/failed`);
    return { polled: rows.length, ok: 0, notModified: 0, failed: rows.length, deferred: 0, fresh: 0, sent: 0, calls: 0, skipped: 0 };
  }

  close(): Promise<void> {
    return this.fetcher.destroy();
  }
}

export function createFeedPollActivities(deps: FeedPollDeps) {
  let poller: FeedPoller | null = null;
  const get = () => (poller ??= new FeedPoller(deps));
  return failingFast({
    async dueSources(input: { at: number; limit?: number; batchSize?: number }): Promise<DueSources> {
      return get().due(input);
    },

    async pollSources(input: { batchId: string; at: number; sources: string[] }): Promise<BatchResult> {
      const ctx = Context.current();
      let progress: unknown = { step: 'start' };
      // alive while this process is: a killed worker stops beating and the batch is retried elsewhere
      const timer = setInterval(() => ctx.heartbeat(progress), 2000);
      try {
        return await get().pollBatch(input, { heartbeat: (p) => ctx.heartbeat((progress = p)), signal: ctx.cancellationSignal });
      } finally {
        clearInterval(timer);
      }
    },

    async recordFailedBatch(input: { batchId: string; at: number; sources: string[]; error: string }): Promise<BatchResult> {
      return get().recordFailedBatch(input);
    },
  });
}
export type FeedPollActivities = ReturnType<typeof createFeedPollActivities>;
