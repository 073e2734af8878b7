/**
 * The feed poller's warehouse tables (tables/feeds.ts): declaring and removing sources, what is
 * due, what a batch of sources has seen, and landing a batch's polls. Every write is one lake
 * transaction that touches the table's lock row (two writers of one table conflict and one
 * retries, as `land` does).
 */
import type { Warehouse } from './warehouse.js';
import { SOURCE_ITEMS, SOURCE_POLLS, type SourceOrigin, type SourceStatus } from './tables/feeds.js';

/** A source's row as the poller reads it (times epoch ms). */
export interface SourceRow {
  source: string;
  url: string;
  origin: SourceOrigin;
  language: string | null;
  tags: string[];
  pollIntervalS: number | null;
  addedAt: number | null;
  kind: string | null;
  title: string | null;
  status: SourceStatus;
  lastPollAt: number | null;
  lastSuccessAt: number | null;
  failingSince: number | null;
  failuresInRow: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  itemsPerDay: number | null;
  itemsSeen: number;
  intervalS: number | null;
  nextPollAt: number | null;
  etag: string | null;
  lastModified: string | null;
}

/** A declaration: what the project file or `sources add` says of a source. */
export interface SourceDecl {
  source: string;
  url: string;
  language: string | null;
  tags: string[];
  pollIntervalS: number | null;
}

/** The state a poll leaves (times epoch ms). */
export type SourceState = Pick<
  SourceRow,
  | 'source'
  | 'kind'
  | 'title'
  | 'status'
  | 'lastPollAt'
  | 'lastSuccessAt'
  | 'failingSince'
  | 'failuresInRow'
  | 'lastHttpStatus'
  | 'lastError'
  | 'itemsPerDay'
  | 'itemsSeen'
  | 'intervalS'
  | 'nextPollAt'
  | 'etag'
  | 'lastModified'
>;

export interface PollRow {
  pollId: string;
  source: string;
  startedAt: number;
  status: string;
  reason: string | null;
  httpStatus: number | null;
  latencyMs: number;
  bytes: number;
  itemsSeen: number;
  itemsNew: number;
  nextPollAt: number | null;
  error: string | null;
}

export interface SeenItem {
  source: string;
  itemKey: string;
  url: string | null;
  title: string | null;
  published: number | null;
  firstSeenAt: number;
  jobId: string | null;
}

const ms = (v: unknown): number | null => (v == null ? null : v instanceof Date ? v.getTime() : Number(v));
const us = (v: number | null) => (v == null ? null : v * 1000);
const COLS = `source, url, origin, language, tags, poll_interval_s, epoch_ms(added_at) AS added_ms, kind, title, status, epoch_ms(last_poll_at) AS last_poll_ms,
  epoch_ms(last_success_at) AS last_success_ms, epoch_ms(failing_since) AS failing_ms, failures_in_row, last_http_status, last_error, items_per_day, items_seen,
  interval_s, epoch_ms(next_poll_at) AS next_ms, etag, last_modified`;
const fromRow = (r: Record<string, unknown>): SourceRow => ({
  source: String(r.source),
  url: String(r.url),
  origin: r.origin as SourceOrigin,
  language: (r.language as string | null) ?? null,
  tags: ((r.tags as unknown[] | null) ?? []).map(String),
  pollIntervalS: r.poll_interval_s == null ? null : Number(r.poll_interval_s),
  addedAt: ms(r.added_ms),
  kind: (r.kind as string | null) ?? null,
  title: (r.title as string | null) ?? null,
  status: ((r.status as string | null) ?? 'new') as SourceStatus,
  lastPollAt: ms(r.last_poll_ms),
  lastSuccessAt: ms(r.last_success_ms),
  failingSince: ms(r.failing_ms),
  failuresInRow: Number(r.failures_in_row ?? 0),
  lastHttpStatus: r.last_http_status == null ? null : Number(r.last_http_status),
  lastError: (r.last_error as string | null) ?? null,
  itemsPerDay: r.items_per_day == null ? null : Number(r.items_per_day),
  itemsSeen: Number(r.items_seen ?? 0),
  intervalS: r.interval_s == null ? null : Number(r.interval_s),
  nextPollAt: ms(r.next_ms),
  etag: (r.etag as string | null) ?? null,
  lastModified: (r.last_modified as string | null) ?? null,
});

