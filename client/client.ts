/**
 * NewsClient: one typed method per endpoint of the interface, on an undici Pool. Every call goes
 * through its limiter group (proactive), retries 429 and 5xx with exponential backoff and jitter
 * honouring Retry-After, and parses the response with spec/ (extra fields are kept).
 */
import { Pool } from 'undici';
import type { z } from 'zod';
import * as S from '../spec/index.js';
import { DEFAULT_LIMITS, OAUTH_TOKEN_PATH, route, type LimitGroup, type LimitSpec, type RouteDef } from '../spec/index.js';
import { GroupLimiter, sleep } from './limiter.js';
import { ApiError, NetworkError, ResponseShapeError, apiErrorFrom } from './errors.js';
import { sseData } from './sse.js';

type In<T extends z.ZodType> = z.input<T>;
type Out<T extends z.ZodType> = z.output<T>;

export interface RetryOptions {
  /** retries after the first attempt (default 5) */
  max: number;
  /** first backoff in ms (default 500), doubled per attempt */
  baseDelayMs: number;
  /** cap of one backoff in ms (default 30000) */
  maxDelayMs: number;
}

export type ClientEvent =
  | { type: 'request'; operationId: string; attempt: number }
  | { type: 'response'; operationId: string; status: number; ms: number; attempt: number }
  /** `reason`: the network error, or the status with the API's code and detail */
  | { type: 'retry'; operationId: string; status: number | null; delayMs: number; attempt: number; reason: string }
  | { type: 'shape-mismatch'; operationId: string; issues: unknown[] }
  /** what an answer says it cost (its `usage.credits`: a search's credits, a quarter of them on a try_cache hit) */
  | { type: 'usage'; operationId: string; credits: number };

export interface NewsClientOptions {
  /** default: $NEWSFLOW_API_URL, else http://127.0.0.1:8080 */
  baseUrl?: string;
  /** default: $NEWSFLOW_API_KEY */
  apiKey?: string;
  /** OAuth2 client credentials instead of an API key (../shared/spec/asknews-facts.md §1.2). */
  oauth?: { clientId: string; clientSecret: string; tokenUrl?: string; scopes?: string[] };
  /** Per limiter group; `false` turns the group's limiter off. Default: the interface limits. */
  limits?: Partial<Record<LimitGroup, LimitSpec | false>>;
  retry?: Partial<RetryOptions>;
  /** per request, default 60000 */
  timeoutMs?: number;
  /** strict: throw on a response that does not match spec/; lenient (default): report and return it; off */
  validate?: 'strict' | 'lenient' | 'off';
  /** pool connections (default 16) */
  connections?: number;
  onEvent?: (e: ClientEvent) => void;
  env?: NodeJS.ProcessEnv;
}

interface CallArgs {
  query?: Record<string, unknown>;
  params?: Record<string, string>;
  body?: unknown;
}

/** Arrays become repeated keys (`k=a&k=b`), as the SDKs send them (../shared/spec/asknews-facts.md §3.1). */
export function toQueryString(q: Record<string, unknown> | undefined): string {
  if (!q) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) sp.append(k, String(item));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

export class NewsClient {
  readonly baseUrl: string;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly apiKey?: string;
  private readonly limiters = new Map<LimitGroup, GroupLimiter | null>();
  private readonly retry: RetryOptions;
  private readonly validate: 'strict' | 'lenient' | 'off';
  private token?: { value: string; until: number };

