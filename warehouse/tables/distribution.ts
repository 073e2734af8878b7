/** Tables landed by distributionPull; every key includes organization, domain set and window. */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });
const common = [
  c('org_id', 'VARCHAR', 'varchar'),
  c('domain_set', 'VARCHAR', 'varchar'),
  c('window_start', 'TIMESTAMP', 'bigint'),
  c('window_end', 'TIMESTAMP', 'bigint'),
];
const tail = [c('row_hash', 'VARCHAR', 'varchar'), c('last_load_id', 'VARCHAR', 'varchar')];

export const DIST_TOP_ARTICLES: TableDef = {
  name: 'distribution_top_articles',
  description: 'top_n_for_domains rows per month window (merge on organization, domain set, window, metric, article)',
  mergeKey: ['org_id', 'domain_set', 'window_start', 'metric', 'article_id'],
  monthColumn: 'window_start',
  columns: [
    ...common,
    c('metric', 'VARCHAR', 'varchar'),
    c('article_id', 'VARCHAR', 'varchar'),
    c('article_url', 'VARCHAR', 'varchar'),
    c('hit_count', 'BIGINT', 'bigint'),
    c('page', 'INTEGER', 'int'),
    c('rank', 'INTEGER', 'int'),
    ...tail,
  ],
};
export const DIST_PAGES: TableDef = {
  name: 'distribution_pages',
  description: 'one row per page walked (for the invariants: contiguous pages, sum = total_count)',
  mergeKey: ['org_id', 'domain_set', 'window_start', 'metric', 'page'],
  monthColumn: 'window_start',
  columns: [
    ...common,
    c('metric', 'VARCHAR', 'varchar'),
    c('page', 'INTEGER', 'int'),
    c('n', 'INTEGER', 'int'),
    c('total_count', 'BIGINT', 'bigint'),
    c('sum_hit_count', 'BIGINT', 'bigint'),
    c('next_page', 'INTEGER', 'int'),
    ...tail,
  ],
};
export const DIST_HIT_SHARE: TableDef = {
  name: 'distribution_hit_share',
  description: 'hit_share per domain and window',
  mergeKey: ['org_id', 'domain_set', 'window_start', 'domain'],
  monthColumn: 'window_start',
  columns: [...common, c('domain', 'VARCHAR', 'varchar'), c('hit_share', 'DOUBLE', 'double'), c('total_share', 'DOUBLE', 'double'), ...tail],
};
export const DIST_METRICS: TableDef = {
  name: 'distribution_metrics',
  description: 'stats/metrics per window: raw counts of the four event kinds',
  mergeKey: ['org_id', 'domain_set', 'window_start'],
  monthColumn: 'window_start',
  columns: [
    ...common,
    c('surfaces', 'BIGINT', 'bigint'),
    c('citations', 'BIGINT', 'bigint'),
    c('full_text', 'BIGINT', 'bigint'),
    c('grounded', 'BIGINT', 'bigint'),
    ...tail,
  ],
};
export const DISTRIBUTION_TABLES = [DIST_TOP_ARTICLES, DIST_PAGES, DIST_HIT_SHARE, DIST_METRICS];
