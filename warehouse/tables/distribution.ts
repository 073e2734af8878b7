/** Tables landed by distributionPull; every key includes organization, domain set and window. */
import type { DomainMetricsResponse, HitShareResponse, TopNForDomainsResponse } from '../../spec/index.js';
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });
const common = [
  c('org_id', 'VARCHAR', 'varchar'),
  c('domain_set', 'VARCHAR', 'varchar'),
  c('window_start', 'TIMESTAMP', 'bigint'),
  c('window_end', 'TIMESTAMP', 'bigint'),
];
const tail = [c('raw', 'JSON', 'varchar'), c('row_hash', 'VARCHAR', 'varchar'), c('last_load_id', 'VARCHAR', 'varchar')];

export const DIST_TOP_ARTICLES: TableDef = {
  name: 'distribution_top_articles',
  description: 'top_n_for_domains rows per month window (merge on organization, domain set, window, metric, article)',
  mergeKey: ['org_id', 'domain_set', 'window_start', 'metric', 'article_id'],
  loadColumns: ['raw'],
  monthColumn: 'window_start',
  fromRaw: (raw, row) => ({ row: { ...row, ...topNCols(raw as TopNItem) } }),
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
  loadColumns: ['raw'],
  monthColumn: 'window_start',
  // n and sum_hit_count are of the page's items (distribution_top_articles): kept as landed
  fromRaw: (raw, row) => ({ row: { ...row, ...pageCols(raw as PageMeta) } }),
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
  loadColumns: ['raw'],
  monthColumn: 'window_start',
  fromRaw: (raw, row) => ({ row: { ...row, ...hitShareCols(raw as HitShareResponse['data'][number]) } }),
  columns: [...common, c('domain', 'VARCHAR', 'varchar'), c('hit_share', 'DOUBLE', 'double'), c('total_share', 'DOUBLE', 'double'), ...tail],
};
export const DIST_METRICS: TableDef = {
  name: 'distribution_metrics',
  description: 'stats/metrics per window: raw counts of the four event kinds',
  mergeKey: ['org_id', 'domain_set', 'window_start'],
  loadColumns: ['raw'],
  monthColumn: 'window_start',
  fromRaw: (raw, row) => ({ row: { ...row, ...metricsCols(raw as DomainMetricsResponse) } }),
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

/** The columns every distribution row has: organization, domain set, window (epoch micros). */
export type WindowCols = { org_id: string; domain_set: string; window_start: number; window_end: number };
type TopNItem = TopNForDomainsResponse['data'][number];
/** A page's response without its items (each item is a top-articles row's raw). */
type PageMeta = Omit<TopNForDomainsResponse, 'data'>;

const topNCols = (d: TopNItem) => ({
  article_id: d.article_id ?? d.article_url ?? '',
  article_url: d.article_url ?? null,
  hit_count: d.hit_count,
  raw: JSON.stringify(d),
});
const pageCols = (m: PageMeta) => ({ total_count: m.total_count, next_page: m.next_page ?? null, raw: JSON.stringify(m) });
const hitShareCols = (d: HitShareResponse['data'][number]) => ({ domain: d.domain, hit_share: d.hit_share, raw: JSON.stringify(d) });
const metricsCols = (r: DomainMetricsResponse) => ({
  surfaces: r.surfaces,
  citations: r.citations,
  full_text: r.full_text,
  grounded: r.grounded ?? 0,
  raw: JSON.stringify(r),
});

/** The rows of one top_n_for_domains page: its items ranked, and the page's own row. */
export function topNRows(base: WindowCols, metric: string, page: number, limit: number, r: TopNForDomainsResponse) {
  const { data, ...meta } = r;
  const rows = data.map((d, i) => ({ ...base, metric, ...topNCols(d), page, rank: (page - 1) * limit + i + 1 }));
  const sum = data.reduce((s, d) => s + d.hit_count, 0);
  const pageRow = { ...base, metric, page, n: data.length, sum_hit_count: sum, ...pageCols(meta) };
  return { rows, pageRow, sum };
}
/** The rows of a window's hit_share: one per domain. */
export const hitShareRows = (base: WindowCols, r: HitShareResponse) => r.data.map((d) => ({ ...base, ...hitShareCols(d), total_share: r.total_share }));
/** The row of a window's metrics. */
export const metricsRow = (base: WindowCols, r: DomainMetricsResponse) => ({ ...base, ...metricsCols(r) });
