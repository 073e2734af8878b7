/**
 * The DeepNews tool registry: one entry per tool, each with the request source that enables it,
 * a description and input schema (what a model planner is shown), whether the running service
 * can run it (`available`), and its adapter (`run`, a few lines over the capability).
 *
 * | tool             | source                | capability                              |
 * |------------------|-----------------------|-----------------------------------------|
 * | search_news      | asknews               | the news archive (kw / nl / both)       |
 * | search_stories   | asknews               | stories clustered from the archive      |
 * | read_full_text   | full_text_discovery   | full text of found articles (the store) |
 * | search_podcasts  | podcasts              | the archive with podcasts=only          |
 * | make_chart       | charts                | `services.charts`                       |
 * | search_wiki      | wiki                  | `services.wiki`                         |
 * | search_web       | google                | `services.web`                          |
 * | search_forum     | reddit                | `services.forum`                        |
 * | build_graph      | graph                 | `services.graph`                        |
 *
 * `x` and `email` have no data on this service: the agent skips them and says so. A service built
 * without a capability (no news core, say) makes its tool unavailable: the agent says so in its
 * thinking stream and goes on. Every tool honours the run's bounds: the publisher's
 * domains, and the knowledge cutoff (nothing published after it is ever returned).
 * What each tool finds reaches the report's writer as numbered sources (./sources.ts).
 */
import { GraphRequest, StoriesQuery, type ChartResponse, type DeepNewsSource, type SearchParamsParsed, type WebSearchResult } from '../../spec/index.js';
import type { Services } from '../context.js';
import type { NewsArticle } from '../article/model.js';
import { NewsIndex } from '../search/engine.js';
import type { NewsService } from '../news/service.js';
import { searchParamsOf } from '../chat/retrieve.js';
import { listStories, UpdateTextIndex } from '../stories/query.js';
import type { StoryService } from '../stories/service.js';
import { graphFacts, type GraphFound } from './sources.js';

export interface ToolContext {
  services: Services;
  news: NewsService;
  /** a publisher key's own domains (null: any domain) */
  onlyDomains: string[] | null;
  /** the caller's own pages (URL indexing) are seen besides the shared corpus (auth/principal.ts ownerOf) */
  viewer?: string | null;
  /** knowledge cutoff (ms): nothing published after it */
  cutoffMs: number | null;
  /** the request's filter_params as sent */
  filterParams: Record<string, unknown> | null;
}

/** What one tool call brought. */
export interface Found {
  /** articles, best first */
  news: NewsArticle[];
  web: WebSearchResult[];
  charts: ChartResponse[];
  /** knowledge graphs built: their pages and facts */
  graphs: GraphFound[];
  /** article id -> full text (read_full_text) */
  fullText: Map<string, string>;
}

export const emptyFound = (): Found => ({ news: [], web: [], charts: [], graphs: [], fullText: new Map() });

export interface Tool {
  name: string;
  source: DeepNewsSource;
  description: string;
  /** JSON schema of the input */
  parameters: Record<string, unknown>;
  /** true, or why this service cannot run it */
  available(s: Services): true | string;
  run(ctx: ToolContext, input: Record<string, unknown>): Promise<Found>;
}

/** Sources with no data on this service: skipped, said in the thinking stream, never an error. */
export const NO_DATA_SOURCES: ReadonlySet<DeepNewsSource> = new Set<DeepNewsSource>(['x', 'email']);
/** Sources a publisher key may use: the service's own archive (interface, Authentication item 3). */
export const ARCHIVE_SOURCES: ReadonlySet<DeepNewsSource> = new Set<DeepNewsSource>(['asknews', 'full_text_discovery', 'podcasts']);

const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback);
const queryInput = { type: 'object', properties: { query: { type: 'string', description: 'what to look for' } }, required: ['query'] };

/** Articles inside the run's bounds (publisher domains, cutoff). */
export function inBounds(ctx: ToolContext, a: NewsArticle): boolean {
  if (ctx.cutoffMs !== null && a.pubDate.getTime() > ctx.cutoffMs) return false;
  if (ctx.onlyDomains && !ctx.onlyDomains.includes(a.domain)) return false;
  return NewsIndex.visible(a, ctx.viewer);
}

