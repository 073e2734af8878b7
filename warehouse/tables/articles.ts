/**
 * The tables news ingest lands, and their row mapper: an article's columns are written once, here,
 * as spec/ field names (`ARTICLE_COLUMNS`), each with its warehouse type; the mapper reads each
 * column from the field of the same name (timestamps to micros), the children from `entities`,
 * `keywords` and `classification`, and keeps the whole dict in `raw` (what `newsflow reprocess`
 * rebuilds the rows from).
 */
import { ENTITY_TYPES, SearchResponseDictItem } from '../../spec/index.js';
import type { ColKind } from '../../lib/duckdb/stage.js';
import type { Column, TableDef } from './table-def.js';

const c = (name: string, sql: string, kind: ColKind): Column => ({ name, sql, kind });

/** The article fields that are columns, by their spec/ name (SearchResponseDictItem), with the column's type. */
export const ARTICLE_COLUMNS: [field: keyof SearchResponseDictItem & string, sql: string, kind: ColKind][] = [
  ['article_id', 'UUID', 'varchar'],
  ['article_url', 'VARCHAR', 'varchar'],
  ['domain_url', 'VARCHAR', 'varchar'],
  ['source_id', 'VARCHAR', 'varchar'],
  ['title', 'VARCHAR', 'varchar'],
  ['summary', 'VARCHAR', 'varchar'],
  ['language', 'VARCHAR', 'varchar'],
  ['pub_date', 'TIMESTAMP', 'bigint'],
  ['crawl_date', 'TIMESTAMP', 'bigint'],
  ['country', 'VARCHAR', 'varchar'],
  ['continent', 'VARCHAR', 'varchar'],
  ['sentiment', 'INTEGER', 'int'],
  ['provocative', 'VARCHAR', 'varchar'],
  ['reporting_voice', 'VARCHAR', 'varchar'],
  ['content_type', 'VARCHAR', 'varchar'],
  ['bias', 'VARCHAR', 'varchar'],
  ['page_rank', 'INTEGER', 'int'],
];

export const ARTICLES: TableDef = {
  name: 'articles',
  description: 'one row per article seen by news ingest (merge on article_id)',
  mergeKey: ['article_id'],
  monthColumn: 'pub_date',
  rawSchema: SearchResponseDictItem,
  fromRaw: (raw) => {
    const { rows, children } = articleBatch([raw as SearchResponseDictItem]);
    return { row: rows[0]!, children };
  },
  columns: [
    ...ARTICLE_COLUMNS.map(([f, sql, kind]) => c(f, sql, kind)),
    c('raw', 'JSON', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
    c('last_load_id', 'VARCHAR', 'varchar'),
  ],
};
export const ARTICLE_ENTITIES: TableDef = {
  name: 'article_entities',
  description: 'entities of each article by type (replaced per article)',
  mergeKey: ['article_id', 'type', 'value'],
  replaceBy: ['article_id'],
  columns: [c('article_id', 'UUID', 'varchar'), c('type', 'VARCHAR', 'varchar'), c('value', 'VARCHAR', 'varchar')],
};
export const ARTICLE_KEYWORDS: TableDef = {
  name: 'article_keywords',
  description: 'keywords of each article (replaced per article)',
  mergeKey: ['article_id', 'keyword'],
  replaceBy: ['article_id'],
  columns: [c('article_id', 'UUID', 'varchar'), c('keyword', 'VARCHAR', 'varchar')],
};
export const ARTICLE_CLASSIFICATIONS: TableDef = {
  name: 'article_classifications',
  description: 'topic categories of each article (replaced per article)',
  mergeKey: ['article_id', 'category'],
  replaceBy: ['article_id'],
  columns: [c('article_id', 'UUID', 'varchar'), c('category', 'VARCHAR', 'varchar')],
};
export const NEWS_TABLES: TableDef[] = [ARTICLES, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, ARTICLE_CLASSIFICATIONS];

/** ISO time -> epoch micros (a TIMESTAMP column's staged value) */
const micros = (iso: unknown) => (typeof iso === 'string' && iso ? Date.parse(iso) * 1000 : null);

export interface ArticleRows {
  rows: Record<string, unknown>[];
  entities: Record<string, unknown>[];
  keywords: Record<string, unknown>[];
  classes: Record<string, unknown>[];
}

/** The rows of a page of articles (pure: the same dicts give the same rows, whether from the API or from `raw`). */
export function articleRows(items: SearchResponseDictItem[]): ArticleRows {
  const rows = items.map((a) => {
    const row: Record<string, unknown> = {};
    for (const [f, sql] of ARTICLE_COLUMNS) row[f] = sql === 'TIMESTAMP' ? micros(a[f]) : (a[f] ?? null);
    row.raw = JSON.stringify(a);
    return row;
  });
  const entities = items.flatMap((a) => ENTITY_TYPES.flatMap((t) => (a.entities?.[t] ?? []).map((value) => ({ article_id: a.article_id, type: t, value }))));
  const keywords = items.flatMap((a) => (a.keywords ?? []).map((keyword) => ({ article_id: a.article_id, keyword })));
  const classes = items.flatMap((a) =>
    (Array.isArray(a.classification) ? a.classification : [a.classification]).map((category) => ({ article_id: a.article_id, category })),
  );
  return { rows, entities, keywords, classes };
}

/** A page of articles as `land` takes it: the parent rows and the three child tables. */
export function articleBatch(items: SearchResponseDictItem[]) {
  const { rows, entities, keywords, classes } = articleRows(items);
  return {
    rows,
    children: [
      { table: ARTICLE_ENTITIES, rows: entities },
      { table: ARTICLE_KEYWORDS, rows: keywords },
      { table: ARTICLE_CLASSIFICATIONS, rows: classes },
    ],
  };
}