  constructor(private readonly opts: NewsClientOptions = {}) {
    const env = opts.env ?? process.env;
    // an empty NEWSFLOW_API_URL counts as unset
    this.baseUrl = (opts.baseUrl || env.NEWSFLOW_API_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
    const u = new URL(this.baseUrl);
    // Our paths carry /v1; a base URL that ends in /v1 (as the AskNews CLI uses) is accepted too.
    this.prefix = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.apiKey = opts.apiKey ?? env.NEWSFLOW_API_KEY;
    if (!this.apiKey && !opts.oauth) {
      throw new Error('NewsClient needs an API key: pass { apiKey } or set NEWSFLOW_API_KEY (or pass { oauth })');
    }
    const timeout = opts.timeoutMs ?? 60_000;
    this.pool = new Pool(u.origin, { connections: opts.connections ?? 16, headersTimeout: timeout, bodyTimeout: timeout });
    this.retry = { max: 5, baseDelayMs: 500, maxDelayMs: 30_000, ...opts.retry };
    this.validate = opts.validate ?? 'lenient';
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private limiter(group: LimitGroup | null): GroupLimiter | null {
    if (!group) return null;
    if (!this.limiters.has(group)) {
      const o = this.opts.limits?.[group];
      this.limiters.set(group, o === false ? null : new GroupLimiter(o ?? DEFAULT_LIMITS[group]));
    }
    return this.limiters.get(group)!;
  }

  private async authHeader(forceNew = false): Promise<string> {
    if (!this.opts.oauth) return `Bearer ${this.apiKey}`;
    if (!forceNew && this.token && this.token.until > Date.now()) return `Bearer ${this.token.value}`;
    const o = this.opts.oauth;
    const basic = Buffer.from(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(o.clientSecret)}`).toString('base64');
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (o.scopes?.length) form.set('scope', o.scopes.join(' '));
    const tokenUrl = o.tokenUrl ?? `${this.baseUrl.replace(/\/v1$/, '')}${OAUTH_TOKEN_PATH}`;
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
    if (!res.ok || !body.access_token) throw apiErrorFrom(res.status, body, 'oauth2_token', {});
    this.token = { value: body.access_token, until: Date.now() + ((body.expires_in ?? 3600) - 10) * 1000 };
    return `Bearer ${this.token.value}`;
  }

  private backoff(attempt: number): number {
    const exp = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return exp / 2 + Math.random() * (exp / 2); // "equal jitter"
  }

  /** One HTTP exchange, inside the group's limiter. */
  private async send(d: RouteDef, args: CallArgs, accept: string, forceToken: boolean) {
    let path = d.path;
    for (const [k, v] of Object.entries(args.params ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
    const headers: Record<string, string> = { authorization: await this.authHeader(forceToken), accept };
    let body: string | undefined;
    if (args.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(args.body);
    }
    return this.pool.request({ method: d.method, path: `${this.prefix}${path}${toQueryString(args.query)}`, headers, body });
  }

  /** Call an operation of spec/routes.ts; returns the raw response stream for SSE, else parsed JSON. */
  private async exchange(operationId: string, args: CallArgs, stream = false) {
    const d = route(operationId);
    const lim = this.limiter(d.limit);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      this.opts.onEvent?.({ type: 'request', operationId, attempt });
      const t0 = performance.now();
      let res: Awaited<ReturnType<Pool['request']>>;
      try {
        const go = () => this.send(d, args, stream ? 'text/event-stream' : 'application/json', false);
        res = await (lim ? lim.run(go) : go());
      } catch (e) {
        // No response at all: only reads are safe to repeat.
        if (d.method === 'GET' && attempt < this.retry.max) {
          const delayMs = this.backoff(attempt);
          this.opts.onEvent?.({ type: 'retry', operationId, status: null, delayMs, attempt, reason: (e as Error).message });
          await sleep(delayMs);
          continue;
        }
        throw new NetworkError(`${operationId}: ${(e as Error).message}`, e);
      }
      const status = res.statusCode;
      this.opts.onEvent?.({ type: 'response', operationId, status, ms: performance.now() - t0, attempt });
      const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
      if (status < 400) {
        if (stream && String(headers['content-type'] ?? '').startsWith('text/event-stream')) return { d, stream: res.body };
        const text = await res.body.text();
        const json = text ? JSON.parse(text) : null;
        const credits = (json as { usage?: { credits?: unknown } } | null)?.usage?.credits;
        if (typeof credits === 'number' && Number.isFinite(credits)) this.opts.onEvent?.({ type: 'usage', operationId, credits });
        return { d, json };
      }
      const text = await res.body.text();
      let errBody: unknown = text;
      try {
        errBody = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      if (status === 401 && this.opts.oauth && !refreshed) {
        refreshed = true; // ../shared/spec/asknews-facts.md §1.2: drop the token, fetch once more, retry once
        await this.authHeader(true);
        attempt--;
        continue;
      }
      // 501 Not Implemented and 505 will not change on a retry
      const retryable = status === 429 || (status >= 500 && status !== 501 && status !== 505);
      if (retryable && attempt < this.retry.max) {
        const ra = Number(headers['retry-after']);
        const raMs = Number.isFinite(ra) && ra >= 0 ? ra * 1000 : 0;
        const delayMs = Math.max(raMs, this.backoff(attempt));
        if (status === 429 && lim) lim.bucket.pauseFor(delayMs);
        const { code, detail } = apiErrorFrom(status, errBody, operationId, headers);
        const reason = `HTTP ${status} (code ${code}): ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
        this.opts.onEvent?.({ type: 'retry', operationId, status, delayMs, attempt, reason });
        await sleep(delayMs);
        continue;
      }
      throw apiErrorFrom(status, errBody, operationId, headers);
    }
  }

