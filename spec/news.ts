/** Article lookup, graph, URL indexing and index counts (../shared/spec/asknews-facts.md §5, §6, §7, §12.1). */
import { z } from 'zod';
import { Continent, IndexCountCategory, Language, ProvocativeFilter, ReportingVoiceFilter, Sampling, SentimentFilter, StringOp, TimeFilter } from './enums.js';
import { DateTime, DateTimeInput, FreeObject, FreeObjectInput, oneOrMany, record, Uuid } from './common.js';
import { SearchResponseDictItem } from './article.js';
import { EntityGuaranteeItem, FilterParams } from './search.js';
import { PAGE_URL } from './patterns.js';
import { notBefore, X_RULES } from './rules.js';

export const ARTICLE_LOOKUP_MAX = 100;
export const ArticlesQuery = z.object({
  article_ids: z.array(Uuid).min(1).max(ARTICLE_LOOKUP_MAX),
  full_text: z.boolean().default(false),
});
export const ArticlePath = z.object({ article_id: Uuid });
export const ArticleQuery = z.object({ full_text: z.boolean().default(false) });
export const ArticlesResponse = z.array(SearchResponseDictItem);

/**
 * POST /v1/news/graph (../shared/spec/asknews-facts.md §5). That sheet gives the field names, types and defaults; the inner
 * shapes of `constrained_disambiguations`, `docs_upload`, `full_graph` and `disambiguations` are
 * not shown, so they are this implementation's (docs/service.md, "Knowledge graph"). Unknown fields are a 422 naming
 * them (a misspelt option would otherwise be ignored silently).
 */
export const GRAPH_LIMITS = {
  /** articles a graph is built from when filter_params.n_articles is not given */
  defaultArticles: 50,
  maxConstraints: 1000,
  maxDocs: 100,
  /** characters of one uploaded document's text (a longer one is a 422): its entities are paired sentence by sentence */
  maxDocChars: 100_000,
  /** characters of an uploaded document's title, id or url */
  maxDocFieldChars: 2000,
  /** hours a stored graph (visualize_url, triples_url) stays reachable */
  ttlHours: 168,
} as const;
export const VisualizeWith = z.enum(['html']);
export const ConstrainedDisambiguation = z
  .strictObject({
    action: z.enum(['merge', 'split']).describe('merge: the entities are one node; split: none of them is merged with the others (one entity: with anything)'),
    entities: z.array(z.string().min(1)).min(1).max(100),
    canonical: z.string().min(1).nullable().optional().describe('merge: the node id (default: the longest of entities)'),
    type: z.string().min(1).nullable().optional().describe('merge: the node type (default: the type most mentions of the entities have)'),
  })
  .meta({ id: 'ConstrainedDisambiguation' });
export const GraphDocument = z
  .strictObject({
    text: z.string().max(GRAPH_LIMITS.maxDocChars).describe(`at most ${GRAPH_LIMITS.maxDocChars} characters`),
    title: z.string().max(GRAPH_LIMITS.maxDocFieldChars).nullable().optional(),
    id: z.string().max(GRAPH_LIMITS.maxDocFieldChars).nullable().optional(),
    url: z.string().max(GRAPH_LIMITS.maxDocFieldChars).nullable().optional(),
  })
  .meta({ id: 'GraphDocument' });
export const GraphRequest = z
  .strictObject({
    query: z.string().default(''),
    return_articles: z.boolean().default(false),
    min_cluster_probability: z.number().min(0).max(1).default(0.9),
    geo_disambiguation: z.boolean().default(false),
    filter_params: FilterParams.nullable().optional(),
    constrained_disambiguations: z.array(ConstrainedDisambiguation).max(GRAPH_LIMITS.maxConstraints).nullable().optional(),
    docs_upload: z.array(GraphDocument).max(GRAPH_LIMITS.maxDocs).nullable().optional(),
    visualize_with: VisualizeWith.nullable().optional(),
  })
  .meta({ id: 'GraphRequest' });
export type GraphRequestParsed = z.output<typeof GraphRequest>;
export const GraphResponse = record({
  full_graph: FreeObject,
  disambiguations: z.array(FreeObject),
  articles: z.array(SearchResponseDictItem).nullable().optional(),
  query: z.string().nullable().optional(),
  docs_enhanced: z.array(FreeObject).nullable().optional(),
  triples_url: z.string().nullable().optional(),
  visualize_url: z.string().nullable().optional(),
}).meta({ id: 'GraphResponse' });
/** A stored graph's capability id (the path of visualize_url and triples_url). */
export const GraphPath = z.object({ graph_id: Uuid });
export const GRAPH_ASSET = 'cytoscape.min.js';
export const GraphAssetPath = z.object({ asset: z.enum([GRAPH_ASSET]) });

export const ScrapeItem = z.object({ user_agent: z.string(), count: z.int() });
export const ReferralItem = z.object({ site: z.string(), count: z.int() });