/** One archive search: the request's filter_params (validated as search parameters), the tool's query and method, the cutoff. */
export async function archiveSearch(ctx: ToolContext, query: string, extra: Partial<SearchParamsParsed> = {}): Promise<NewsArticle[]> {
  const { p, given } = searchParamsOf(ctx.filterParams, query, !!ctx.news.embedder);
  const params: SearchParamsParsed = { ...p, ...extra, query };
  if (params.method !== 'kw' && !ctx.news.embedder) params.method = 'kw';
  if (ctx.cutoffMs !== null) {
    const cut = Math.floor(ctx.cutoffMs / 1000);
    params.end_timestamp = params.end_timestamp == null ? cut : Math.min(params.end_timestamp, cut);
    if (params.start_timestamp != null && params.start_timestamp > params.end_timestamp) return [];
    if (!given.has('time_filter')) params.time_filter = 'pub_date';
  }
  const r = await ctx.news.index.search(params, { now: ctx.news.clock(), given, onlyDomains: ctx.onlyDomains, viewer: ctx.viewer });
  return r.docs.filter((a) => inBounds(ctx, a));
}

const storyText = new WeakMap<StoryService, UpdateTextIndex>();
function storyIndex(s: StoryService): UpdateTextIndex {
  let t = storyText.get(s);
  if (!t) storyText.set(s, (t = new UpdateTextIndex(s)));
  return t;
}

/** Threads the forum tool ranks when a cutoff may drop some (forum search has no upper time bound): the best 5 left are kept. */
const OVERFETCH = 200;

/** web-like results published after the cutoff are dropped (an unknown date is kept) */
function webInBounds(ctx: ToolContext, w: WebSearchResult): boolean {
  if (ctx.cutoffMs === null) return true;
  const t = Date.parse(w.published);
  return Number.isNaN(t) || t <= ctx.cutoffMs;
}

