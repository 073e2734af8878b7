/** The Article resource (interface "Resources and their fields"; ../shared/spec/asknews-facts.md §4). */
import { z } from 'zod';
import { Bias, Continent, ContentType, ENTITY_TYPES, Provocative, ReportingVoice } from './enums.js';
import { DateTime, Url, Uuid, record } from './common.js';

const entityShape = Object.fromEntries(ENTITY_TYPES.map((t) => [t, z.array(z.string()).default([])])) as Record<
  (typeof ENTITY_TYPES)[number],
  z.ZodDefault<z.ZodArray<z.ZodString>>
>;
export const Entities = z.object(entityShape).meta({ id: 'Entities' });
export type Entities = z.infer<typeof Entities>;

/** A graph edge, in both the article graph and a story update's graph. */
export const GraphEdge = z.record(z.enum(['from', 'to', 'label']), z.string());

/**
 * The article's entity relation graph (`entity_relation_graph`): its nodes carry `ner_type`.
 * A story update's graph is another schema (spec/stories.ts `StoryRelationships`):
 * its nodes have no `ner_type`.
 */
export const GraphRelationships = z
  .object({
    nodes: z.array(z.record(z.enum(['id', 'type', 'detailed_type', 'ner_type']), z.string())).default([]),
    edges: z.array(GraphEdge).default([]),
  })
  .meta({ id: 'GraphRelationships' });
export type GraphRelationships = z.infer<typeof GraphRelationships>;

export const GeoCoordinate = z
  .object({ latitude: z.number(), longitude: z.number(), metadata: z.record(z.string(), z.unknown()) })
  .meta({ id: 'GeoCoordinate' });

export const Author = z.object({
  name: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
});

export const Assets = z.object({
  images: z.array(z.string()).nullable().optional(),
  videos: z.array(z.string()).nullable().optional(),
});

/** The 34 Article fields of the interface table; `as_string_key` makes the 35th on SearchResponseDictItem. */
export const articleShape = {
  article_url: Url,
  article_id: Uuid,
  classification: z.union([z.array(z.string()), z.string()]),
  country: z.string(),
  source_id: z.string(),
  page_rank: z.int(),
  domain_url: z.string(),
  eng_title: z.string(),
  entities: Entities,
  image_url: z.string().nullable().optional(),
  keywords: z.array(z.string()),
  language: z.string(),
  pub_date: DateTime,
  summary: z.string(),
  key_points: z.array(z.string()).nullable().optional(),
  title: z.string(),
  sentiment: z.int(),
  centroid_distance: z.number(),
  cluster_probability: z.number(),
  markdown_citation: z.string().default(''),
  provocative: Provocative.default('unknown'),
  // The hosted API may send values outside the list (../shared/spec/asknews-facts.md §4: "or any string").
  reporting_voice: z.union([ReportingVoice, z.string()]).default('Unknown'),
  entity_relation_graph: GraphRelationships.nullable().optional(),
  geo_coordinates: z.record(z.string(), GeoCoordinate).nullable().optional(),
  continent: Continent.nullable().optional(),
  assets: Assets.nullable().optional(),
  social_embeds: z.array(z.string()).nullable().optional(),
  bias: Bias.nullable().optional(),
  authors: z.array(Author).nullable().optional(),
  full_text: z.string().nullable().optional(),
  original_language_summary: z.string().nullable().optional(),
  image_description: z.string().nullable().optional(),
  crawl_date: DateTime.nullable().optional(),
  content_type: ContentType.nullable().optional(),
};
export const Article = record(articleShape).meta({ id: 'Article' });
export type Article = z.infer<typeof Article>;

export const SearchResponseDictItem = record({ ...articleShape, as_string_key: z.string() }).meta({
  id: 'SearchResponseDictItem',
});
export type SearchResponseDictItem = z.infer<typeof SearchResponseDictItem>;
export const ARTICLE_FIELDS = Object.keys(SearchResponseDictItem.shape);

export const WebSearchResult = record({
  title: z.string(),
  url: Url,
  source: z.string(),
  published: z.string(),
  key_points: z.array(z.string()),
  raw_text: z.string().default(''),
  as_string_key: z.string().nullable().optional(),
}).meta({ id: 'WebSearchResult' });
export type WebSearchResult = z.infer<typeof WebSearchResult>;