/**
 * URL indexing (../shared/spec/asknews-facts.md §6). Rules of this implementation, written once here:
 * - a request names 1 to maxUrls URLs, each an absolute http(s) URL of at most 2083 characters
 *   (PAGE_URL, else 422 naming `urls.N.url`); end_time before start_time is a 422 on `end_time`;
 * - the request answers at once with a job (status `queued`); `GET /v1/news/index_urls/{job_id}`
 *   (an extension, visible only to the organization, or user of a personal key, that created
 *   it) reports the job and each URL;
 * - job status: queued (nothing done yet), running, completed (every URL indexed or skipped),
 *   partial (some indexed or skipped, some refused or failed), failed (none indexed or skipped);
 * - URL status: queued, running, indexed, skipped (reason `not_article`, `duplicate`), refused
 *   (the fetch policy or the URL: `forbidden_address`, `scheme`, `invalid_url`), failed (`dns`,
 *   `network`, `timeout`, `too_many_redirects`, `http_status`, `not_html`, `too_large`, `error`);
 * - dedupe: a URL whose requested or canonical URL is stored already, or whose page text is the
 *   text of an article indexed from another URL (same content hash), is skipped as `duplicate`;
 * - a URL sent with `metadata.feed_item` (FeedItemMetadata: what a feed says of the item) whose
 *   page cannot be fetched, or is not an article, is indexed from that metadata: status
 *   `indexed`, reason `feed_metadata`, detail saying why the page was not used; the article's
 *   title, summary, authors, date and language are the feed's, its `full_text` is null;
 * - pub_date = the page's published time, else the time it was fetched, bounded to
 *   [start_time, end_time] (a time outside is moved to the nearer bound and flagged derived);
 * - what a job indexes is seen by its owner only (the organization of an organization key, else
 *   the user), unless the server shares indexed pages (NEWSFLOW_INDEX_URLS_SHARED=1);
 * - a server may lower maxUrls (NEWSFLOW_INDEX_MAX_URLS: a 422 on `urls` beyond it) and limits the
 *   unfinished jobs of an owner (NEWSFLOW_INDEX_MAX_JOBS, default 4: a 429 beyond it); the URLs of
 *   all jobs are fetched round-robin between owners.
 */
export const INDEX_URLS_LIMITS = { maxUrls: 1000, urlChars: 2083 } as const;
export const INDEX_URL_JOB_STATUSES = ['queued', 'running', 'completed', 'partial', 'failed'] as const;
export const INDEX_URL_STATUSES = ['queued', 'running', 'indexed', 'skipped', 'refused', 'failed'] as const;

/** PAGE_URL: a request takes any http(s) URL of that shape; one no parser can read is refused in its job (`invalid_url`). */
export const IndexableUrl = z
  .string()
  .min(1)
  .max(INDEX_URLS_LIMITS.urlChars)
  .regex(PAGE_URL, 'not an absolute http(s) URL (scheme http or https, a host, no spaces or control characters)')
  .meta({ description: `absolute http(s) URL, at most ${INDEX_URLS_LIMITS.urlChars} characters, no spaces or control characters` });
export const ScrapedURLItem = z.object({
  url: IndexableUrl,
  data: z
    .object({ scrapes: z.array(ScrapeItem), referrals: z.array(ReferralItem) })
    .nullable()
    .optional(),
  skip_dedupe: z.boolean().nullable().default(false),
  metadata: FreeObjectInput.nullable().optional(),
  enrichments: FreeObjectInput.nullable().optional(),
});
/** The key of `metadata` that carries a feed item's own fields (see the rules above). */
export const FEED_ITEM_METADATA_KEY = 'feed_item';
/** What a feed says of an item, sent by the feed poller beside its URL (an extension of this server; another server keeps it as metadata). */
export const FeedItemMetadata = z.object({
  title: z.string().min(1).max(2000),
  summary: z.string().max(20_000).nullable().optional(),
  authors: z.array(z.string().max(500)).max(50).nullable().optional(),
  /** ISO date-time */
  published: z.string().max(64).nullable().optional(),
  /** a language code (`en`, `pt-BR`) */
  language: z.string().max(35).nullable().optional(),
  /** the feed: its name and URL */
  source_name: z.string().max(500).nullable().optional(),
  source_url: z.string().max(INDEX_URLS_LIMITS.urlChars).nullable().optional(),
});
export type FeedItemMetadata = z.infer<typeof FeedItemMetadata>;
export const IndexUrlsRequest = z
  .object({ start_time: DateTimeInput, end_time: DateTimeInput, urls: z.array(ScrapedURLItem).min(1).max(INDEX_URLS_LIMITS.maxUrls) })
  .superRefine((v, ctx) => {
    if (Date.parse(v.end_time) < Date.parse(v.start_time)) {
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: `end_time ${v.end_time} is before start_time ${v.start_time}` });
    }
  })
  .meta({ id: 'URLIndexingRequest', [X_RULES]: [notBefore('start_time', 'end_time')] });
