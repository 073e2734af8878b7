/**
 * The route table: every path of the interface with its scope, limiter group, publisher rule,
 * plan rule and schemas. The service registers routes from it, the client calls through it,
 * the OpenAPI document is generated from it and the auth tests iterate it.
 */
import { z } from 'zod';
import type { Plan, Scope } from './enums.js';
import * as S from './search.js';
import { SearchResponseDictItem } from './article.js';
import * as N from './news.js';
import * as C from './chat.js';
import * as St from './stories.js';
import * as A from './alerts.js';
import * as D from './distribution.js';
import * as P from './profile.js';
import * as Ad from './admin.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** Endpoint groups: one service/routes/<group>.ts file each. */
export type RouteGroup =
  | 'ping'
  | 'news'
  | 'graph'
  | 'index-urls'
  | 'index-counts'
  | 'chat'
  | 'deepnews'
  | 'stories'
  | 'alerts'
  | 'distribution'
  | 'profile'
  | 'byok'
  | 'autofilter'
  | 'charts'
  | 'forecast'
  | 'websearch'
  | 'forum'
  | 'wiki'
  | 'admin';
/** Rate/concurrency limiter groups (one limiter per key and group). */
export const LIMIT_GROUPS = ['news', 'stories', 'chat', 'deepnews', 'distribution', 'profile'] as const;
export type LimitGroup = (typeof LIMIT_GROUPS)[number];

export interface RouteDef {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. /v1/news/{article_id} */
  path: string;
  group: RouteGroup;
  summary: string;
  /** null: no authentication (ping). [] : any valid key. */
  scopes: Scope[] | null;
  /** Limiter group; null: consumes nothing (ping, limits status). */
  limit: LimitGroup | null;
  /** Publisher organization keys may call it (interface Authentication item 3). */
  publisher: boolean;
  /** Only organization keys (distribution). */
  orgOnly?: boolean;
  /** Minimum plan for the whole route. */
  plan?: Plan;
  /** Parameters whose use (true or > 0) needs a minimum plan (interface Authentication item 5). */
  paramPlans?: { name: string; plan: Plan }[];
  query?: z.ZodType;
  params?: z.ZodType;
  body?: z.ZodType;
  bodyRequired?: boolean;
  response: z.ZodType | null;
  status: 200 | 201 | 204;
  /** Answers 404 beyond lookups by path id (a foreign `user_id`, an unknown `alert_id` filter). */
  notFound?: boolean;
  /** Answers 409 when the resource's state does not allow the operation (an alert whose sources this server cannot run). */
  conflict?: boolean;
  /** Written by a model provider (service/llm/): a provider that fails is 502 (502000), or an error event once streaming. */
  modelProvider?: boolean;
  /**
   * Also answers text/event-stream when the body says stream: true: the schema of one event's
   * `data` (spec/chat.ts `SSE`, ../shared/spec/asknews-facts.md §11.1: a chunk as JSON, an error event `{error}`, or `[DONE]` last).
   */
  stream?: z.ZodType;
  /** An administration route (spec/admin.ts): the admin token of the data dir, never an API key. */
  admin?: boolean;
  /** The success response is this media type (a page, a CSV file, a script), not JSON; `response` is its schema (a string). */
  produces?: 'text/html' | 'text/csv' | 'text/javascript';
  /**
   * OpenAPI links of the success response: operations that take a value of it (`$response.body#/id`)
   * as a parameter, so clients and stateful fuzzers follow a created resource to its lookups.
   */
  links?: Record<string, { operationId: string; parameters: Record<string, string> }>;
}

