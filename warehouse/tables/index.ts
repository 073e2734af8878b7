/**
 * Landed tables, one definition each, with the merge key a batch is upserted on. A child table
 * is replaced per parent key (its rows for the parents in the batch are deleted, then inserted),
 * so a replayed batch leaves it as it was.
 */
import type { TableDef } from './table-def.js';
import { NEWS_TABLES } from './articles.js';

export type { Column, TableDef } from './table-def.js';
export { ARTICLES, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, ARTICLE_CLASSIFICATIONS, NEWS_TABLES, articleRows, articleBatch } from './articles.js';

import { DISTRIBUTION_TABLES } from './distribution.js';
import { ALERT_TABLES } from './alerts.js';
import { INDEX_COUNT_TABLES } from './index-counts.js';
import { STORY_TABLES } from './stories.js';
import { GRAPH_TABLES } from './graph.js';
import { RESEARCH_TABLES } from './research.js';
import { PIPELINE_TABLES } from './pipelines.js';
import { FEED_TABLES } from './feeds.js';
import { NOTICE_TABLES } from './notices.js';

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
  ...NOTICE_TABLES,
];
export const TABLES_BY_NAME = Object.fromEntries(TABLES.map((t) => [t.name, t]));