  private check<T>(operationId: string, schema: z.ZodType | null, json: unknown): T {
    if (!schema || this.validate === 'off') return json as T;
    const r = schema.safeParse(json);
    if (r.success) return r.data as T;
    if (this.validate === 'strict') {
      throw new ResponseShapeError(`${operationId}: response does not match the spec: ${JSON.stringify(r.error.issues.slice(0, 3))}`);
    }
    this.opts.onEvent?.({ type: 'shape-mismatch', operationId, issues: r.error.issues });
    return json as T;
  }

  /** Generic call by operationId. */
  async call<T = unknown>(operationId: string, args: CallArgs = {}): Promise<T> {
    const { d, json } = await this.exchange(operationId, args);
    return this.check<T>(operationId, d.response, json);
  }

  private async *streamCall<T>(operationId: string, body: Record<string, unknown>, schema: z.ZodType): AsyncGenerator<T> {
    const r = await this.exchange(operationId, { body: { ...body, stream: true } }, true);
    if (!r.stream) {
      // Server answered JSON though a stream was asked: yield it as one event.
      yield this.check<T>(operationId, r.d.response, r.json);
      return;
    }
    for await (const data of sseData(r.stream)) {
      const ev = JSON.parse(data) as { error?: { message: string; code: number } };
      // an in-stream error (spec/chat.ts `StreamError`): its code is status x 1000 (502000: a model provider failed)
      if (ev.error) throw new ApiError(Math.floor(ev.error.code / 1000) || 500, ev.error.code, ev.error.message, operationId);
      yield this.check<T>(operationId, schema, ev);
    }
  }