/** The operations on one alert, linked from every response that is the alert (create, get, update, run). */
const alertLinks = (id: string) => ({
  GetAlert: { operationId: 'get_alert', parameters: { alert_id: id } },
  UpdateAlert: { operationId: 'put_alert', parameters: { alert_id: id } },
  RunAlert: { operationId: 'run_alert', parameters: { alert_id: id } },
  GetAlertLogs: { operationId: 'get_alert_logs', parameters: { alert_id: id } },
  GetAllAlertLogs: { operationId: 'get_all_alert_logs', parameters: { alert_id: id } },
  DeleteAlert: { operationId: 'delete_alert', parameters: { alert_id: id } },
});

/** One route of the table; its literal type (operation id, schemas) is kept for the typed handlers (`RouteOf`). */
const r = <const D extends Omit<RouteDef, 'status'> & { status?: RouteDef['status'] }>(d: D) =>
  ({ status: 200, ...d }) as Omit<D, 'status'> & { status: D['status'] extends RouteDef['status'] ? D['status'] : 200 };
const news = { scopes: ['news'] as Scope[], limit: 'news' as const, publisher: false };
const chat = { scopes: ['chat'] as Scope[], limit: 'chat' as const, publisher: false };
const admin = { scopes: [] as Scope[], limit: null, publisher: false, admin: true };
const dist = { group: 'distribution' as const, scopes: ['distribution'] as Scope[], limit: 'distribution' as const, publisher: true, orgOnly: true };