/** A JSON list parameter read as VARCHAR[] */
const list = (p: string) => `(SELECT unnest(from_json(${p}, '["VARCHAR"]')))`;

export class SourceStore {
  constructor(readonly wh: Warehouse) {}

  async all(): Promise<SourceRow[]> {
    return (await this.wh.query(`SELECT ${COLS} FROM sources ORDER BY source`)).map(fromRow);
  }

  async get(names: string[]): Promise<SourceRow[]> {
    if (names.length === 0) return [];
    return (await this.wh.query(`SELECT ${COLS} FROM sources WHERE source IN ${list('$1')} ORDER BY source`, [JSON.stringify(names)])).map(fromRow);
  }

  /**
   * Declare sources of `origin`: new ones are added (status new, due now), the declared columns of
   * known ones updated (their state kept). With `replace`, the sources of that origin not in
   * `decls` are removed (the project file's list is the whole list of its sources). One transaction.
   * A name another origin holds is left to it and reported in `taken`.
   */
  async declare(
    decls: SourceDecl[],
    origin: SourceOrigin,
    at: number,
    o: { replace?: boolean } = {},
  ): Promise<{ added: string[]; updated: string[]; removed: string[]; taken: string[] }> {
    const known = new Map((await this.all()).map((r) => [r.source, r]));
    const out = { added: [] as string[], updated: [] as string[], removed: [] as string[], taken: [] as string[] };
    const stmts: [string, unknown[]][] = [];
    for (const d of decls) {
      const k = known.get(d.source);
      const tags = JSON.stringify(d.tags);
      if (k && k.origin !== origin) out.taken.push(d.source);
      else if (!k) {
        out.added.push(d.source);
        stmts.push([
          `INSERT INTO sources (source, url, origin, language, tags, poll_interval_s, added_at, status, failures_in_row, items_seen)
           VALUES ($1, $2, $3, $4, from_json($5, '["VARCHAR"]'), $6, make_timestamp($7::BIGINT), 'new', 0, 0)`,
          [d.source, d.url, origin, d.language, tags, d.pollIntervalS, us(at)],
        ]);
      } else if (k.url !== d.url || k.language !== d.language || JSON.stringify(k.tags) !== tags || k.pollIntervalS !== d.pollIntervalS) {
        out.updated.push(d.source);
        // a new URL is a new feed: its validators and schedule start over
        const moved = k.url !== d.url;
        stmts.push([
          `UPDATE sources SET url = $2, language = $3, tags = from_json($4, '["VARCHAR"]'), poll_interval_s = $5${
            moved ? ', etag = NULL, last_modified = NULL, next_poll_at = NULL, kind = NULL' : ''
          } WHERE source = $1`,
          [d.source, d.url, d.language, tags, d.pollIntervalS],
        ]);
      }
    }
    if (o.replace) {
      const keep = new Set(decls.map((d) => d.source));
      for (const k of known.values()) if (k.origin === origin && !keep.has(k.source)) out.removed.push(k.source);
      if (out.removed.length) stmts.push([`DELETE FROM sources WHERE source IN ${list('$1')}`, [JSON.stringify(out.removed)]]);
    }
    if (stmts.length) await this.wh.execMany(stmts, { locks: ['sources'] });
    return out;
  }

  /** Remove a source (its polls and seen items stay, as history). False when there is none of that name. */
  async remove(source: string): Promise<boolean> {
    const [hit] = await this.get([source]);
    if (!hit) return false;
    await this.wh.execMany([['DELETE FROM sources WHERE source = $1', [source]]], { locks: ['sources'] });
    return true;
  }

  /** Sources due at `at` (never polled first, then the longest overdue), at most `limit`. */
  async due(at: number, limit: number): Promise<{ source: string; url: string }[]> {
    const rows = await this.wh.query<{ source: string; url: string }>(
      `SELECT source, url FROM sources WHERE next_poll_at IS NULL OR next_poll_at <= make_timestamp($1::BIGINT)
       ORDER BY next_poll_at NULLS FIRST, source LIMIT $2`,
      [us(at), limit],
    );
    return rows.map((r) => ({ source: String(r.source), url: String(r.url) }));
  }

