/**
 * Tables of the feed poller (workflows/feed-poll.ts, activities/feed-poll.ts).
 *
 * - `sources`: one row per source, declared (origin `file`: the project file's `sources:`;
 *   `cli`: `newsflow sources add`) and its polling state and health. Written by its own statements
 *   (activities/feed-poll.ts): a declaration sets the declared columns, a poll the state columns,
 *   so neither overwrites the other, and a poll never brings back a removed source.
 *   `status`: `new` (not polled yet), `ok`, `failing` (the last poll failed, was refused by
 *   robots.txt or deferred by a 429/503), `flagged` (failing for a day or more: still polled, at
 *   the upper bound of the interval, never dropped).
 * - `source_polls`: one row per poll of a source (merge on poll_id, the batch's activity and the
 *   source: a retried activity rewrites its rows, never adds to them).
 * - `source_items`: the items a source has handed to index_urls (merge on source and item key),
 *   landed only after index_urls accepted them: a killed poll resends what is not here, and
 *   index_urls dedupes what it gets twice.
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });

export const SOURCE_STATUSES = ['new', 'ok', 'failing', 'flagged'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];
export const SOURCE_ORIGINS = ['file', 'cli'] as const;
export type SourceOrigin = (typeof SOURCE_ORIGINS)[number];
/** How long a source fails before it is flagged. */
export const FLAG_AFTER_MS = 86_400_000;

export const SOURCES: TableDef = {
  name: 'sources',
  description: 'feeds and sitemaps polled for new articles: declaration, polling state and health (key: source)',
  mergeKey: ['source'],
  loadedAt: 'coalesce(last_poll_at, added_at)',
  columns: [
    // declared
    c('source', 'VARCHAR', 'varchar'),
    c('url', 'VARCHAR', 'varchar'),
    c('origin', 'VARCHAR', 'varchar'),
    c('language', 'VARCHAR', 'varchar'),
    c('tags', 'VARCHAR[]', 'varchar[]'),
    c('poll_interval_s', 'INTEGER', 'int'),
    c('added_at', 'TIMESTAMP', 'bigint'),
    // learned by polling
    c('kind', 'VARCHAR', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('status', 'VARCHAR', 'varchar'),
    c('last_poll_at', 'TIMESTAMP', 'bigint'),
    c('last_success_at', 'TIMESTAMP', 'bigint'),
    c('failing_since', 'TIMESTAMP', 'bigint'),
    c('failures_in_row', 'INTEGER', 'int'),
    c('last_http_status', 'INTEGER', 'int'),
    c('last_error', 'VARCHAR', 'varchar'),
    c('items_per_day', 'DOUBLE', 'double'),
    c('items_seen', 'BIGINT', 'bigint'),
    c('interval_s', 'INTEGER', 'int'),
    c('next_poll_at', 'TIMESTAMP', 'bigint'),
    c('etag', 'VARCHAR', 'varchar'),
    c('last_modified', 'VARCHAR', 'varchar'),
  ],
};

export const SOURCE_POLLS: TableDef = {
  name: 'source_polls',
  description: 'one row per poll of a source: status, HTTP code, latency, bytes, items seen and new, next poll (merge on poll_id)',
  mergeKey: ['poll_id'],
  monthColumn: 'started_at',
  columns: [
    c('poll_id', 'VARCHAR', 'varchar'),
    c('source', 'VARCHAR', 'varchar'),
    c('started_at', 'TIMESTAMP', 'bigint'),
    c('status', 'VARCHAR', 'varchar'),
    c('reason', 'VARCHAR', 'varchar'),
    c('http_status', 'INTEGER', 'int'),
    c('latency_ms', 'INTEGER', 'int'),
    c('bytes', 'BIGINT', 'bigint'),
    c('items_seen', 'INTEGER', 'int'),
    c('items_new', 'INTEGER', 'int'),
    c('next_poll_at', 'TIMESTAMP', 'bigint'),
    c('error', 'VARCHAR', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
    c('last_load_id', 'VARCHAR', 'varchar'),
  ],
};

export const SOURCE_ITEMS: TableDef = {
  name: 'source_items',
  description: 'items of each source handed to index_urls (merge on source, item_key); the first acceptance is kept',
  mergeKey: ['source', 'item_key'],
  monthColumn: 'first_seen_at',
  // a resend (a retried poll) keeps the first acceptance's time and job
  loadColumns: ['first_seen_at', 'job_id'],
  columns: [
    c('source', 'VARCHAR', 'varchar'),
    c('item_key', 'VARCHAR', 'varchar'),
    c('url', 'VARCHAR', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('published', 'TIMESTAMP', 'bigint'),
    c('first_seen_at', 'TIMESTAMP', 'bigint'),
    c('job_id', 'VARCHAR', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
    c('last_load_id', 'VARCHAR', 'varchar'),
  ],
};

export const FEED_TABLES = [SOURCES, SOURCE_POLLS, SOURCE_ITEMS];
