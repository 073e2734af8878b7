/** What a route handler receives. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from './store/db.js';
import type { KeyStore } from './auth/keys.js';
import type { Principal } from './auth/principal.js';
import type { RateLimiter } from './limits.js';
import type { ServiceConfig } from './config.js';
import type { RouteDef } from '../spec/index.js';
import type { NewsService } from './news/service.js';
import type { ModelLayer } from './llm/index.js';
import type { ByokStore } from './byok/store.js';
import type { ThreadStore } from './chat/threads.js';
import type { Charts } from './charts/index.js';
import type { AdminAuth } from './admin/token.js';
import type { GraphService } from './graph/index.js';
import type { Web } from './websearch/web.js';
import type { ForumStore } from './forum/store.js';
import type { WikiStore } from './wiki/service.js';
import type { Readiness } from './health.js';

export interface Services {
  db: Db;
  keys: KeyStore;
  limiter: RateLimiter;
  config: ServiceConfig;
  /** the news core; absent only in services built without a corpus store (admin commands) */
  news?: NewsService;
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
  web?: Web;
  /** forum threads and forum search (DeepNews, forecast use_reddit, stories reddit) */
  forum?: ForumStore;
  /** the encyclopedia store and its search (GET /v1/wiki/search, the DeepNews agent) */
  wiki?: WikiStore;
  /** the checks of GET /readyz (health.ts): a part that loads in the background adds its own (default: store and news index) */
  readiness?: Readiness;
}

export interface HandlerCtx {
  route: RouteDef;
  principal: Principal | null;
  /* Parsed by the route's zod schemas; handlers narrow with z.output<typeof Schema>. */
  query: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  params: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  services: Services;
  req: FastifyRequest;
  reply: FastifyReply;
  /** aborted when the client closes the connection before the response ended: pass it into the work (retrieval, provider calls) */
  signal: AbortSignal;
}

export type Handler = (ctx: HandlerCtx) => Promise<unknown> | unknown;
/** A group file exports handlers by operationId. */
export type GroupHandlers = Record<string, Handler>;