  /** Of `pairs`, the (source, item key) pairs seen before. */
  async seen(pairs: { source: string; itemKey: string }[]): Promise<Set<string>> {
    if (pairs.length === 0) return new Set();
    const rows = await this.wh.query<{ k: string }>(
      `SELECT source || chr(1) || item_key AS k FROM source_items WHERE source || chr(1) || item_key IN ${list('$1')}`,
      [JSON.stringify(pairs.map((p) => `${p.source}\u0001${p.itemKey}`))],
    );
    return new Set(rows.map((r) => r.k));
  }

  /** Of `urls`, those index_urls accepted before (for any source). */
  async sentUrls(urls: string[]): Promise<Set<string>> {
    if (urls.length === 0) return new Set();
    const rows = await this.wh.query<{ url: string }>(`SELECT DISTINCT url FROM source_items WHERE url IN ${list('$1')}`, [JSON.stringify(urls)]);
    return new Set(rows.map((r) => r.url));
  }

  /** Land items index_urls accepted (merge on source and item key: a resend changes nothing). */
  async landItems(items: SeenItem[], loadId: string): Promise<void> {
    if (items.length === 0) return;
    await this.wh.land(
      SOURCE_ITEMS,
      items.map((i) => ({
        source: i.source,
        item_key: i.itemKey,
        url: i.url,
        title: i.title,
        published: us(i.published),
        first_seen_at: us(i.firstSeenAt),
        job_id: i.jobId,
      })),
      [],
      loadId,
    );
  }

  /** Land a batch's polls, then its sources' new state, each in one transaction (a removed source stays removed). */
  async landPolls(polls: PollRow[], states: SourceState[], loadId: string): Promise<void> {
    if (polls.length)
      await this.wh.land(
        SOURCE_POLLS,
        polls.map((p) => ({
          poll_id: p.pollId,
          source: p.source,
          started_at: us(p.startedAt),
          status: p.status,
          reason: p.reason,
          http_status: p.httpStatus,
          latency_ms: p.latencyMs,
          bytes: p.bytes,
          items_seen: p.itemsSeen,
          items_new: p.itemsNew,
          next_poll_at: us(p.nextPollAt),
          error: p.error,
        })),
        [],
        loadId,
      );
    if (states.length === 0) return;
    // one statement for the batch (an UPDATE per source is a lake write each: 16 ms of CPU apiece)
    const v = states.map((x) => ({
      source: x.source,
      kind: x.kind,
      title: x.title,
      status: x.status,
      last_poll: us(x.lastPollAt),
      last_success: us(x.lastSuccessAt),
      failing_since: us(x.failingSince),
      failures: x.failuresInRow,
      http: x.lastHttpStatus,
      error: x.lastError,
      per_day: x.itemsPerDay,
      seen: x.itemsSeen,
      interval: x.intervalS,
      next_poll: us(x.nextPollAt),
      etag: x.etag,
      last_modified: x.lastModified,
    }));
    const shape = JSON.stringify([
      {
        source: 'VARCHAR',
        kind: 'VARCHAR',
        title: 'VARCHAR',
        status: 'VARCHAR',
        last_poll: 'BIGINT',
        last_success: 'BIGINT',
        failing_since: 'BIGINT',
        failures: 'INTEGER',
        http: 'INTEGER',
        error: 'VARCHAR',
        per_day: 'DOUBLE',
        seen: 'BIGINT',
        interval: 'INTEGER',
        next_poll: 'BIGINT',
        etag: 'VARCHAR',
        last_modified: 'VARCHAR',
      },
    ]);
    const ts = (c: string) => `CASE WHEN v.${c} IS NULL THEN NULL ELSE make_timestamp(v.${c}) END`;
    const stmts: [string, unknown[]][] = [
      [
        `UPDATE sources SET kind = v.kind, title = v.title, status = v.status, last_poll_at = ${ts('last_poll')}, last_success_at = ${ts('last_success')},
           failing_since = ${ts('failing_since')}, failures_in_row = v.failures, last_http_status = v.http, last_error = v.error, items_per_day = v.per_day,
           items_seen = v.seen, interval_s = v.interval, next_poll_at = ${ts('next_poll')}, etag = v.etag, last_modified = v.last_modified
         FROM (SELECT unnest(from_json($1, '${shape}'), recursive := true)) v WHERE sources.source = v.source`,
        [JSON.stringify(v)],
      ],
    ];
    await this.wh.execMany(stmts, { locks: ['sources'] });
  }
}
