/**
 * Tables landed by storyTracker. Stories and their updates merge on their UUIDs (a story seen
 * again is updated, never duplicated); the articles of an update are replaced per update; the
 * metrics history keeps one row per story, tracker and run, so a story's coverage and sentiment
 * over time is one query.
 */
import type { StoryResponse } from '../../spec/index.js';
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });
const tail = [c('row_hash', 'VARCHAR', 'varchar'), c('last_load_id', 'VARCHAR', 'varchar')];

export const STORIES: TableDef = {
  name: 'stories',
  description: 'one row per story seen by the story tracker (merge on story_uuid)',
  mergeKey: ['story_uuid'],
  monthColumn: 'updated_ts',
  fromRaw: (raw) => ({ row: storyCols(raw as StoryResponse, raw) }),
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

const us = (sec: number | null | undefined) => (sec == null ? null : sec * 1_000_000);
const usIso = (iso: string | null | undefined) => (iso ? Date.parse(iso) * 1000 : null);
const last = <T>(xs: T[]): T | null => (xs.length ? xs[xs.length - 1]! : null);

/** A story's row from the story without its updates (what `raw` keeps). */
function storyCols(s: StoryResponse, raw: unknown) {
  return {
    story_uuid: s.uuid,
    topic: s.topic,
    categories: s.categories,
    keywords: s.keywords,
    n_updates: s.n_updates,
    n_articles: s.n_articles.reduce((a, b) => a + b, 0),
    updated_ts: us(s.updated_ts),
    current_update_uuid: s.current_update_uuid,
    sentiment: last(s.sentiment),
    countries: JSON.stringify(s.countries),
    languages: JSON.stringify(s.languages),
    sources: JSON.stringify(s.sources),
    raw: JSON.stringify(raw),
  };
}

export function storyRows(stories: StoryResponse[], tracker: string, runAt: string) {
  const story = stories.map((s) => {
    const { updates: _u, ...rest } = s;
    return storyCols(s, rest);
  });
  const updates = stories.flatMap((s) =>
    s.updates.map((u) => ({
      update_uuid: u.uuid,
      story_uuid: s.uuid,
      story_update_ts: us(u.story_update_ts),
      headline: u.headline,
      story: u.story,
      url_safe_title: u.url_safe_title,
      n_articles: u.n_articles,
      continent: u.continent,
      categories: u.categories,
      key_takeaways: JSON.stringify(u.key_takeaways),
    })),
  );
  const articles = stories.flatMap((s) =>
    s.updates.flatMap((u) =>
      u.cluster_articles.map((a) => ({
        update_uuid: u.uuid,
        article_id: a.article_id,
        story_uuid: s.uuid,
        title: a.title,
        article_url: a.article_url,
        domain_url: a.domain_url,
        pub_date: usIso(a.pub_date),
      })),
    ),
  );
  const metrics = stories.map((s, i) => ({
    story_uuid: s.uuid,
    tracker,
    run_at: usIso(runAt),
    rank: i + 1,
    coverage: s.n_articles.reduce((a, b) => a + b, 0),
    n_updates: s.n_updates,
    n_sources: Object.keys(s.sources).length,
    sentiment: last(s.sentiment),
    rolling_sentiment: last(s.rolling_sentiment),
    updated_ts: us(s.updated_ts),
  }));
  return { story, updates, articles, metrics };
}

export const STORY_TABLES = [STORIES, STORY_UPDATES, UPDATE_ARTICLES, STORY_METRICS];
