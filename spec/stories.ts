/** Stories (the interface facts, ../shared/spec/asknews-facts.md §8). */
import { z } from 'zod';
import {
  CitationMethod,
  Continent,
  ProvocativeFilter,
  SearchMethod,
  SortType,
  StoriesSortBy,
  StoriesStrategy,
  StoryCategory,
  StoryObjType,
  Provocative,
} from './enums.js';
import { DateTime, FreeObject, oneOrMany, record, UnixSeconds, Uuid } from './common.js';
import { Article, Entities, GraphEdge } from './article.js';

/**
 * Bounds of a newsflow server (the hosted API states none): the updates and articles a stories
 * answer expands grow with the corpus (limit=100 with no bound answered 4 MB); beyond a bound a 422.
 */
export const STORIES_LIMITS = {
  /** GET /v1/stories: updates per story, articles per update */
  listUpdates: 100,
  listArticles: 25,
  /** GET /v1/stories/{story_id}: updates, articles per update */
  storyUpdates: 1000,
  storyArticles: 1000,
} as const;

export const StoriesQuery = z.object({
  query: z.string().nullable().optional(),
  categories: z.array(StoryCategory).default([]),
  uuids: z.array(Uuid).default([]),
  start_timestamp: UnixSeconds.nullable().optional(),
  end_timestamp: UnixSeconds.nullable().optional(),
  sort_by: StoriesSortBy.nullable().optional(),
  sort_type: SortType.nullable().optional(),
  continent: oneOrMany(Continent).nullable().optional(),
  offset: z.union([z.int().min(0), z.string()]).default(0),
  limit: z.int().min(1).max(100).default(10),
  expand_updates: z.boolean().default(false),
  max_updates: z.int().min(0).max(STORIES_LIMITS.listUpdates).default(2).describe(`at most ${STORIES_LIMITS.listUpdates} (a newsflow bound)`),
  max_articles: z.int().min(0).max(STORIES_LIMITS.listArticles).default(5).describe(`per update, at most ${STORIES_LIMITS.listArticles} (a newsflow bound)`),
  method: SearchMethod.default('kw'),
  obj_type: z.array(StoryObjType).default(['story']),
  reddit: z.int().min(0).default(0),
  citation_method: CitationMethod.default('brackets'),
  similarity_score_threshold: z.number().default(0.75),
  provocative: ProvocativeFilter.default('all'),
  strategy: StoriesStrategy.default('default'),
});
export const StoryPath = z.object({ story_id: z.string().min(1) });
export const StoryQuery = z.object({
  expand_updates: z.boolean().default(true),
  max_updates: z.int().min(0).max(STORIES_LIMITS.storyUpdates).default(10).describe(`at most ${STORIES_LIMITS.storyUpdates} (a newsflow bound)`),
  max_articles: z.int().min(0).max(STORIES_LIMITS.storyArticles).default(25).describe(`per update, at most ${STORIES_LIMITS.storyArticles} (a newsflow bound)`),
  reddit: z.int().min(0).default(0),
  citation_method: CitationMethod.default('brackets'),
  condense_auxillary_updates: z.boolean().default(true),
});

export const RedditComment = z.object({ author: z.string(), body: z.string(), date: DateTime, upvotes: z.int() });
const redditEntityKeys = ['DATE', 'EVENT', 'GPE', 'ORG', 'PERSON', 'NORP', 'CARDINAL'] as const;
export const RedditThread = record({
  author: z.string(),
  author_comment_karma: z.int(),
  author_link_karma: z.int(),
  body: z.string(),
  classification: z.union([z.string(), z.array(z.string())]),
  comments: z.array(RedditComment),
  comments_count: z.int(),
  date: DateTime,
  entities: z.object(Object.fromEntries(redditEntityKeys.map((k) => [k, z.array(z.string()).default([])]))),
  id: Uuid,
  key_takeaways: z.array(z.string()).default([]),
  keywords: z.array(z.string()),
  sentiment: z.number(),
  subreddit_name: z.string(),
  subreddit_url: z.string(),
  summary: z.string(),
  title: z.string(),
  topic: z.string(),
  url: z.string(),
  upvotes: z.int(),
  main_speculation: z.string().default(''),
  /**
   * newsflow addition: the fields whose values the source did not carry and newsflow derived
   * (e.g. `author`, `date`, `upvotes`, `comments.upvotes`); absent or [] when all were read.
   */
  derived_fields: z.array(z.string()).optional(),
}).meta({ id: 'RedditThread' });
export type RedditThread = z.output<typeof RedditThread>;

