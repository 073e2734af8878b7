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
import type { AdminAuth } from './admin/token.js';
import type { GraphService } from './graph/index.js';

export interface Services {
  db: Db;
  keys: KeyStore;
  limiter: RateLimiter;
  config: ServiceConfig;
  /** the news core; absent only in services built without a corpus store (admin commands) */
  news?: NewsService;
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
}

export type Handler = (ctx: HandlerCtx) => Promise<unknown> | unknown;
/** A group file exports handlers by operationId. */
export type GroupHandlers = Record<string, Handler>;
