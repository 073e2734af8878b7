/** Profile, rate-limit status, BYOK and the smaller endpoints (../shared/spec/asknews-facts.md §12). */
import { z } from 'zod';
import { ByokProvider, FORECAST_MODELS, Plan, RedditSort, RedditTimeFilter, ReturnType } from './enums.js';
import { DateTime, DateTimeInput, FreeObject, LookbackDays, LookbackHours, record } from './common.js';
import { SearchResponseDictItem, WebSearchResult } from './article.js';
import { CUTOFF_DATE, DIGITS_CURSOR, HEADER_TOKEN, NOT_BLANK } from './patterns.js';
import { notBefore, X_RULES } from './rules.js';
import { FilterParams } from './search.js';
import { RedditThread } from './stories.js';

export const Subscription = z.object({
  status: z.string(),
  plan: z.union([Plan, z.string()]),
  period_start: DateTime.nullable().optional(),
  period_end: DateTime.nullable().optional(),
});
export const UserProfile = record({
  identity_type: z.literal('user').default('user'),
  id: z.string(),
  subscription: Subscription,
  organization: z.object({ id: z.string(), role: z.string() }).nullable().optional(),
  suspended: z.boolean().default(false),
});
export const OrganizationProfile = record({
  identity_type: z.literal('organization'),
  id: z.string(),
  subscription: Subscription,
});
export const ProfileResponse = record({
  profile: z.discriminatedUnion('identity_type', [UserProfile.extend({ identity_type: z.literal('user') }), OrganizationProfile]),
}).meta({ id: 'ProfileResponse' });
export type ProfileResponse = z.infer<typeof ProfileResponse>;

const limitState = {
  request_rate: z.number(),
  request_rate_capacity: z.number(),
  request_rate_remaining: z.number(),
  retry_after: z.number().nullable().optional(),
  concurrency_limit: z.int(),
  concurrency_remaining: z.int(),
};
export const LimitGroupState = z.object(limitState);
export const RateLimitStatusResponse = record({
  ...limitState,
  deepnews_request_rate: z.number(),
  deepnews_request_rate_capacity: z.number(),
  deepnews_request_rate_remaining: z.number(),
  deepnews_retry_after: z.number().nullable().optional(),
  deepnews_concurrency_limit: z.int(),
  deepnews_concurrency_remaining: z.int(),
  /** newsflow addition: the state of every limiter group of the key. */
  groups: z.record(z.string(), LimitGroupState).optional(),
}).meta({ id: 'RateLimitStatusResponse' });
export type RateLimitStatusResponse = z.infer<typeof RateLimitStatusResponse>;

export const PingResponse = record({ app: z.string(), version: z.string() }).meta({ id: 'PingModel' });

export const ByokPath = z.object({ provider: ByokProvider });
/** A provider key travels in an HTTP header: printable ASCII without spaces or control characters (CR/LF would inject headers). */
export const ByokUpsertRequest = z
  .object({ api_key: z.string().min(10).regex(HEADER_TOKEN, 'api_key: printable ASCII without spaces or control characters') })
  .meta({ id: 'UpsertApiKeyRequest' });
export const ByokResponse = record({ provider: ByokProvider, key_hint: z.string() }).meta({ id: 'ApiKeyResponse' });

/** Most characters of an autofilter description (a newsflow limit; the hosted API states none). */
export const AUTOFILTER_QUERY_MAX = 1000;
export const AutofilterQuery = z.object({
  query: z
    .string()
    .min(1)
    .max(AUTOFILTER_QUERY_MAX)
    .describe('A description of the news wanted, e.g. "positive news about Tesla from European outlets last week"'),
});
export const AutofilterResponse = record({
  filter_params: FilterParams,
  metadata: z.object({ title: z.string().default('') }),
}).meta({ id: 'FilterParamsResponse' });

