/**
 * Table landed by indexCountSampler: one row per domain, bucket, sampling and filter set. The
 * merge key leaves out the count, so a bucket that grows later (articles still arriving) is
 * updated in place, never duplicated.
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });

/** `domain` of a series over every domain (the API called without `domains`). */
export const ALL_DOMAINS = '*';

export const INDEX_COUNTS: TableDef = {
  name: 'index_counts',
  description: "GET /v1/index_counts buckets per domain ('*' = all domains), sampling and filter set (merge on domain, bucket_start, sampling, filter_hash)",
  mergeKey: ['domain', 'bucket_start', 'sampling', 'filter_hash'],
  monthColumn: 'bucket_start',
  fromRaw: (raw, row) => ({ row: { ...row, ...bucketCols(raw as Bucket) } }),
  // the load that last changed the count: a load bringing the same count leaves the row as it was
  loadColumns: ['loaded_at', 'load_id', 'raw'],
  columns: [
    c('domain', 'VARCHAR', 'varchar'),
    c('bucket_start', 'TIMESTAMP', 'bigint'),
    c('bucket_end', 'TIMESTAMP', 'bigint'),
    c('sampling', 'VARCHAR', 'varchar'),
    c('filter_hash', 'VARCHAR', 'varchar'),
    c('filters', 'JSON', 'varchar'),
    c('count', 'BIGINT', 'bigint'),
    c('raw', 'JSON', 'varchar'),
    c('loaded_at', 'TIMESTAMP', 'bigint'),
    c('load_id', 'VARCHAR', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
  ],
};
/** A bucket of GET /v1/index_counts. */
export interface Bucket {
  start: string;
  end: string;
  count: number;
}
/** A bucket's columns (`raw` included). */
const bucketCols = (i: Bucket) => ({ bucket_start: Date.parse(i.start) * 1000, bucket_end: Date.parse(i.end) * 1000, count: i.count, raw: JSON.stringify(i) });

/** The rows of one sampling: the buckets of a domain ('*' all), with the filter set and the load. */
export function indexCountRows(
  items: Bucket[],
  o: { domain: string | null; sampling: string; filterHash: string; filters: string; loadedAt: number; loadId: string },
) {
  return items.map((i) => ({
    domain: o.domain ?? ALL_DOMAINS,
    ...bucketCols(i),
    sampling: o.sampling,
    filter_hash: o.filterHash,
    filters: o.filters,
    loaded_at: o.loadedAt,
    load_id: o.loadId,
  }));
}
export const INDEX_COUNT_TABLES = [INDEX_COUNTS];
