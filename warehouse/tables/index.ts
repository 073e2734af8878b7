/**
 * Landed tables, one definition each, with the merge key a batch is upserted on. A child table
 * is replaced per parent key (its rows for the parents in the batch are deleted, then inserted),
 * so a replayed batch leaves it as it was.
 */
import type { ColKind } from '../../lib/duckdb/stage.js';
import type { Column, TableDef } from './table-def.js';

export type { Column, TableDef } from './table-def.js';

const c = (name: string, sql: string, kind: ColKind): Column => ({ name, sql, kind });

export const ARTICLES: TableDef = {
  name: 'articles',
  description: 'one row per article seen by news ingest (merge on article_id)',
  mergeKey: ['article_id'],
  monthColumn: 'pub_date',
  columns: [
    c('article_id', 'UUID', 'varchar'),
    c('article_url', 'VARCHAR', 'varchar'),
    c('domain_url', 'VARCHAR', 'varchar'),
    c('source_id', 'VARCHAR', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('summary', 'VARCHAR', 'varchar'),
    c('language', 'VARCHAR', 'varchar'),
    c('pub_date', 'TIMESTAMP', 'bigint'),
    c('crawl_date', 'TIMESTAMP', 'bigint'),
    c('country', 'VARCHAR', 'varchar'),
    c('continent', 'VARCHAR', 'varchar'),
    c('sentiment', 'INTEGER', 'int'),
    c('provocative', 'VARCHAR', 'varchar'),
    c('reporting_voice', 'VARCHAR', 'varchar'),
    c('content_type', 'VARCHAR', 'varchar'),
    c('bias', 'VARCHAR', 'varchar'),
    c('page_rank', 'INTEGER', 'int'),
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

import { DISTRIBUTION_TABLES } from './distribution.js';
import { ALERT_TABLES } from './alerts.js';
import { INDEX_COUNT_TABLES } from './index-counts.js';
import { STORY_TABLES } from './stories.js';
import { GRAPH_TABLES } from './graph.js';
import { RESEARCH_TABLES } from './research.js';
import { PIPELINE_TABLES } from './pipelines.js';
import { FEED_TABLES } from './feeds.js';

export const NEWS_TABLES: TableDef[] = [ARTICLES, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, ARTICLE_CLASSIFICATIONS];
export const TABLES: TableDef[] = [
  ...NEWS_TABLES,
  ...DISTRIBUTION_TABLES,
  ...ALERT_TABLES,
  ...INDEX_COUNT_TABLES,
  ...STORY_TABLES,
  ...GRAPH_TABLES,
  ...RESEARCH_TABLES,
  ...PIPELINE_TABLES,
  ...FEED_TABLES,
];
export const TABLES_BY_NAME = Object.fromEntries(TABLES.map((t) => [t.name, t]));