/** `cutoff_date` `YYYY-MM-DD-HH:MM` (UTC) as epoch ms, or null when it names no real minute (CUTOFF_DATE). */
export function parseCutoffDate(s: string): number | null {
  if (!CUTOFF_DATE.test(s)) return null;
  const [y, mo, d, h, mi] = s.split(/[-:]/).map(Number) as [number, number, number, number, number];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, 0, 0);
  return t.getTime();
}

export const ForecastQuery = z.object({
  query: z.string().regex(NOT_BLANK, 'query is blank'),
  lookback: LookbackDays.default(14),
  articles_to_use: z.int().min(1).default(15).describe('articles taken from the archive (this service uses at most 101)'),
  method: z.enum(['kw']).default('kw'),
  model: z.enum(FORECAST_MODELS).default('gpt-4.1-2025-04-14'),
  cutoff_date: z
    .string()
    .regex(CUTOFF_DATE, 'expected a real UTC date and time YYYY-MM-DD-HH:MM, years 0001 to 9999')
    .optional()
    .describe('UTC; the forecast sees only articles published in [cutoff - lookback days, cutoff]; default now'),
  use_reddit: z.boolean().default(false),
  additional_context: z.string().optional(),
  web_search: z.boolean().default(false),
  expert: z.enum(['general', 'sports']).default('general'),
});
/** What the judgement fields hold when no model judged (the offline, extractive service). */
export const FORECAST_NOT_JUDGED = { probability: -1, confidence: -1, llm_confidence: -1, likelihood: 'not judged', choice: 'not judged' } as const;
export const ForecastResponse = record({
  forecast: z.string(),
  resolution_criteria: z.string(),
  date: DateTime,
  reasoning: z.string(),
  sources: z.array(SearchResponseDictItem),
  timeline: z.array(z.string()),
  opposite_request: z.string(),
  confidence: z.number().describe('0 to 1; -1 when no model judged'),
  choice: z.union([z.boolean(), z.string()]),
  llm_confidence: z.int().describe('0 to 100; -1 when no model judged'),
  model_used: z.string(),
  likelihood: z.string().describe('the model\'s words for the probability; "not judged" when no model judged'),
  probability: z.int().describe('0 to 100 (percent); -1 when no model judged'),
  web_search_results: z.array(WebSearchResult),
  summary: z.string(),
  key_people: z.array(z.object({ name: z.string(), role: z.string() })),
  key_facets: z.array(z.string()),
  reconciled_information: z.string(),
  candidate_models: z.array(z.string()),
  unique_information: z.string(),
  expert_information: FreeObject.default({}),
}).meta({ id: 'ForecastResponse' });

/**
 * Per-request caps of web search (the interface states none; ../shared/spec/asknews-facts.md §12.4): each query is searched
 * (and, with SearXNG, asked for up to three result pages) on its own, so the work of a request
 * grows with its queries; beyond the caps a 422 names `queries`.
 */
export const WEB_SEARCH_LIMITS = { maxQueries: 10, queryChars: 1000 } as const;
export const WebSearchQuery = z
  .object({
    queries: z.array(z.string().max(WEB_SEARCH_LIMITS.queryChars)).min(1).max(WEB_SEARCH_LIMITS.maxQueries),
    lookback: LookbackHours.nullable().optional(),
    start_datetime: DateTimeInput.nullable().optional(),
    end_datetime: DateTimeInput.nullable().optional(),
    engine: z.enum(['v1', 'v1.5']).default('v1'),
    domains: z.array(z.string()).optional(),
    strict: z.boolean().default(false),
    /** a count of results to skip, as a number or the string `offset` of the previous page */
    offset: z.union([z.int().min(0), z.string().regex(DIGITS_CURSOR, 'offset: not a cursor of this server (a count of results to skip)')]).default(0),
  })
  // a window that lookback closes before end_datetime is empty (no results), not an error
  .superRefine((v, ctx) => {
    if (v.start_datetime && v.end_datetime && Date.parse(v.end_datetime) < Date.parse(v.start_datetime)) {
      ctx.addIssue({ code: 'custom', path: ['end_datetime'], message: `end_datetime ${v.end_datetime} is before start_datetime ${v.start_datetime}` });
    }
  })
  .meta({ [X_RULES]: [notBefore('start_datetime', 'end_datetime')] });
