/** Article lookup, graph, URL indexing and index counts (facts §5, §6, §7, §12.1). */
import { z } from 'zod';
import {
  Continent, IndexCountCategory, Language, ProvocativeFilter, ReportingVoiceFilter, Sampling,
  SentimentFilter, StringOp, TimeFilter,
} from './enums.js';
import { DateTime, FreeObject, oneOrMany, record, Uuid } from './common.js';
import { SearchResponseDictItem } from './article.js';
import { FilterParams } from './search.js';

export const ARTICLE_LOOKUP_MAX = 100;
export const ArticlesQuery = z.object({
  article_ids: z.array(Uuid).min(1).max(ARTICLE_LOOKUP_MAX),
  full_text: z.boolean().default(false),
});
export const ArticlePath = z.object({ article_id: z.string().min(1) });
export const ArticleQuery = z.object({ full_text: z.boolean().default(false) });
export const ArticlesResponse = z.array(SearchResponseDictItem);

export const GraphRequest = z
  .looseObject({
    query: z.string().default(''),
    return_articles: z.boolean().default(false),
    min_cluster_probability: z.number().default(0.9),
    geo_disambiguation: z.boolean().default(false),
    filter_params: FilterParams.nullable().optional(),
    constrained_disambiguations: z.array(FreeObject).nullable().optional(),
    docs_upload: z.array(FreeObject).nullable().optional(),
    visualize_with: z.string().nullable().optional(),
  })
  .meta({ id: 'GraphRequest' });
export const GraphResponse = record({
  full_graph: FreeObject,
  disambiguations: z.array(FreeObject),
  articles: z.array(SearchResponseDictItem).nullable().optional(),
  query: z.string().nullable().optional(),
  docs_enhanced: z.array(FreeObject).nullable().optional(),
  triples_url: z.string().nullable().optional(),
  visualize_url: z.string().nullable().optional(),
}).meta({ id: 'GraphResponse' });

export const ScrapeItem = z.object({ user_agent: z.string(), count: z.int() });
export const ReferralItem = z.object({ site: z.string(), count: z.int() });
export const ScrapedURLItem = z.object({
  url: z.string().min(1),
  data: z.object({ scrapes: z.array(ScrapeItem), referrals: z.array(ReferralItem) }).nullable().optional(),
  skip_dedupe: z.boolean().default(false),
  metadata: FreeObject.nullable().optional(),
  enrichments: FreeObject.nullable().optional(),
});
export const IndexUrlsRequest = z
  .object({ start_time: DateTime, end_time: DateTime, urls: z.array(ScrapedURLItem).min(1) })
  .meta({ id: 'URLIndexingRequest' });
export const IndexUrlsResponse = record({ status: z.string(), job_id: z.string().nullable().optional() }).meta({
  id: 'IndexUrlsResponse',
});

export const IndexCountsQuery = z.object({
  start_datetime: DateTime.nullable().optional(),
  end_datetime: DateTime.nullable().optional(),
  domains: z.array(z.string()).nullable().optional(),
  sampling: Sampling.default('1d'),
  time_filter: TimeFilter.default('pub_date'),
  categories: z.array(IndexCountCategory).optional(),
  provocative: ProvocativeFilter.nullable().optional(),
  reporting_voice: z.array(ReportingVoiceFilter).nullable().optional(),
  bad_domain_url: oneOrMany(z.string()).nullable().optional(),
  page_rank: z.int().nullable().optional(),
  string_guarantee: z.array(z.string()).nullable().optional(),
  string_guarantee_op: StringOp.default('AND'),
  reverse_string_guarantee: z.array(z.string()).nullable().optional(),
  entity_guarantee: z.array(z.string().regex(/^[^:]+:.+$/)).nullable().optional(),
  entity_guarantee_op: StringOp.default('OR'),
  languages: z.array(Language).nullable().optional(),
  countries: z.array(z.string()).nullable().optional(),
  countries_blacklist: z.array(z.string()).nullable().optional(),
  continents: z.array(Continent).nullable().optional(),
  sentiment: SentimentFilter.nullable().optional(),
});
export const IndexCountItem = record({ start: DateTime, end: DateTime, count: z.int() }).meta({ id: 'IndexCountItem' });
export const IndexCountsResponse = z.array(IndexCountItem);
