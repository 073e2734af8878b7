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
  // the load that last changed the count: a load bringing the same count leaves the row as it was
  loadColumns: ['loaded_at', 'load_id'],
  columns: [
    c('domain', 'VARCHAR', 'varchar'),
    c('bucket_start', 'TIMESTAMP', 'bigint'),
    c('bucket_end', 'TIMESTAMP', 'bigint'),
    c('sampling', 'VARCHAR', 'varchar'),
    c('filter_hash', 'VARCHAR', 'varchar'),
    c('filters', 'JSON', 'varchar'),
    c('count', 'BIGINT', 'bigint'),
    c('loaded_at', 'TIMESTAMP', 'bigint'),
    c('load_id', 'VARCHAR', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
  ],
};
export const INDEX_COUNT_TABLES = [INDEX_COUNTS];
