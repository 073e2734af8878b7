/** Activities of the story tracker: fetch the stories of one tracker through the client, land them. */
import { Context } from '@temporalio/activity';
import type { NewsClient } from '../client/index.js';
import type { StoryResponse } from '../spec/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { failingFast } from './api-failure.js';
import { STORIES, STORY_METRICS, STORY_UPDATES, UPDATE_ARTICLES, storyRows } from '../warehouse/tables/stories.js';

export { storyRows } from '../warehouse/tables/stories.js';

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