  // ---- news
  ping() {
    return this.call<Out<typeof S.PingResponse>>('ping');
  }
  searchNews(q: In<typeof S.SearchParams> = {}) {
    return this.call<S.SearchResponse>('search_news', { query: q });
  }
  getArticles(q: In<typeof S.ArticlesQuery>) {
    return this.call<Out<typeof S.ArticlesResponse>>('get_articles', { query: q });
  }
  getArticle(articleId: string, q: In<typeof S.ArticleQuery> = {}) {
    return this.call<S.SearchResponseDictItem>('get_article', { params: { article_id: articleId }, query: q });
  }
  buildGraph(body: In<typeof S.GraphRequest> = {}) {
    return this.call<Out<typeof S.GraphResponse>>('build_graph', { body });
  }
  indexUrls(body: In<typeof S.IndexUrlsRequest>) {
    return this.call<Out<typeof S.IndexUrlsResponse>>('index_urls', { body });
  }
  getIndexCounts(q: In<typeof S.IndexCountsQuery> = {}) {
    return this.call<Out<typeof S.IndexCountsResponse>>('get_index_counts', { query: q });
  }
  // ---- chat
  chatCompletions(body: S.ChatCompletionRequest) {
    return this.call<S.ChatCompletionResponse>('get_chat_completions', { body: { ...body, stream: false } });
  }
  streamChatCompletions(body: S.ChatCompletionRequest) {
    return this.streamCall<Out<typeof S.ChatCompletionChunk>>('get_chat_completions', body, S.ChatCompletionChunk);
  }
  deepNews(body: S.DeepNewsRequest) {
    return this.call<S.DeepNewsResponse>('deep_news', { body: { ...body, stream: false } });
  }
  streamDeepNews(body: S.DeepNewsRequest) {
    return this.streamCall<Out<typeof S.DeepNewsStreamEvent>>('deep_news', body, S.DeepNewsStreamEvent);
  }
  listModels() {
    return this.call<Out<typeof S.ModelsResponse>>('list_models');
  }
  listDeepNewsModels() {
    return this.call<Out<typeof S.DeepNewsModelsResponse>>('list_deepnews_models');
  }
  autofilter(q: In<typeof S.AutofilterQuery>) {
    return this.call<Out<typeof S.AutofilterResponse>>('autofilter', { query: q });
  }
  getForecast(q: In<typeof S.ForecastQuery>) {
    return this.call<Out<typeof S.ForecastResponse>>('get_forecast', { query: q });
  }
  webSearch(q: In<typeof S.WebSearchQuery>) {
    return this.call<Out<typeof S.WebSearchResponse>>('live_web_search', { query: q });
  }
  // ---- alerts
  getAlerts(q: In<typeof S.AlertsQuery> = {}) {
    return this.call<Out<typeof S.AlertsPage>>('get_alerts', { query: q });
  }
  createAlert(body: S.CreateAlertRequest) {
    return this.call<S.AlertResponse>('create_alert', { body });
  }
  getAllAlertLogs(q: In<typeof S.AlertLogsQuery> = {}) {
    return this.call<Out<typeof S.AlertLogsPage>>('get_all_alert_logs', { query: q });
  }
  getAlert(alertId: string) {
    return this.call<S.AlertResponse>('get_alert', { params: { alert_id: alertId } });
  }
  updateAlert(alertId: string, body: In<typeof S.UpdateAlertRequest>) {
    return this.call<S.AlertResponse>('put_alert', { params: { alert_id: alertId }, body });
  }
  deleteAlert(alertId: string) {
    return this.call<null>('delete_alert', { params: { alert_id: alertId } });
  }
  getAlertLogs(alertId: string, q: In<typeof S.OneAlertLogsQuery> = {}) {
    return this.call<Out<typeof S.AlertLogsPage>>('get_alert_logs', { params: { alert_id: alertId }, query: q });
  }
  runAlert(alertId: string, q: In<typeof S.AlertRunQuery> = {}) {
    return this.call<S.AlertResponse>('run_alert', { params: { alert_id: alertId }, query: q });
  }
  // ---- stories
  getStories(q: In<typeof S.StoriesQuery> = {}) {
    return this.call<S.StoriesResponse>('get_stories', { query: q });
  }
  getStory(storyId: string, q: In<typeof S.StoryQuery> = {}) {
    return this.call<S.StoryResponse>('get_story', { params: { story_id: storyId }, query: q });
  }
  // ---- distribution
  hitShare(q: In<typeof S.HitShareQuery>) {
    return this.call<S.HitShareResponse>('domain_hit_share', { query: q });
  }
  topNForDomains(q: In<typeof S.TopNForDomainsQuery>) {
    return this.call<S.TopNForDomainsResponse>('top_n_articles_for_domains', { query: q });
  }
  domainHitsSurface(q: In<typeof S.MonthQuery>) {
    return this.call<Out<typeof S.DomainHitsSurfaceResponse>>('get_domain_hits_surface', { query: q });
  }
  domainHitsSurfaceTimewindow(q: In<typeof S.MonthQuery>) {
    return this.call<Out<typeof S.DomainHitsSurfaceTimeWindowResponse>>('get_domain_hits_surface_timewindow', { query: q });
  }
  domainQueries(q: In<typeof S.DomainQueriesQuery>) {
    return this.call<Out<typeof S.DomainQueriesResponse>>('get_domain_queries', { query: q });
  }
  topNArticles(q: In<typeof S.TopNArticlesQuery>) {
    return this.call<Out<typeof S.TopNArticlesByHitsResponse>>('top_n_articles_by_hits', { query: q });
  }
  topNForDomainTimeseries(q: In<typeof S.TopNForDomainTimeseriesQuery>) {
    return this.call<Out<typeof S.TopNArticlesTimeseriesResponse>>('top_n_articles_for_domain_timeseries', { query: q });
  }
  findDomains(q: In<typeof S.FindDomainsQuery> = {}) {
    return this.call<Out<typeof S.DomainsPage>>('find_domains', { query: q });
  }
  topNDomains(q: In<typeof S.TopNDomainsQuery>) {
    return this.call<Out<typeof S.TopNDomainsResponse>>('top_n_domains_by_hits', { query: q });
  }
  getDomain(name: string) {
    return this.call<Out<typeof S.ReadDomainResponse>>('get_domain', { params: { name } });
  }
  articleHitsCount(q: In<typeof S.CountQuery>) {
    return this.call<Out<typeof S.CountResponse>>('get_article_hits', { query: q });
  }
  domainMetrics(q: In<typeof S.MetricsQuery>) {
    return this.call<S.DomainMetricsResponse>('get_domain_metrics', { query: q });
  }
  domainMetricsTimeseries(q: In<typeof S.MetricsQuery>) {
    return this.call<Out<typeof S.DomainMetricsTimeseriesResponse>>('get_domain_metrics_timeseries', { query: q });
  }
  // ---- profile, byok, forum, wiki
  getProfile() {
    return this.call<S.ProfileResponse>('get_user_profile');
  }
  getLimits() {
    return this.call<S.RateLimitStatusResponse>('get_rate_limit_status');
  }
  getByokKey(provider: 'anthropic' | 'google') {
    return this.call<Out<typeof S.ByokResponse>>('get_byok_key', { params: { provider } });
  }
  upsertByokKey(provider: 'anthropic' | 'google', apiKey: string) {
    return this.call<Out<typeof S.ByokResponse>>('upsert_byok_key', { params: { provider }, body: { api_key: apiKey } });
  }
  deleteByokKey(provider: 'anthropic' | 'google') {
    return this.call<null>('delete_byok_key', { params: { provider } });
  }
  searchForum(q: In<typeof S.ForumSearchQuery>) {
    return this.call<Out<typeof S.ForumSearchResponse>>('search_reddit', { query: q });
  }
  searchWiki(q: In<typeof S.WikiSearchQuery> = {}) {
    return this.call<Out<typeof S.WikiSearchResponse>>('search_wiki', { query: q });
  }