const counts = z.record(z.string(), z.int());
const pcts = z.record(z.string(), z.number());
/**
 * A story update's entity graph (../shared/spec/asknews-facts.md §8.5): nodes are exactly `{id, type, detailed_type}`;
 * `ner_type` belongs to the article graph only (spec/article.ts `GraphRelationships`), and a
 * strict client rejects a story node that carries it.
 */
export const StoryRelationships = z
  .object({
    nodes: z.array(z.record(z.enum(['id', 'type', 'detailed_type']), z.string())).default([]),
    edges: z.array(GraphEdge).default([]),
  })
  .meta({ id: 'StoryRelationships' });
export type StoryRelationships = z.infer<typeof StoryRelationships>;

export const StoryUpdate = record({
  uuid: Uuid,
  cluster_articles: z.array(Article),
  prompt_articles: z.array(Article),
  n_articles: z.int(),
  entities: Entities,
  headline: z.string(),
  story: z.string(),
  story_update_ts: z.int(),
  sources_urls: counts,
  languages_pct: pcts,
  countries_pct: pcts,
  key_takeaways: z.array(z.string()),
  contradictions: z.array(z.string()),
  continent: z.string(),
  people: z.array(z.string()),
  locations: z.array(z.string()),
  new_information: z.string(),
  image_url: z.string().min(1).max(2083),
  url_safe_title: z.string(),
  story_uuid: Uuid,
  categories: z.array(z.string()),
  image_prompt: z.string(),
  reddit_perspective: z.object({ sentiment: z.number(), relevant: z.boolean(), summary: z.string() }),
  reddit_threads: z.array(RedditThread),
  languages: counts,
  keywords: z.array(z.string()),
  intra_cluster_statistics: z.object({
    cluster_articles_pct: z.number().default(0),
    cluster_countries_pct: z.number().default(0),
    cluster_domains_pct: z.number().default(0),
    cluster_languages_pct: z.number().default(0),
    cluster_probabilities: z.record(z.string(), z.number()).default({}),
  }),
  silhouette_score: FreeObject,
  article_ids: z.array(Uuid),
  countries: counts,
  markdown_citations: z.array(z.string()),
  confidence: z.number().default(0),
  provocative: Provocative.default('unknown'),
  reporting_voice: z.string().default('Reporting voice unknown.'),
  relationships: StoryRelationships,
  mermaid: z.string(),
  cc_image_url: z.string(),
  display_image_urls: z.array(z.union([z.object({ source_id: z.string(), image_url: z.string() }), z.string()])),
  alignment: z.int().default(0),
}).meta({ id: 'StoryUpdate' });

export const StoryResponse = record({
  uuid: Uuid,
  categories: z.array(z.string()),
  countries: counts,
  countries_pct: pcts,
  current_update_uuid: z.string(),
  requested_update_uuid: z.string(),
  generate_image: z.boolean(),
  keywords: z.array(z.string()),
  languages: counts,
  languages_pct: pcts,
  locations: z.array(z.string()),
  meta_type: z.string(),
  n_articles: z.array(z.int()),
  n_updates: z.int(),
  people: z.array(z.string()),
  reddit_sentiment: z.array(z.number()),
  reddit_sentiment_timestamps: z.array(z.int()),
  rolling_sentiment: z.array(z.number()),
  sentiment: z.array(z.int()),
  sentiment_timestamps: z.array(z.int()),
  sources: counts,
  sources_urls: counts,
  topic: z.string(),
  topics: z.array(z.string()),
  updates: z.array(StoryUpdate),
  updated_ts: z.int(),
  update_uuids: z.array(Uuid),
}).meta({ id: 'StoryResponse' });
export type StoryResponse = z.infer<typeof StoryResponse>;
export const StoriesResponse = record({ stories: z.array(StoryResponse), offset: z.union([z.int(), z.string()]) }).meta({
  id: 'StoriesResponse',
});
export type StoriesResponse = z.infer<typeof StoriesResponse>;
