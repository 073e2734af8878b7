/**
 * The API server: every route of spec/routes.ts with authentication, scope, organization and
 * plan rules, validation, rate limits and `{code, detail}` errors.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ERROR_CODES, OAUTH_TOKEN_PATH, ROUTES, buildOpenApi, planAtLeast, type RouteDef } from '../spec/index.js';
import type { Principal } from './auth/principal.js';
import { HttpError, badRequest, forbidden, methodNotAllowed, notFound, notImplemented, unauthorized } from './errors/index.js';
import { checkInputLimits, coerceQuery, parseOrThrow } from './validation.js';
import { HANDLERS } from './routes/index.js';
import { handlerOf, type GroupHandlers, type HandlerCtx, type Services } from './context.js';
import { docsPage } from './docs.js';
import { AllowTable } from './allow.js';
import { webhookRefusedHosts } from './alerts/webhooks.js';
import { clientErrorHandler, frameworkErrors } from './client-errors.js';
import { ServiceMetrics } from './metrics.js';
import { Readiness } from './health.js';

/** `/v1/news/{article_id}` -> `/v1/news/:article_id` */
const toFastifyPath = (p: string) => p.replace(/\{([^}]+)\}/g, ':$1');

/** Every path the app serves: the route table and the app's own (OpenAPI, docs, OAuth token). */
const ALLOW = new AllowTable([
  ...ROUTES,
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/docs' },
  { method: 'POST', path: OAUTH_TOKEN_PATH },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz' },
]);

/**
 * Fastify's own log lines, with one change: a client that hangs up on a streamed answer (SSE
 * chat or DeepNews) is routine, logged at debug, not as Fastify's info "stream closed prematurely".
 */
class ServiceLogController extends LogController {
  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') {
      if (!this.isLogDisabled(request)) reply.log.debug('the client closed the stream before its end');
      return;
    }
    super.streamError(error, request, reply, metadata);
  }
}

export interface AppOptions {
  handlers?: GroupHandlers;
  logger?: boolean | object;
  /** Extra hooks or plugins, registered before the routes (metrics, tracing, tests). */
  configure?: (app: FastifyInstance) => void;
  /** the Prometheus metrics of GET /metrics (default: a registry of this app's own, with the process's metrics) */
  metrics?: ServiceMetrics;
}

/** The readiness checks of a service built without any: the store is open and the news index loaded. */
export function defaultReadiness(services: Services): Readiness {
  const r = new Readiness();
  r.add('store', () => ({ ready: !!services.db }));
  r.add('index', () => {
    const news = services.news;
    if (!news) return { ready: false, detail: 'no news store opened' };
    // a background open: the index is still loading (its progress: articles placed of those stored)
    if (!news.ready) return { ready: false, detail: `the news index is loading: ${news.progress.placed} of ${news.progress.indexed} articles placed` };
    return { ready: true };
  });
  return r;
}