export const TOOLS: Tool[] = [
  {
    name: 'search_news',
    source: 'asknews',
    description: 'Search the news archive. method kw (keywords, BM25), nl (meaning, embeddings) or both (fused).',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        method: { type: 'string', enum: ['kw', 'nl', 'both'] },
        n_articles: { type: 'integer', minimum: 1, maximum: 50 },
      },
      required: ['query'],
    },
    available: (s) => (s.news ? true : 'this service has no news archive'),
    run: async (ctx, input) => {
      const method = ['kw', 'nl', 'both'].includes(str(input.method)) ? (str(input.method) as 'kw' | 'nl' | 'both') : undefined;
      const extra: Partial<SearchParamsParsed> = method ? { method } : {};
      if (typeof input.start_timestamp === 'number') extra.start_timestamp = input.start_timestamp;
      if (typeof input.end_timestamp === 'number') extra.end_timestamp = input.end_timestamp;
      // the planner's size for a call, unless the request's filter_params set n_articles
      if (typeof input.n_articles === 'number' && !(ctx.filterParams && 'n_articles' in ctx.filterParams))
        extra.n_articles = Math.min(50, Math.max(1, Math.floor(input.n_articles)));
      return { ...emptyFound(), news: await archiveSearch(ctx, str(input.query), extra) };
    },
  },
  {
    name: 'search_stories',
    source: 'asknews',
    description: 'Find news stories (clusters of articles on one event, with their updates) by query, or read one story by story_id.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, story_id: { type: 'string' } } },
    available: (s) => (s.stories ? true : 'this service has no news archive'),
    run: async (ctx, input) => {
      const stories = ctx.services.stories!;
      const id = str(input.story_id);
      let articles: NewsArticle[];
      if (id) {
        const s = stories.resolve(id)?.story;
        articles = s ? [...s.updates].reverse().flatMap((u) => u.articles.slice(0, 5)) : [];
      } else {
        const p = StoriesQuery.parse({ query: str(input.query), method: 'kw', limit: 3 });
        const { hits } = await listStories(stories, storyIndex(stories), p, ctx.news.clock());
        articles = hits.flatMap((h) => h.matching.flatMap((u) => u.articles.slice(0, 4)));
      }
      const seen = new Set<string>();
      return { ...emptyFound(), news: articles.filter((a) => !seen.has(a.articleId) && seen.add(a.articleId) && inBounds(ctx, a)).slice(0, 10) };
    },
  },
  {
    name: 'read_full_text',
    source: 'full_text_discovery',
    description: 'Read the full text of articles already found (by article_ids).',
    parameters: { type: 'object', properties: { article_ids: { type: 'array', items: { type: 'string' } } }, required: ['article_ids'] },
    available: (s) => (s.news ? true : 'this service has no news archive'),
    run: async (ctx, input) => {
      const ids = (Array.isArray(input.article_ids) ? input.article_ids : [])
        .filter((x): x is string => typeof x === 'string' && /^[0-9a-f-]{36}$/i.test(x))
        .slice(0, 10);
      const rows = ids.length ? await ctx.news.store.byIds(ids, true) : [];
      const out = emptyFound();
      for (const a of rows) {
        if (!inBounds(ctx, a)) continue;
        out.news.push({ ...a, fullText: null });
        if (a.fullText) out.fullText.set(a.articleId, a.fullText);
      }
      return out;
    },
  },
  {
    name: 'search_podcasts',
    source: 'podcasts',
    description: 'Search podcast episodes in the archive.',
    parameters: queryInput,
    available: (s) => (s.news ? true : 'this service has no news archive'),
    run: async (ctx, input) => ({ ...emptyFound(), news: await archiveSearch(ctx, str(input.query), { podcasts: 'only' }) }),
  },
  {
    name: 'make_chart',
    source: 'charts',
    description: 'Chart how coverage of a topic develops over time.',
    parameters: queryInput,
    available: (s) => (s.charts ? true : 'this service has no charts'),
    run: async (ctx, input) => {
      const chart = await ctx.services.charts!.chart(str(input.query), { cutoff: ctx.cutoffMs });
      return { ...emptyFound(), charts: [chart] };
    },
  },
  {
    name: 'search_wiki',
    source: 'wiki',
    description: 'Search encyclopedia articles for background.',
    parameters: queryInput,
    available: (s) => (s.wiki ? true : 'this service has no encyclopedia store'),
    run: async (ctx, input) => {
      const docs = await ctx.services.wiki!.search(str(input.query), { limit: 5 });
      const web = docs.map(
        (d): WebSearchResult => ({
          title: d.title,
          url: d.url,
          source: 'wikipedia',
          published: d.timestamp,
          key_points: [d.content.slice(0, 300)],
          raw_text: d.content,
          as_string_key: null,
        }),
      );
      return { ...emptyFound(), web: web.filter((w) => webInBounds(ctx, w)) };
    },
  },
  {
    name: 'search_web',
    source: 'google',
    description: 'Search the web.',
    parameters: queryInput,
    available: (s) => (s.web ? true : 'this service has no web index'),
    run: async (ctx, input) => {
      const ans = await ctx.services.web!.search(
        {
          queries: [str(input.query)],
          ...(ctx.cutoffMs !== null ? { end_datetime: new Date(ctx.cutoffMs).toISOString() } : {}),
        },
        ctx.viewer ?? null,
      );
      return { ...emptyFound(), web: ans.as_dicts.slice(0, 5).filter((w) => webInBounds(ctx, w)) };
    },
  },
  {
    name: 'search_forum',
    source: 'reddit',
    description: 'Search discussion forum threads.',
    parameters: queryInput,
    available: (s) => (s.forum ? true : 'this service has no forum store'),
    run: async (ctx, input) => {
      const threads = await ctx.services.forum!.search(
        {
          keywords: [str(input.query)],
          n_threads: ctx.cutoffMs === null ? 5 : OVERFETCH,
          method: ctx.news.embedder ? 'nl' : 'kw',
          time_filter: 'all',
          sort: 'relevance',
        },
        { now: ctx.news.clock() },
      );
      const web = threads.map(
        (t): WebSearchResult => ({
          title: t.title,
          url: t.url,
          source: `reddit r/${t.subreddit_name}`,
          published: t.date,
          key_points: t.key_takeaways.length ? t.key_takeaways : [t.summary].filter(Boolean),
          raw_text: t.summary || t.body,
          as_string_key: null,
        }),
      );
      return { ...emptyFound(), web: web.filter((w) => webInBounds(ctx, w)).slice(0, 5) };
    },
  },
  {
    name: 'build_graph',
    source: 'graph',
    description: 'Build a knowledge graph of the entities of a topic.',
    parameters: queryInput,
    available: (s) => (s.graph ? true : 'this service has no graph builder'),
    run: async (ctx, input) => {
      // the graph of the articles the archive search finds, within the cutoff; its page by capability URL
      const asked = ctx.filterParams?.end_timestamp;
      const cut = ctx.cutoffMs === null ? null : Math.floor(ctx.cutoffMs / 1000);
      const cutoff = cut === null ? {} : { end_timestamp: typeof asked === 'number' ? Math.min(asked, cut) : cut, time_filter: 'pub_date' };
      const body = GraphRequest.parse({ query: str(input.query), visualize_with: 'html' });
      const g = await ctx.services.graph!.build(body, { principal: null, rawFilterParams: { ...(ctx.filterParams ?? {}), ...cutoff } });
      if (!g.built.graph.nodes.length || !g.articles.length) return emptyFound();
      const query = str(input.query);
      // dated by the newest article it was built from (never after the cutoff)
      const published = new Date(Math.max(...g.articles.map((a) => a.pubDate.getTime())));
      return {
        ...emptyFound(),
        graphs: [{ uri: `/v1/news/graph/${g.stored.graphId}/view`, query, facts: graphFacts(g.built.graph, query, g.articles.length), published }],
      };
    },
  },
];

export const toolByName = (name: string): Tool | undefined => TOOLS.find((t) => t.name === name);