  // ---- paginators
  /** Offset paging over search: yields pages until one comes back short. */
  async *searchPages(q: In<typeof S.SearchParams> = {}, opts: { maxPages?: number } = {}): AsyncGenerator<S.SearchResponse> {
    const size = q.n_articles ?? 10;
    let offset = typeof q.offset === 'number' ? q.offset : 0;
    for (let n = 0; opts.maxPages === undefined || n < opts.maxPages; n++) {
      const page = await this.searchNews({ ...q, return_type: q.return_type ?? 'dicts', offset });
      yield page;
      const got = page.as_dicts?.length ?? 0;
      if (got < size) return;
      offset = typeof page.offset === 'number' && page.offset > offset ? page.offset : offset + got;
    }
  }
  async *searchArticles(q: In<typeof S.SearchParams> = {}, opts: { maxPages?: number } = {}): AsyncGenerator<S.SearchResponseDictItem> {
    for await (const page of this.searchPages(q, opts)) yield* page.as_dicts ?? [];
  }
  /** Offset paging over stories. */
  async *storiesPages(q: In<typeof S.StoriesQuery> = {}, opts: { maxPages?: number } = {}): AsyncGenerator<S.StoriesResponse> {
    const size = q.limit ?? 10;
    let offset = typeof q.offset === 'number' ? q.offset : Number(q.offset ?? 0) || 0;
    for (let n = 0; opts.maxPages === undefined || n < opts.maxPages; n++) {
      const page = await this.getStories({ ...q, offset });
      yield page;
      if (page.stories.length < size) return;
      offset += page.stories.length;
    }
  }
  /** Walks top_n_for_domains from `page` while next_page is set; the empty last page is yielded too. */
  async *topNForDomainsPages(q: In<typeof S.TopNForDomainsQuery>): AsyncGenerator<S.TopNForDomainsResponse> {
    let page: number | null = q.page ?? 1;
    while (page !== null) {
      const res: S.TopNForDomainsResponse = await this.topNForDomains({ ...q, page });
      yield res;
      page = res.next_page ?? null;
    }
  }

  // urls
  /** GET /v1/news/index_urls/{job_id}: a URL indexing job with each URL's status and reason (an extension of this server). */
  getIndexUrlsJob(jobId: string) {
    return this.call<Out<typeof S.IndexUrlsJob>>('get_index_urls_job', { params: { job_id: jobId } });
  }
  /**
   * index_urls, then poll the job (every `pollMs`, default 1000) until it has finished or
   * `timeoutMs` (default 10 minutes) passed; `onProgress` sees each view. Returns the last view.
   */
  async indexUrlsAndWait(
    body: In<typeof S.IndexUrlsRequest>,
    opts: { pollMs?: number; timeoutMs?: number; onProgress?: (job: Out<typeof S.IndexUrlsJob>) => void } = {},
  ): Promise<Out<typeof S.IndexUrlsJob>> {
    const started = await this.indexUrls(body);
    if (!started.job_id) throw new Error(`index_urls answered no job id (status ${started.status})`);
    const until = Date.now() + (opts.timeoutMs ?? 600_000);
    for (;;) {
      const job = await this.getIndexUrlsJob(started.job_id);
      opts.onProgress?.(job);
      if (job.finished_at || Date.now() > until) return job;
      await sleep(opts.pollMs ?? 1000);
    }
  }

  // charts
  /** POST /v1/chat/charts: a question charted from index counts (plotly JSON in chart_json). */
  charts(body: In<typeof S.CreateChartRequest>) {
    return this.call<Out<typeof S.ChartResponse>>('create_charts_endpoint', { body });
  }
  // forum
  /**
   * Forum search at the interface's path GET /v1/forum/search (searchForum calls the SDKs' path
   * /v1/reddit/search; both answer the same): threads as dicts, a prompt-ready string, or both.
   */
  forumSearch(q: In<typeof S.ForumSearchQuery>) {
    return this.call<Out<typeof S.ForumSearchResponse>>('search_forum', { query: q });
  }
  // forecast
  /** GET /v1/chat/forecast: the forecast with its evidence; offline, the judgement fields say no model judged (probability -1). */
  forecast(q: In<typeof S.ForecastQuery>) {
    return this.call<Out<typeof S.ForecastResponse>>('get_forecast', { query: q });
  }
}