export async function buildApp(services: Services, opts: AppOptions = {}): Promise<FastifyInstance> {
  const handlers = { ...HANDLERS, ...(opts.handlers ?? {}) };
  const app = Fastify({
    logger: opts.logger ?? { level: services.config.logLevel },
    bodyLimit: 10 * 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: 'x-request-id',
    // Static routes beat parametric ones (/v1/chat/alerts/logs vs /{alert_id}).
    // Path ids may be long (a domain name has up to 253 characters, a story's url-safe title as
    // many as its title): the router's default cap of 100 answered 414. 16 KiB is Node's limit
    // of the request head, so no id the server can receive is refused here; the route's schema
    // and lookup decide (422 or 404).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    // errors raised below the routes get the {code, detail} body too
    clientErrorHandler,
    frameworkErrors,
    logController: new ServiceLogController(),
  });

  opts.configure?.(app);

  // metrics of every answered request, by the route's template (404s and 405s: one "unmatched")
  const metrics = opts.metrics ?? new ServiceMetrics(services.limiter);
  app.addHook('onResponse', async (req, reply) => {
    metrics.observe(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime);
  });
  const readiness = (services.readiness ??= defaultReadiness(services));

  // JSON: keys named __proto__ (and constructor.prototype) are dropped like any unknown key, not
  // refused; an empty body is no body (DELETE with Content-Type: application/json, as several
  // clients send it), so a route that needs one answers 422 "field required".
  const json = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    return json(req, body as string, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (connectionGone(reply) || reply.raw.headersSent) {
      // the client left (its work was aborted) or the answer is under way: nobody to answer
      req.log.debug({ err }, 'request ended after its client left or its answer started');
      return reply.hijack();
    }
    if (err instanceof HttpError) {
      return reply.code(err.status).headers(err.headers).send(err.body());
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: bad JSON, empty body, wrong content type, body too large
      return reply.code(status).send({ code: status * 1000, detail: err.message });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ code: ERROR_CODES.internal, detail: 'Internal Server Error' });
  });

  // A method the path does not serve is 405 before anything else runs (body parsing, auth), so
  // it is 405 with or without a body, whatever its content type (QUERY, PATCH, TRACE, OPTIONS...).
  // A path outside the table is 404 the same way, whatever the method (QUERY without a body too).
  app.addHook('onRequest', async (req, reply) => {
    const allowed = ALLOW.allowed(req.url);
    if (allowed && !AllowTable.permits(allowed, req.method)) return methodNotAllowedReply(req, reply, allowed);
    if (!allowed && req.is404) return notFoundReply(req, reply);
  });
  app.setNotFoundHandler((req, reply) => {
    const allowed = ALLOW.allowed(req.url);
    if (allowed && !AllowTable.permits(allowed, req.method)) return methodNotAllowedReply(req, reply, allowed);
    return notFoundReply(req, reply);
  });

  // the document of this server: operations without a handler document their 501; the webhook hosts it refuses
  const openapi = buildOpenApi({
    notImplemented: ROUTES.filter((d) => !handlerOf(handlers, d.operationId)).map((d) => d.operationId),
    refusedHosts: webhookRefusedHosts(),
  });
  app.get('/openapi.json', async () => openapi);
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(docsPage()));

  app.post(OAUTH_TOKEN_PATH, async (req, reply) => oauthToken(services, req, reply));

  // operations (docs/operations.md): Prometheus text, alive, ready for traffic
  app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.text()));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const r = readiness.report();
    if (r.ready) return { status: 'ready', checks: r.checks };
    const waiting = Object.entries(r.checks)
      .filter(([, c]) => !c.ready)
      .map(([n, c]) => (c.detail ? `${n} (${c.detail})` : n));
    return reply.code(503).send({ code: ERROR_CODES.unavailable, detail: `not ready: ${waiting.join(', ')}`, status: 'not ready', checks: r.checks });
  });

  for (const d of ROUTES) {
    app.route({
      method: d.method,
      url: toFastifyPath(d.path),
      handler: async (req, reply) => handle(services, handlers, d, req, reply, metrics),
    });
  }
  return app;
}

function notFoundReply(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send(notFound(`no route ${req.method} ${req.url.split('?')[0]}`).body());
}

function methodNotAllowedReply(req: FastifyRequest, reply: FastifyReply, allowed: string[]): FastifyReply {
  const url = req.url.split('?')[0]!;
  const e = methodNotAllowed(`method ${req.method} is not allowed on ${url}; allowed: ${allowed.join(', ')}`);
  return reply.code(405).header('Allow', allowed.join(', ')).send(e.body());
}

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

async function authorize(services: Services, d: RouteDef, req: FastifyRequest): Promise<Principal | null> {
  if (d.scopes === null) return null;
  if (d.admin) return authorizeAdmin(services, d, req);
  const cred = bearer(req);
  if (!cred) throw unauthorized('missing API key: send "Authorization: Bearer <key>"', { 'WWW-Authenticate': 'Bearer' });
  const p = await services.keys.resolve(cred);
  if (!p) throw unauthorized('invalid, expired or revoked API key', { 'WWW-Authenticate': 'Bearer' });
  for (const s of d.scopes) {
    if (!p.scopes.includes(s)) {
      if (s === 'distribution' && p.legacy) {
        throw forbidden('this key was created before the distribution scope existed; create a new organization key with the distribution scope');
      }
      throw forbidden(`this key lacks the "${s}" scope needed by ${d.method} ${d.path}`);
    }
  }
  if (d.orgOnly && !p.org) throw forbidden(`${d.path} needs an organization API key; personal keys cannot call distribution endpoints`);
  if (p.org?.publisher && !d.publisher) {
    throw forbidden(`publisher organization keys may call only distribution, news search, article lookup and DeepNews; not ${d.method} ${d.path}`);
  }
  if (d.plan && !planAtLeast(p.plan, d.plan)) throw forbidden(`${d.method} ${d.path} needs the ${d.plan} plan; this key is on ${p.plan}`);
  return p;
}

