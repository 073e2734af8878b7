/** What a route handler receives. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from './store/db.js';
import type { KeyStore } from './auth/keys.js';
import type { Principal } from './auth/principal.js';
import type { RateLimiter } from './limits.js';
import type { ServiceConfig } from './config.js';
import type { OperationId, ParsedRequest, RouteDef } from '../spec/index.js';
import type { NewsService } from './news/service.js';
import type { NewsSeeder } from './news/seed.js';
import type { StoryService } from './stories/service.js';
import type { ModelLayer } from './llm/index.js';
import type { ByokStore } from './byok/store.js';
import type { ThreadStore } from './chat/threads.js';
import type { Charts } from './charts/index.js';
import type { AdminAuth } from './admin/token.js';
import type { GraphService } from './graph/service.js';
import type { WebSearchService } from './websearch/service.js';
import type { ForumService } from './forum/service.js';
import type { WikiService } from './wiki/service.js';
import type { Readiness } from './health.js';

export interface Services {
  db: Db;
  keys: KeyStore;
  limiter: RateLimiter;
  config: ServiceConfig;
  /** the news core; absent only in services built without a corpus store (admin commands) */
  news?: NewsService;
  /** corpus seeding and replay into the news core; absent with it */
  seeder?: NewsSeeder;
  /** stories: articles clustered as they become searchable (told by `news.onIndexed`); absent without the news core */
  stories?: StoryService;
  /** charts of index counts (POST /v1/chat/charts, the DeepNews charts tool) */
  charts?: Charts;
  /** the model layer (extractive, OpenAI-compatible, Anthropic, Gemini) */
  llm: ModelLayer;
  /** BYOK provider keys, sealed at rest */
  byok: ByokStore;
  /** chat threads */
  threads: ThreadStore;
  /** the admin token of the data dir (admin routes) */
  admin: AdminAuth;
  /** knowledge graphs built from searches (POST /v1/news/graph, agent tools); absent without a news store */
  graph?: GraphService;
  /** URL indexing jobs, the web index and web search (`web.search(params, viewer)`); absent without the news core */
  web?: WebSearchService;
  /** forum threads and forum search (DeepNews, forecast use_reddit, stories reddit) */
  forum?: ForumService;
  /** the encyclopedia store and its search (GET /v1/wiki/search, the DeepNews agent) */
  wiki?: WikiService;
  /** the checks of GET /readyz (health.ts): a part that loads in the background adds its own (default: store and news index) */
  readiness?: Readiness;
}

/** What every handler receives, whatever its route: the caller, the services, the request and reply. */
export interface RequestCtx {
  route: RouteDef;
  principal: Principal | null;
  services: Services;
  req: FastifyRequest;
  reply: FastifyReply;
  /** aborted when the client closes the connection before the response ended: pass it into the work (retrieval, provider calls) */
  signal: AbortSignal;
}

/**
 * What the handler of operation `Op` receives: besides the request context, its query, path
 * parameters and body, parsed by the route's zod schemas (service/app.ts) before it runs and
 * typed by them (spec/routes.ts `ParsedRequest`).
 */
export interface HandlerCtx<Op extends OperationId = OperationId> extends RequestCtx, ParsedRequest<Op> {}

export type Handler<Op extends OperationId = OperationId> = (ctx: HandlerCtx<Op>) => Promise<unknown> | unknown;
/** A group file exports handlers by operationId, each typed by its own route. */
export type GroupHandlers = { [Op in OperationId]?: Handler<Op> };

/**
 * The handler of a route of the table, called with a request its schemas parsed (service/app.ts):
 * the one place where the operation id is a string at run time.
 */
export function handlerOf(handlers: GroupHandlers, operationId: string): Handler | undefined {
  return (handlers as Record<string, Handler | undefined>)[operationId];
}