export type IndexUrlsRequestParsed = z.output<typeof IndexUrlsRequest>;
/** Both shapes of ../shared/spec/asknews-facts.md §6: the spec's {status, job_id} and the Python SDK's {status, message, indexed_count}. */
export const IndexUrlsResponse = record({
  status: z.string(),
  job_id: z.string().nullable().optional(),
  message: z.string().nullable().optional(),
  indexed_count: z.int().nullable().optional(),
}).meta({ id: 'IndexUrlsResponse' });

export const IndexUrlsJobPath = z.object({ job_id: Uuid });
export const IndexUrlsJobItem = record({
  url: z.string(),
  status: z.enum(INDEX_URL_STATUSES),
  reason: z.string().nullable(),
  detail: z.string().nullable(),
  final_url: z.string().nullable(),
  canonical_url: z.string().nullable(),
  http_status: z.int().nullable(),
  title: z.string().nullable(),
  article_id: z.string().nullable(),
  updated_at: DateTime,
}).meta({ id: 'IndexUrlsJobItem' });
export const IndexUrlsJob = record({
  job_id: z.string(),
  status: z.enum(INDEX_URL_JOB_STATUSES),
  message: z.string(),
  indexed_count: z.int(),
  counts: z.record(z.string(), z.int()),
  start_time: DateTime,
  end_time: DateTime,
  created_at: DateTime,
  updated_at: DateTime,
  finished_at: DateTime.nullable(),
  urls: z.array(IndexUrlsJobItem),
}).meta({ id: 'IndexUrlsJob' });

/**
 * Index counts (../shared/spec/asknews-facts.md §7). Rules of this implementation, written once here:
 * - buckets are aligned in UTC and half-open [start, end): 5m, 1h, 12h (00:00 and 12:00) and 1d
 *   from midnight; 1w from Monday 00:00; 1m from the 1st of the month 00:00;
 * - the answer lists every bucket that meets [start_datetime, end_datetime), zero counts included,
 *   oldest first; each bucket is counted whole (its count does not depend on the requested range);
 * - start_datetime == end_datetime is an empty range (no buckets);
 * - without end_datetime the range ends at the service's now; without start_datetime it starts
 *   defaultBuckets[sampling] - 1 buckets before the bucket holding the range's last instant;
 * - at most maxBuckets buckets per request (else 422 on start_datetime).
 */
export const INDEX_COUNTS_LIMITS = {
  maxBuckets: 10_000,
  /** default number of buckets per sampling when start_datetime is omitted */
  defaultBuckets: { '5m': 288, '1h': 168, '12h': 60, '1d': 30, '1w': 26, '1m': 12 },
} as const;

export const IndexCountsQuery = z
  .object({
    start_datetime: DateTimeInput.nullable().optional(),
    end_datetime: DateTimeInput.nullable().optional(),
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
    entity_guarantee: z.array(EntityGuaranteeItem).nullable().optional(),
    entity_guarantee_op: StringOp.default('OR'),
    languages: z.array(Language).nullable().optional(),
    // ISO 3166 alpha-2 of the publisher, as on search (spec/search.ts)
    countries: z.array(z.string().length(2)).nullable().optional(),
    countries_blacklist: z.array(z.string().length(2)).nullable().optional(),
    continents: z.array(Continent).nullable().optional(),
    sentiment: SentimentFilter.nullable().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.start_datetime && v.end_datetime && Date.parse(v.end_datetime) < Date.parse(v.start_datetime)) {
      ctx.addIssue({ code: 'custom', path: ['end_datetime'], message: `end_datetime ${v.end_datetime} is before start_datetime ${v.start_datetime}` });
    }
  })
  .meta({
    [X_RULES]: [
      notBefore('start_datetime', 'end_datetime'),
      {
        rule: 'max-buckets',
        fields: ['start_datetime', 'end_datetime', 'sampling'],
        max: INDEX_COUNTS_LIMITS.maxBuckets,
        defaults: INDEX_COUNTS_LIMITS.defaultBuckets,
        description: `the buckets of sampling that meet [start_datetime, end_datetime) number at most ${INDEX_COUNTS_LIMITS.maxBuckets} (422 on start_datetime; no end_datetime: the server's now; no start_datetime: the sampling's default count of buckets), and the last one ends by 9999-12-31T23:59:59Z (422)`,
      },
    ],
  });
export type IndexCountsQueryParsed = z.output<typeof IndexCountsQuery>;
export const IndexCountItem = record({ start: DateTime, end: DateTime, count: z.int() }).meta({ id: 'IndexCountItem' });
export const IndexCountsResponse = z.array(IndexCountItem);