/** Administration routes: the data dir's admin token only (null principal: no key, no limiter). */
async function authorizeAdmin(services: Services, d: RouteDef, req: FastifyRequest): Promise<null> {
  const cred = bearer(req);
  const challenge = { 'WWW-Authenticate': 'Bearer' };
  if (!cred) throw unauthorized('missing admin token: send "Authorization: Bearer <the token in admin.token of the data dir>"', challenge);
  if (services.admin.check(cred)) return null;
  if (await services.keys.resolve(cred))
    throw forbidden(`${d.method} ${d.path} is an administration route: API keys cannot call it (use the admin token of the data dir)`);
  throw unauthorized('invalid admin token', challenge);
}

/** The client is gone: its connection closed before the request got this far. */
function connectionGone(reply: FastifyReply): boolean {
  return reply.raw.destroyed || reply.raw.writableFinished || !!reply.request.raw.socket?.destroyed;
}

/** Why a request's work is aborted: its client closed the connection before the response ended. */
export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'AbortError';
  }
}

/**
 * A signal aborted when the client closes the connection before the response has ended (a
 * finished response closes too, and aborts nothing): handlers pass it into their work
 * (retrieval, model provider calls), which stops instead of running for nobody.
 */
function clientSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new ClientGone());
  });
  return ac.signal;
}

/**
 * Holds a concurrency slot until the request's work is over: the handler has settled (returned
 * or thrown) AND the response is done (handed to the socket, 'finish', or the connection closed,
 * 'close'). A client that hangs up does not free the slot while its handler still works, so
 * dropping connections cannot run more than the limit at once; a handler that ends after its
 * client left frees it then. Returns what to call when the handler settles.
 */
function holdSlot(reply: FastifyReply, release: () => void): () => void {
  let handlerDone = false;
  let responseDone = false;
  const maybeRelease = () => {
    if (handlerDone && responseDone) release();
  };
  const onResponseDone = () => {
    responseDone = true;
    maybeRelease();
  };
  reply.raw.once('finish', onResponseDone);
  reply.raw.once('close', onResponseDone);
  return () => {
    handlerDone = true;
    maybeRelease();
  };
}