const TABLE = [
  r({
    operationId: 'ping',
    method: 'GET',
    path: '/',
    group: 'ping',
    summary: 'Liveness check',
    scopes: null,
    limit: null,
    publisher: true,
    response: P.PingResponse,
  }),
  // news
  r({
    operationId: 'search_news',
    method: 'GET',
    path: '/v1/news/search',
    group: 'news',
    summary: 'Search news',
    ...news,
    publisher: true,
    query: S.SearchParams,
    response: S.SearchResponse,
    paramPlans: [
      { name: 'return_graphs', plan: 'analyst' },
      { name: 'return_geo', plan: 'analyst' },
    ],
  }),
  r({
    operationId: 'get_articles',
    method: 'GET',
    path: '/v1/news',
    group: 'news',
    summary: 'Get articles by id',
    ...news,
    publisher: true,
    query: N.ArticlesQuery,
    response: N.ArticlesResponse,
  }),
  r({
    operationId: 'get_article',
    method: 'GET',
    path: '/v1/news/{article_id}',
    group: 'news',
    summary: 'Get one article',
    ...news,
    publisher: true,
    params: N.ArticlePath,
    query: N.ArticleQuery,
    response: SearchResponseDictItem,
  }),
  r({
    operationId: 'build_graph',
    method: 'POST',
    path: '/v1/news/graph',
    group: 'graph',
    summary: 'Build a knowledge graph',
    ...news,
    body: N.GraphRequest,
    response: N.GraphResponse,
  }),
  // graph extensions: capability URLs of a stored graph (unguessable id, expiry), opened by browsers without a key
  r({
    operationId: 'view_graph',
    method: 'GET',
    path: '/v1/news/graph/{graph_id}/view',
    group: 'graph',
    summary: 'Page drawing a stored graph (visualize_url; no key: the id is the capability)',
    scopes: null,
    limit: null,
    publisher: true,
    params: N.GraphPath,
    response: z.string(),
    produces: 'text/html',
  }),
  r({
    operationId: 'get_graph_triples',
    method: 'GET',
    path: '/v1/news/graph/{graph_id}/triples',
    group: 'graph',
    summary: "A stored graph's edges as CSV (triples_url; no key: the id is the capability)",
    scopes: null,
    limit: null,
    publisher: true,
    params: N.GraphPath,
    response: z.string(),
    produces: 'text/csv',
  }),
  r({
    operationId: 'get_graph_asset',
    method: 'GET',
    path: '/v1/news/graph/assets/{asset}',
    group: 'graph',
    summary: 'Script the graph page loads (cytoscape, served locally)',
    scopes: null,
    limit: null,
    publisher: true,
    params: N.GraphAssetPath,
    response: z.string(),
    produces: 'text/javascript',
  }),
  r({
    operationId: 'index_urls',
    method: 'POST',
    path: '/v1/news/index_urls',
    group: 'index-urls',
    summary: 'Index article URLs',
    ...news,
    body: N.IndexUrlsRequest,
    bodyRequired: true,
    response: N.IndexUrlsResponse,
    links: { GetIndexUrlsJob: { operationId: 'get_index_urls_job', parameters: { job_id: '$response.body#/job_id' } } },
  }),
  r({
    operationId: 'get_index_urls_job',
    method: 'GET',
    path: '/v1/news/index_urls/{job_id}',
    group: 'index-urls',
    summary: 'A URL indexing job and the status of each URL (extension)',
    ...news,
    params: N.IndexUrlsJobPath,
    response: N.IndexUrlsJob,
  }),
  r({
    operationId: 'get_index_counts',
    method: 'GET',
    path: '/v1/index_counts',
    group: 'index-counts',
    summary: 'Articles indexed per source over time',
    ...news,
    query: N.IndexCountsQuery,
    response: N.IndexCountsResponse,
  }),
  // chat
  r({
    operationId: 'get_chat_completions',
    method: 'POST',
    path: '/v1/openai/chat/completions',
    group: 'chat',
    summary: 'News-infused chat completion',
    ...chat,
    body: C.ChatCompletionRequest,
    bodyRequired: true,
    response: C.ChatCompletionResponse,
    stream: C.ChatCompletionChunk,
    notFound: true,
    modelProvider: true,
  }),
  r({
    operationId: 'list_models',
    method: 'GET',
    path: '/v1/openai/models',
    group: 'chat',
    summary: 'Models chat completions can answer with (path of the official clients, facts §11.3)',
    ...chat,
    response: C.ModelsResponse,
  }),
  r({
    operationId: 'deep_news',
    method: 'POST',
    path: '/v1/chat/deepnews',
    group: 'deepnews',
    summary: 'DeepNews research agent',
    scopes: ['chat'],
    limit: 'deepnews',
    publisher: true,
    notFound: true,
    modelProvider: true,
    body: C.DeepNewsRequest,
    bodyRequired: true,
    response: C.DeepNewsResponse,
    stream: C.DeepNewsStreamEvent,
  }),
  r({
    operationId: 'list_deepnews_models',
    method: 'GET',
    path: '/v1/chat/deepnews-models',
    group: 'deepnews',
    summary: 'List DeepNews models',
    scopes: [],
    limit: 'chat',
    publisher: false,
    response: C.DeepNewsModelsResponse,
  }),
  r({
    operationId: 'autofilter',
    method: 'GET',
    path: '/v1/chat/autofilter',
    group: 'autofilter',
    summary: 'Map a description to search filters',
    ...chat,
    query: P.AutofilterQuery,
    response: P.AutofilterResponse,
  }),
  r({
    operationId: 'create_charts_endpoint',
    method: 'POST',
    path: '/v1/chat/charts',
    group: 'charts',
    summary: 'Chart article counts for a question (an endpoint of the official SDKs after 0.32.4)',
    ...chat,
    body: C.CreateChartRequest,
    bodyRequired: true,
    response: C.ChartResponse,
  }),
  r({
    operationId: 'get_forecast',
    method: 'GET',
    path: '/v1/chat/forecast',
    group: 'forecast',
    summary: 'Forecast a news event',
    ...chat,
    modelProvider: true,
    query: P.ForecastQuery,
    response: P.ForecastResponse,
  }),
  r({
    operationId: 'live_web_search',
    method: 'GET',
    path: '/v1/chat/websearch',
    group: 'websearch',
    summary: 'Live web search',
    ...chat,
    query: P.WebSearchQuery,
    response: P.WebSearchResponse,
    modelProvider: true,
  }),
  // alerts
  r({
    operationId: 'get_alerts',
    method: 'GET',
    path: '/v1/chat/alerts',
    group: 'alerts',
    summary: 'List alerts',
    ...chat,
    notFound: true,
    query: A.AlertsQuery,
    response: A.AlertsPage,
  }),
  r({
    operationId: 'create_alert',
    method: 'POST',
    path: '/v1/chat/alerts',
    group: 'alerts',
    summary: 'Create an alert',
    ...chat,
    body: A.CreateAlertRequest,
    bodyRequired: true,
    response: A.AlertResponse,
    status: 201,
    links: alertLinks('$response.body#/id'),
  }),
  r({
    operationId: 'get_all_alert_logs',
    method: 'GET',
    path: '/v1/chat/alerts/logs',
    group: 'alerts',
    summary: 'Logs of all alerts',
    ...chat,
    notFound: true,
    query: A.AlertLogsQuery,
    response: A.AlertLogsPage,
  }),
  r({
    operationId: 'get_alert',
    method: 'GET',
    path: '/v1/chat/alerts/{alert_id}',
    group: 'alerts',
    summary: 'Get an alert',
    ...chat,
    params: A.AlertPath,
    query: A.AlertGetQuery,
    response: A.AlertResponse,
    links: alertLinks('$response.body#/id'),
  }),
  r({
    operationId: 'put_alert',
    method: 'PUT',
    path: '/v1/chat/alerts/{alert_id}',
    group: 'alerts',
    summary: 'Update an alert',
    ...chat,
    params: A.AlertPath,
    body: A.UpdateAlertRequest,
    bodyRequired: true,
    response: A.AlertResponse,
    links: alertLinks('$response.body#/id'),
  }),
  r({
    operationId: 'delete_alert',
    method: 'DELETE',
    path: '/v1/chat/alerts/{alert_id}',
    group: 'alerts',
    summary: 'Delete an alert',
    ...chat,
    params: A.AlertPath,
    response: null,
    status: 204,
  }),
  r({
    operationId: 'get_alert_logs',
    method: 'GET',
    path: '/v1/chat/alerts/{alert_id}/logs',
    group: 'alerts',
    summary: 'Logs of one alert',
    ...chat,
    params: A.AlertPath,
    query: A.OneAlertLogsQuery,
    response: A.AlertLogsPage,
  }),
  r({
    operationId: 'run_alert',
    method: 'GET',
    path: '/v1/chat/alerts/{alert_id}/run',
    group: 'alerts',
    summary: 'Run an alert now',
    ...chat,
    params: A.AlertPath,
    query: A.AlertRunQuery,
    response: A.AlertResponse,
    conflict: true,
    links: alertLinks('$response.body#/id'),
  }),
  // stories
  r({
    operationId: 'get_stories',
    method: 'GET',
    path: '/v1/stories',
    group: 'stories',
    summary: 'Filter stories',
    scopes: ['stories'],
    limit: 'stories',
    publisher: false,
    query: St.StoriesQuery,
    response: St.StoriesResponse,
    paramPlans: [{ name: 'reddit', plan: 'pro' }],
  }),
  r({
    operationId: 'get_story',
    method: 'GET',
    path: '/v1/stories/{story_id}',
    group: 'stories',
    summary: 'Get a story',
    scopes: ['stories'],
    limit: 'stories',
    publisher: false,
    params: St.StoryPath,
    query: St.StoryQuery,
    response: St.StoryResponse,
    paramPlans: [{ name: 'reddit', plan: 'pro' }],
  }),
  // distribution
  r({
    operationId: 'domain_hit_share',
    method: 'GET',
    path: '/v1/distribution/stats/hit_share',
    summary: 'Share of all publisher hits',
    ...dist,
    query: D.HitShareQuery,
    response: D.HitShareResponse,
  }),
  r({
    operationId: 'top_n_articles_for_domains',
    method: 'GET',
    path: '/v1/distribution/articles/top_n_for_domains',
    summary: 'Articles of the domains ranked by hits',
    ...dist,
    query: D.TopNForDomainsQuery,
    response: D.TopNForDomainsResponse,
  }),
  r({
    operationId: 'get_domain_hits_surface',
    method: 'GET',
    path: '/v1/distribution/articles/domain_hits_surface',
    summary: 'Total hits and surfaced articles',
    ...dist,
    query: D.MonthQuery,
    response: D.DomainHitsSurfaceResponse,
  }),
  r({
    operationId: 'get_domain_hits_surface_timewindow',
    method: 'GET',
    path: '/v1/distribution/articles/domain_hits_surface_timewindow',
    summary: 'Hits and surfaced articles per day',
    ...dist,
    query: D.MonthQuery,
    response: D.DomainHitsSurfaceTimeWindowResponse,
  }),
  r({
    operationId: 'get_domain_queries',
    method: 'GET',
    path: '/v1/distribution/articles/domain_queries',
    summary: 'Queries that surfaced the domains',
    ...dist,
    query: D.DomainQueriesQuery,
    response: D.DomainQueriesResponse,
  }),
  r({
    operationId: 'top_n_articles_by_hits',
    method: 'GET',
    path: '/v1/distribution/articles/top_n',
    summary: 'Top N articles by hits',
    ...dist,
    query: D.TopNArticlesQuery,
    response: D.TopNArticlesByHitsResponse,
  }),
  r({
    operationId: 'top_n_articles_for_domain_timeseries',
    method: 'GET',
    path: '/v1/distribution/articles/top_n_for_domain_timeseries',
    summary: 'Top N articles of a domain per day',
    ...dist,
    query: D.TopNForDomainTimeseriesQuery,
    response: D.TopNArticlesTimeseriesResponse,
  }),
  r({
    operationId: 'find_domains',
    method: 'GET',
    path: '/v1/distribution/domains',
    summary: 'Find domains',
    ...dist,
    query: D.FindDomainsQuery,
    response: D.DomainsPage,
  }),
  r({
    operationId: 'top_n_domains_by_hits',
    method: 'GET',
    path: '/v1/distribution/domains/top_n',
    summary: 'Top N domains by hits',
    ...dist,
    query: D.TopNDomainsQuery,
    response: D.TopNDomainsResponse,
  }),
  r({
    operationId: 'get_domain',
    method: 'GET',
    path: '/v1/distribution/domains/{name}',
    summary: 'Get a domain',
    ...dist,
    params: D.DomainPath,
    response: D.ReadDomainResponse,
  }),
  r({
    operationId: 'get_article_hits',
    method: 'GET',
    path: '/v1/distribution/stats/count',
    summary: 'Hits of articles in a domain',
    ...dist,
    query: D.CountQuery,
    response: D.CountResponse,
  }),
  r({
    operationId: 'get_domain_metrics',
    method: 'GET',
    path: '/v1/distribution/stats/metrics',
    summary: 'Raw event counts per domain',
    ...dist,
    query: D.MetricsQuery,
    response: D.DomainMetricsResponse,
  }),
  r({
    operationId: 'get_domain_metrics_timeseries',
    method: 'GET',
    path: '/v1/distribution/stats/metrics_timeseries',
    summary: 'Raw event counts per day',
    ...dist,
    query: D.MetricsQuery,
    response: D.DomainMetricsTimeseriesResponse,
  }),
  // profile
  r({
    operationId: 'get_user_profile',
    method: 'GET',
    path: '/v1/profiles/me',
    group: 'profile',
    summary: 'Current profile',
    scopes: ['profile'],
    limit: 'profile',
    publisher: false,
    response: P.ProfileResponse,
  }),
  r({
    operationId: 'get_rate_limit_status',
    method: 'GET',
    path: '/v1/profiles/me/limits',
    group: 'profile',
    summary: 'Rate and concurrency state (consumes nothing)',
    scopes: [],
    limit: null,
    publisher: true,
    response: P.RateLimitStatusResponse,
  }),
  // byok
  r({
    operationId: 'get_byok_key',
    method: 'GET',
    path: '/v1/byok/{provider}',
    group: 'byok',
    summary: 'Hint of a stored provider key',
    ...chat,
    plan: 'enterprise',
    params: P.ByokPath,
    response: P.ByokResponse,
  }),
  r({
    operationId: 'upsert_byok_key',
    method: 'PUT',
    path: '/v1/byok/{provider}',
    group: 'byok',
    summary: 'Store a provider key',
    ...chat,
    plan: 'enterprise',
    params: P.ByokPath,
    body: P.ByokUpsertRequest,
    bodyRequired: true,
    response: P.ByokResponse,
  }),
  r({
    operationId: 'delete_byok_key',
    method: 'DELETE',
    path: '/v1/byok/{provider}',
    group: 'byok',
    summary: 'Delete a provider key',
    ...chat,
    plan: 'enterprise',
    params: P.ByokPath,
    response: null,
    status: 204,
  }),
  // forum, wiki
  r({
    operationId: 'search_reddit',
    method: 'GET',
    path: '/v1/reddit/search',
    group: 'forum',
    summary: 'Search forum threads',
    ...news,
    query: P.ForumSearchQuery,
    response: P.ForumSearchResponse,
  }),
  r({
    operationId: 'search_forum',
    method: 'GET',
    path: '/v1/forum/search',
    group: 'forum',
    summary: 'Search forum threads (interface name of /v1/reddit/search)',
    ...news,
    query: P.ForumSearchQuery,
    response: P.ForumSearchResponse,
  }),
  r({
    operationId: 'search_wiki',
    method: 'GET',
    path: '/v1/wiki/search',
    group: 'wiki',
    summary: 'Search encyclopedia content',
    ...news,
    query: P.WikiSearchQuery,
    response: P.WikiSearchResponse,
  }),
  // administration of a running service (extension): the admin token of the data dir, never an API key
  r({
    operationId: 'admin_list_orgs',
    method: 'GET',
    path: '/v1/admin/orgs',
    group: 'admin',
    summary: 'List organizations (admin token)',
    ...admin,
    response: Ad.AdminOrgsResponse,
  }),
  r({
    operationId: 'admin_create_org',
    method: 'POST',
    path: '/v1/admin/orgs',
    group: 'admin',
    summary: 'Create an organization (admin token)',
    ...admin,
    body: Ad.AdminCreateOrgRequest,
    bodyRequired: true,
    response: Ad.AdminOrg,
    status: 201,
  }),
  r({
    operationId: 'admin_list_keys',
    method: 'GET',
    path: '/v1/admin/keys',
    group: 'admin',
    summary: 'List API keys, without the keys (admin token)',
    ...admin,
    response: Ad.AdminKeysResponse,
  }),
  r({
    operationId: 'admin_create_key',
    method: 'POST',
    path: '/v1/admin/keys',
    group: 'admin',
    summary: 'Create an API key; the key is in this answer only (admin token)',
    ...admin,
    body: Ad.AdminCreateKeyRequest,
    bodyRequired: true,
    response: Ad.AdminCreatedKey,
    status: 201,
  }),
  r({
    operationId: 'admin_revoke_key',
    method: 'DELETE',
    path: '/v1/admin/keys/{key_id}',
    group: 'admin',
    summary: 'Revoke an API key (admin token)',
    ...admin,
    params: Ad.AdminKeyPath,
    response: null,
    status: 204,
  }),
  r({
    operationId: 'admin_secrets_status',
    method: 'GET',
    path: '/v1/admin/secrets',
    group: 'admin',
    summary: "The running service's master keys and how many stored sealed values they open (admin token)",
    ...admin,
    response: Ad.AdminSecretsStatus,
  }),
  r({
    operationId: 'admin_secrets_rotate',
    method: 'POST',
    path: '/v1/admin/secrets/rotate',
    group: 'admin',
    summary: 'Re-seal every stored secret under a new master key; the running service uses it at once (admin token)',
    ...admin,
    body: Ad.AdminRotateRequest,
    response: Ad.AdminRotated,
    conflict: true,
  }),
  r({
    operationId: 'admin_simulate_hits',
    method: 'POST',
    path: '/v1/admin/simulate/hits',
    group: 'admin',
    summary: 'Write a synthetic hit history, marked synthetic (admin token)',
    ...admin,
    body: Ad.AdminSimulateHitsRequest,
    response: Ad.AdminSimulated,
    conflict: true,
  }),
  r({
    operationId: 'admin_forum_load',
    method: 'POST',
    path: '/v1/admin/forum/load',
    group: 'admin',
    summary: 'Load forum threads from a file or folder of the service machine into the running service (admin token)',
    ...admin,
    body: Ad.AdminForumLoadRequest,
    bodyRequired: true,
    response: Ad.AdminForumLoaded,
    conflict: true,
  }),
  r({
    operationId: 'admin_wiki_load',
    method: 'POST',
    path: '/v1/admin/wiki/load',
    group: 'admin',
    summary: 'Start loading encyclopedia content into the running service (admin token)',
    ...admin,
    body: P.WikiLoadRequest,
    bodyRequired: true,
    response: P.WikiLoadStatus,
    status: 201,
  }),
  r({
    operationId: 'admin_wiki_load_status',
    method: 'GET',
    path: '/v1/admin/wiki/load',
    group: 'admin',
    summary: 'The current or last encyclopedia load (admin token)',
    ...admin,
    response: P.WikiLoadStatus,
  }),
] as const;