export const WebSearchResponse = record({
  as_string: z.string(),
  as_dicts: z.array(WebSearchResult),
  offset: z.union([z.int(), z.string()]).nullable().optional(),
}).meta({ id: 'WebSearchResponse' });

export const ForumSearchQuery = z.object({
  keywords: z.array(z.string()).min(1),
  n_threads: z.int().min(1).default(5),
  method: z.enum(['nl', 'kw']).default('kw'),
  deep: z.boolean().default(false),
  return_type: ReturnType.default('string'),
  time_filter: RedditTimeFilter.default('day'),
  sort: RedditSort.default('relevance'),
});
export const ForumSearchResponse = record({
  as_dicts: z.array(RedditThread).nullable().optional(),
  as_string: z.string().nullable().optional(),
}).meta({ id: 'RedditResponse' });

export const WikiSearchQuery = z.object({
  query: z.string().default(''),
  neighbor_chunks: z.int().min(0).max(10).nullable().default(1),
  n_documents: z.int().min(1).max(20).nullable().default(5),
  full_articles: z.boolean().nullable().default(false),
  hybrid_search: z.boolean().nullable().default(false),
  string_guarantee: z.array(z.string()).nullable().optional(),
  diversify: z.number().min(0).max(1).nullable().default(0),
  include_main_section: z.boolean().nullable().default(false),
});
export const WikiResponseDictItem = z
  .looseObject({
    content: z.string(),
    title: z.string(),
    url: z.string(),
    categories: z.array(z.string()),
    timestamp: DateTime,
    cirrus_metadata: z
      .object({
        create_timestamp: DateTime,
        wikibase_item: z.string(),
        version: z.int(),
        popularity_score: z.number(),
        text_bytes: z.int(),
      })
      .nullable()
      .optional(),
    point_id: z.string().nullable().optional(),
    // extensions of this implementation (docs/service.md, "Encyclopedia")
    section: z.string().optional().meta({ description: 'heading path of the hit chunk ("" = the lead) (extension)' }),
    chunk_index: z.int().optional().meta({ description: 'position of the hit chunk in its article (extension)' }),
    chunks: z
      .array(z.object({ index: z.int(), section: z.string(), point_id: z.string() }))
      .optional()
      .meta({ description: 'the chunks in content, in order (extension)' }),
    score: z.number().optional().meta({ description: 'relevance of the hit (extension)' }),
  })
  .meta({ id: 'WikiResponseDictItem' });
export const WikiSearchResponse = record({
  documents: z.array(WikiResponseDictItem),
}).meta({ id: 'WikiSearchResponse' });

/** POST /v1/admin/wiki/load (extension): `newsflow wiki load` through a running service. */
export const WikiLoadRequest = z.strictObject({
  path: z.string().min(1).max(4096).meta({ description: 'a dump (.xml, .xml.bz2), a saved page or a folder, on the machine of the service' }),
});
export const WikiLoadReport = z.looseObject({
  files: z.int(),
  pages: z.int(),
  loaded: z.int(),
  unchanged: z.int(),
  redirects: z.int(),
  otherNamespaces: z.int(),
  notArticles: z.int(),
  chunks: z.int(),
  problems: z.array(z.object({ file: z.string(), line: z.int().nullable(), title: z.string().nullable(), message: z.string() })),
});
export const WikiLoadStatus = record({
  state: z.enum(['idle', 'running', 'done', 'failed']),
  path: z.string().nullable(),
  started_at: DateTime.nullable(),
  finished_at: DateTime.nullable(),
  /** counts so far (running) or final (done) */
  report: WikiLoadReport.nullable(),
  error: z.string().nullable(),
}).meta({ id: 'WikiLoadStatus' });