async function handle(services: Services, handlers: GroupHandlers, d: RouteDef, req: FastifyRequest, reply: FastifyReply, metrics: ServiceMetrics) {
  const principal = await authorize(services, d, req);

  const params = d.params ? parseOrThrow(d.params, coerceQuery(d.params, req.params as Record<string, unknown>), 'path') : {};
  const query = d.query ? parseOrThrow(d.query, coerceQuery(d.query, (req.query ?? {}) as Record<string, unknown>), 'query') : {};
  let body: unknown;
  if (d.body) {
    checkInputLimits(req.body, 'body');
    // no body at all takes the defaults where a body is optional; a JSON `null` is a body, and not an object
    if (req.body === undefined) {
      if (d.bodyRequired) throw new HttpError(422, ERROR_CODES.validation, [{ loc: ['body'], msg: 'field required', type: 'value_error.missing' }]);
      body = parseOrThrow(d.body, {}, 'body');
    } else {
      // a form carries strings only: coerce them like a query ("True" -> true, "10" -> 10)
      const form = /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
      body = parseOrThrow(d.body, form ? coerceQuery(d.body, req.body as Record<string, unknown>) : req.body, 'body');
    }
  }

  if (principal && d.paramPlans) {
    for (const { name, plan } of d.paramPlans) {
      const v = (query as Record<string, unknown>)[name];
      if ((v === true || (typeof v === 'number' && v > 0)) && !planAtLeast(principal.plan, plan)) {
        throw forbidden(`${name} needs the ${plan} plan or above; this key is on ${principal.plan}`);
      }
    }
  }

  let settled: (() => void) | undefined;
  if (principal && d.limit) {
    const a = services.limiter.admit(principal.keyId, d.limit);
    if (!a.ok) {
      metrics.rateLimited(toFastifyPath(d.path), d.limit, a.code);
      throw new HttpError(429, a.code, a.code === 429001 ? 'Concurrency Limit Exceeded' : 'Rate Limit Exceeded', a.headers);
    }
    if (connectionGone(reply)) {
      // the client left while authentication or validation awaited: no work is done for it, and
      // its 'close' has fired already, so the slot is freed here
      a.release();
      reply.hijack();
      return reply;
    }
    reply.headers(a.headers);
    settled = holdSlot(reply, a.release);
  }

  try {
    const fn = handlerOf(handlers, d.operationId);
    if (!fn) throw notImplemented(`${d.operationId} (${d.method} ${d.path}) is not implemented by this server yet`);
    const out = await fn({ route: d, principal, query, params, body, services, req, reply, signal: clientSignal(reply) } as HandlerCtx);
    // sent, or streaming (a stream's reply settles once it ended or its client left), or nobody left to answer
    if (reply.sent || reply.raw.headersSent || connectionGone(reply)) {
      if (!reply.sent && !reply.raw.headersSent) req.log.debug('the client left before the answer');
      return reply.sent || reply.raw.headersSent ? reply : reply.hijack();
    }
    if (d.status === 204) return reply.code(204).send();
    if (services.config.validateResponses && d.response) {
      const r = (d.response as z.ZodType).safeParse(out);
      if (!r.success) {
        req.log.error({ issues: r.error.issues.slice(0, 5) }, `response of ${d.operationId} does not match spec`);
        throw new HttpError(500, ERROR_CODES.internal, `response of ${d.operationId} does not match the spec`);
      }
    }
    return reply.code(d.status).send(out);
  } finally {
    settled?.();
  }
}

function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

async function oauthToken(services: Services, req: FastifyRequest, reply: FastifyReply) {
  const oauthError = (status: number, error: string, detail: string) =>
    reply.code(status).send({ code: status * 1000, detail, error, error_description: detail });
  const h = req.headers.authorization ?? '';
  const m = /^Basic\s+(\S+)$/i.exec(h);
  let clientId: string | undefined;
  let secret: string | undefined;
  const body = (req.body ?? {}) as Record<string, string>;
  if (m) {
    const raw = Buffer.from(m[1]!, 'base64').toString('utf8');
    const i = raw.indexOf(':');
    if (i > 0) {
      // The Python SDK URL-quotes each part before joining, PHP does not (test/service/fidelity/oauth-basic.test.ts): a part that
      // is not valid percent-encoding is taken as it is (and fails as an unknown client, 401).
      clientId = percentDecoded(raw.slice(0, i));
      secret = percentDecoded(raw.slice(i + 1));
    }
  } else if (body.client_id && body.client_secret) {
    clientId = body.client_id;
    secret = body.client_secret;
  }
  if (!clientId || !secret) {
    reply.header('WWW-Authenticate', 'Basic realm="newsflow"');
    return oauthError(401, 'invalid_client', 'client authentication required: HTTP Basic with client_id:client_secret');
  }
  if (body.grant_type !== 'client_credentials') {
    return oauthError(400, 'unsupported_grant_type', `grant_type must be client_credentials (got ${JSON.stringify(body.grant_type ?? null)})`);
  }
  const scopes = body.scope ? body.scope.split(/[\s+]+/).filter(Boolean) : undefined;
  const r = await services.keys.issueToken(clientId, secret, scopes);
  if (!r.ok) return oauthError(r.error === 'invalid_client' ? 401 : 400, r.error, r.detail);
  return reply.header('Cache-Control', 'no-store').send({
    access_token: r.token,
    token_type: 'bearer',
    expires_in: r.expiresIn,
    scope: r.scopes.join(' '),
  });
}

export { badRequest };