export const ROUTES: RouteDef[] = [...TABLE];

/** The operation ids of the table. */
export type OperationId = (typeof TABLE)[number]['operationId'];
/** The route of one operation, with its schemas' own types. */
export type RouteOf<Op extends OperationId> = Extract<(typeof TABLE)[number], { operationId: Op }>;
type Parsed<D, K extends 'query' | 'params' | 'body', None> = D extends { [k in K]: infer S extends z.ZodType } ? z.output<S> : None;
/** What the service's validation makes of a request to `Op`: its query, path parameters and body, parsed by the route's schemas. */
export interface ParsedRequest<Op extends OperationId> {
  /** a route without a query (or path parameters) has none: `{}` */
  query: Parsed<RouteOf<Op>, 'query', Record<string, never>>;
  params: Parsed<RouteOf<Op>, 'params', Record<string, never>>;
  /** a route without a body: undefined */
  body: Parsed<RouteOf<Op>, 'body', undefined>;
}

export const ROUTES_BY_ID: Record<string, RouteDef> = Object.fromEntries(ROUTES.map((d) => [d.operationId, d]));
export function route(operationId: string): RouteDef {
  const d = ROUTES_BY_ID[operationId];
  if (!d) throw new Error(`unknown operation ${operationId}`);
  return d;
}

/** OAuth2 client-credentials token endpoint (../shared/spec/asknews-facts.md §1.2), served by the service beside the API. */
export const OAUTH_TOKEN_PATH = '/oauth2/token';
export const OAuthTokenResponse = z
  .object({ access_token: z.string(), token_type: z.literal('bearer').or(z.string()), expires_in: z.int(), scope: z.string() })
  .meta({ id: 'OAuthTokenResponse' });
/** Errors of the token endpoint: the `{code, detail}` body plus the RFC 6749 `error` fields. */
export const OAuthErrorModel = z
  .object({ code: z.int(), detail: z.string(), error: z.string(), error_description: z.string() })
  .meta({ id: 'OAuthErrorModel' });
export const OAuthTokenRequest = z.object({
  grant_type: z.literal('client_credentials'),
  scope: z.string().optional(),
});
