/**
 * Tables landed by storyTracker. Stories and their updates merge on their UUIDs (a story seen
 * again is updated, never duplicated); the articles of an update are replaced per update; the
 * metrics history keeps one row per story, tracker and run, so a story's coverage and sentiment
 * over time is one query.
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });
const tail = [c('row_hash', 'VARCHAR', 'varchar'), c('last_load_id', 'VARCHAR', 'varchar')];

export const STORIES: TableDef = {
  name: 'stories',
  description: 'one row per story seen by the story tracker (merge on story_uuid)',
  mergeKey: ['story_uuid'],
  monthColumn: 'updated_ts',
  columns: [
    c('story_uuid', 'UUID', 'varchar'),
    c('topic', 'VARCHAR', 'varchar'),
    c('categories', 'VARCHAR[]', 'varchar[]'),
    c('keywords', 'VARCHAR[]', 'varchar[]'),
    c('n_updates', 'INTEGER', 'int'),
    c('n_articles', 'INTEGER', 'int'),
    c('updated_ts', 'TIMESTAMP', 'bigint'),
    c('current_update_uuid', 'VARCHAR', 'varchar'),
    c('sentiment', 'DOUBLE', 'double'),
    c('countries', 'JSON', 'varchar'),
    c('languages', 'JSON', 'varchar'),
    c('sources', 'JSON', 'varchar'),
    c('raw', 'JSON', 'varchar'),
    ...tail,
  ],
};

export const STORY_UPDATES: TableDef = {
  name: 'story_updates',
  description: 'one row per story update (merge on update_uuid)',
  mergeKey: ['update_uuid'],
  monthColumn: 'story_update_ts',
  columns: [
    c('update_uuid', 'UUID', 'varchar'),
    c('story_uuid', 'UUID', 'varchar'),
    c('story_update_ts', 'TIMESTAMP', 'bigint'),
    c('headline', 'VARCHAR', 'varchar'),
    c('story', 'VARCHAR', 'varchar'),
    c('url_safe_title', 'VARCHAR', 'varchar'),
    c('n_articles', 'INTEGER', 'int'),
    c('continent', 'VARCHAR', 'varchar'),
    c('categories', 'VARCHAR[]', 'varchar[]'),
    c('key_takeaways', 'JSON', 'varchar'),
    ...tail,
  ],
};

export const UPDATE_ARTICLES: TableDef = {
  name: 'update_articles',
  description: 'the articles of each story update (replaced per update)',
  mergeKey: ['update_uuid', 'article_id'],
  replaceBy: ['update_uuid'],
  monthColumn: 'pub_date',
  columns: [
    c('update_uuid', 'UUID', 'varchar'),
    c('article_id', 'UUID', 'varchar'),
    c('story_uuid', 'UUID', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('article_url', 'VARCHAR', 'varchar'),
    c('domain_url', 'VARCHAR', 'varchar'),
    c('pub_date', 'TIMESTAMP', 'bigint'),
  ],
};

export const STORY_METRICS: TableDef = {
  name: 'story_metrics',
  description: "a story's metrics as each tracker run saw them (merge on story, tracker and run time)",
  mergeKey: ['story_uuid', 'tracker', 'run_at'],
  monthColumn: 'run_at',
  columns: [
    c('story_uuid', 'UUID', 'varchar'),
    c('tracker', 'VARCHAR', 'varchar'),
    c('run_at', 'TIMESTAMP', 'bigint'),
    c('rank', 'INTEGER', 'int'),
    c('coverage', 'INTEGER', 'int'),
    c('n_updates', 'INTEGER', 'int'),
    c('n_sources', 'INTEGER', 'int'),
    c('sentiment', 'DOUBLE', 'double'),
    c('rolling_sentiment', 'DOUBLE', 'double'),
    c('updated_ts', 'TIMESTAMP', 'bigint'),
    ...tail,
  ],
};

export const STORY_TABLES = [STORIES, STORY_UPDATES, UPDATE_ARTICLES, STORY_METRICS];
