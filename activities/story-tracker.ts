/** Activities of the story tracker: fetch the stories of one tracker through the client, land them. */
import { Context } from '@temporalio/activity';
import type { NewsClient } from '../client/index.js';
import type { StoryResponse } from '../spec/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { failingFast } from './api-failure.js';
import { STORIES, STORY_METRICS, STORY_UPDATES, UPDATE_ARTICLES } from '../warehouse/tables/stories.js';

/** A declared story query: any GET /v1/stories filter, a name, and how much to fetch. */
export interface Tracker {
  name: string;
  query?: string;
  method?: 'nl' | 'kw' | 'both';
  strategy?: 'default' | 'topstories' | 'topstories_categories' | 'topstories_continents';
  categories?: string[];
  continent?: string | string[];
  sort_by?: 'published' | 'coverage' | 'sentiment' | 'relevance' | 'confidence';
  /** stories per run (paged by `limit` 25) */
  stories?: number;
  maxUpdates?: number;
  maxArticles?: number;
}

export interface TrackInput {
  tracker: Tracker;
  /** ISO time the run stands for (the scheduled time) */
  runAt: string;
  loadId: string;
}
export interface TrackResult {
  stories: number;
  updates: number;
  articles: number;
  inserted: number;
  updated: number;
}

const us = (sec: number | null | undefined) => (sec == null ? null : sec * 1_000_000);
const usIso = (iso: string | null | undefined) => (iso ? Date.parse(iso) * 1000 : null);
const last = <T>(xs: T[]): T | null => (xs.length ? xs[xs.length - 1]! : null);

export function storyRows(stories: StoryResponse[], tracker: string, runAt: string) {
  const story = stories.map((s) => {
    const { updates: _u, ...rest } = s;
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
      raw: JSON.stringify(rest),
    };
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

export function createStoryTrackerActivities(deps: { client: NewsClient; warehouse: Warehouse }) {
  return failingFast({
    async trackStories(input: TrackInput): Promise<TrackResult> {
      const t = input.tracker;
      const want = t.stories ?? 20;
      const size = Math.min(25, want);
      const seen = new Map<string, StoryResponse>();
      for await (const page of deps.client.storiesPages(
        {
          query: t.query,
          method: t.method,
          strategy: t.strategy,
          categories: t.categories as never,
          continent: t.continent as never,
          sort_by: t.sort_by,
          limit: size,
          expand_updates: true,
          max_updates: t.maxUpdates ?? 5,
          max_articles: t.maxArticles ?? 10,
        },
        { maxPages: Math.ceil(want / size) },
      )) {
        Context.current().heartbeat({ stories: seen.size });
        for (const s of page.stories) if (!seen.has(s.uuid) && seen.size < want) seen.set(s.uuid, s);
        if (seen.size >= want) break;
      }
      const stories = [...seen.values()];
      const { story, updates, articles, metrics } = storyRows(stories, t.name, input.runAt);
      const s = await deps.warehouse.land(STORIES, story, [], input.loadId);
      await deps.warehouse.land(STORY_UPDATES, updates, [{ table: UPDATE_ARTICLES, rows: articles }], input.loadId);
      await deps.warehouse.land(STORY_METRICS, metrics, [], input.loadId);
      return { stories: stories.length, updates: updates.length, articles: articles.length, inserted: s.inserted, updated: s.updated };
    },
  });
}
export type StoryTrackerActivities = ReturnType<typeof createStoryTrackerActivities>;
