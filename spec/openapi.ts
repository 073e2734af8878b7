/** Generates the OpenAPI 3.1 document from the route table and the zod schemas. */
import { z } from 'zod';
import { ROUTES, OAUTH_TOKEN_PATH, OAuthErrorModel, OAuthTokenResponse, type RouteDef } from './routes.js';
import { APIErrorModel, ValidationErrorModel } from './errors.js';
import { SSE, StreamError } from './chat.js';
import { X_RULES, type CrossFieldRule } from './rules.js';

export const API_VERSION = '0.32.4';
type Json = Record<string, unknown>;

class SchemaSink {
  components: Record<string, Json> = {};
  convert(schema: z.ZodType): Json {
    const js = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
    const defs = (js.$defs ?? {}) as Record<string, Json>;
    delete js.$defs;
    delete js.$schema;
    for (const [id, def] of Object.entries(defs)) this.components[id] ??= rewrite(def) as Json;
    const id = (js as { id?: string }).id;
    if (id) {
      delete (js as { id?: string }).id;
      this.components[id] ??= rewrite(js) as Json;
      return { $ref: `#/components/schemas/${id}` };
    }
    return rewrite(js) as Json;
  }
}
function rewrite(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rewrite);
  if (v && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out[k] = x.replace('#/$defs/', '#/components/schemas/');
      else if (k === 'id' && typeof x === 'string') continue;
      else out[k] = rewrite(x);
    }
    return out;
  }
  return v;
}

/** The object schema of a query or path schema, its `$ref` followed. */
function objectSchema(sink: SchemaSink, schema: z.ZodType): Json {
  const js = sink.convert(schema);
  return (js.$ref ? sink.components[String(js.$ref).split('/').pop()!] : js) as Json;
}

/** The cross-field rules of a query schema (spec/rules.ts): an operation carries them, as parameters are listed one by one. */
function queryRules(sink: SchemaSink, schema: z.ZodType | undefined): unknown[] {
  return schema ? ((objectSchema(sink, schema)[X_RULES] as unknown[] | undefined) ?? []) : [];
}

function parameters(sink: SchemaSink, schema: z.ZodType | undefined, where: 'query' | 'path'): Json[] {
  if (!schema) return [];
  const resolved = objectSchema(sink, schema);
  const props = (resolved.properties ?? {}) as Record<string, Json>;
  const required = new Set((resolved.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => {
    const p: Json = { name, in: where, required: where === 'path' || required.has(name), schema: s };
    // a nullable parameter carries its description on the non-null branch of anyOf
    const description = s.description ?? (s.anyOf as Json[] | undefined)?.find((x) => x.description)?.description;
    if (description) p.description = description;
    if (where === 'query') Object.assign(p, { style: 'form', explode: true });
    return p;
  });
}

/**
 * The statuses an operation answers, derived from its route definition (item 15: a schema-driven
 * client or fuzzer meets no undocumented status):
 * - its success status (200, 201 or 204);
 * - 400 (a malformed request: bad JSON, bad percent-encoding), 405 (another method on its path),
 *   431 (a request line and headers over Node's 16 KiB: a long query string, e.g. many long
 *   ids) and 500 everywhere;
 * - 401 where a key is needed; 403 where a scope, an organization, a plan or the publisher rule
 *   can refuse that key;
 * - 404 on lookups by path id and where the handler answers it (`notFound`); 409 where the
 *   resource's state can refuse the operation (`conflict`);
 * - 413 and 415 wherever a body is parsed (body routes and DELETE, whose body Fastify parses too);
 * - 422 where there are parameters or a body;
 * - 429 (with Retry-After) on rate-limited routes;
 * - 501 where this server has no handler (`notImplemented`).
 */
/**
 * One server-sent event of a stream route (spec/chat.ts `SSE`), as OpenAPI 3.1 tools read the
 * text/event-stream schema: per event, with the fields of the SSE format. `data` is JSON text:
 * a chunk, an in-stream error `{error: {message, code}}` (§2.4), or `[DONE]` as the last event.
 */
function sseEvent(sink: SchemaSink, chunk: z.ZodType): Json {
  return {
    type: 'object',
    description:
      'One server-sent event: `data: <chunk JSON>` lines separated by blank lines, an in-stream error `{"error": {...}}` if the stream fails, and `data: [DONE]` last',
    required: ['data'],
    properties: {
      data: {
        type: 'string',
        anyOf: [{ const: SSE.done }, { contentMediaType: 'application/json', contentSchema: { anyOf: [sink.convert(chunk), sink.convert(StreamError)] } }],
      },
      event: { type: 'string' },
      id: { type: 'string' },
      retry: { type: 'integer' },
    },
  };
}

export function operationStatuses(d: RouteDef, notImplemented = false): number[] {
  const out = new Set<number>([d.status, 400, 405, 431, 500]);
  if (d.scopes !== null) {
    out.add(401);
    if (d.scopes.length > 0 || d.orgOnly || !d.publisher || d.plan || d.paramPlans?.length) out.add(403);
  }
  if (d.params || d.notFound) out.add(404);
  if (d.conflict) out.add(409);
  if (d.body || d.method === 'DELETE') {
    out.add(413);
    out.add(415);
  }
  if (d.params || d.query || d.body) out.add(422);
  if (d.limit) out.add(429);
  if (notImplemented) out.add(501);
  if (d.modelProvider) out.add(502);
  return [...out].sort((a, b) => a - b);
}

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Bad request: malformed JSON body or URL',
  401: 'Missing, invalid, expired or revoked API key (see WWW-Authenticate)',
  403: 'The key lacks the scope, organization, plan or publisher right this operation needs',
  404: 'No such resource visible to this key',
  405: 'Method not allowed on this path (see Allow)',
  409: "The resource's state does not allow the operation (detail says why and what to do)",
  413: 'Request body too large',
  415: 'Unsupported request Content-Type',
  422: 'Validation error',
  431: 'Request header fields too large: the request line (path and query string) and headers exceed 16 KiB',
  429: 'Rate (429000) or concurrency (429001) limit exceeded; retry after Retry-After seconds',
  500: 'Internal server error',
  501: 'Not implemented by this server yet',
  502: 'The model provider failed (5xx, timeout, bad answer); detail names the provider (code 502000)',
};

const ref = (kind: 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const int = { type: 'integer' };
/** Response headers shared by the operations (components.headers). */
const HEADERS: Record<string, Json> = {
  RetryAfter: { description: 'Seconds to wait before retrying', required: true, schema: { ...int, minimum: 0 } },
  RateLimitLimit: { description: 'Requests the key may burst in this limiter group', schema: int },
  RateLimitRemaining: { description: 'Requests left in the bucket', schema: int },
  ConcurrencyLimit: { description: 'Requests the key may have in flight in this limiter group', schema: int },
  ConcurrencyRemaining: { description: 'Slots left for requests in flight', schema: int },
  WWWAuthenticate: { description: 'Authentication scheme to use', schema: { type: 'string' } },
  Allow: { description: 'Methods the path answers', schema: { type: 'string' } },
};
const LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-Concurrency-Limit': ref('headers', 'ConcurrencyLimit'),
  'X-Concurrency-Remaining': ref('headers', 'ConcurrencyRemaining'),
};

/** components.responses: one per error status, `{code, detail}` bodies (422: a list of items). */
function errorResponses(sink: SchemaSink): Record<string, Json> {
  const body = (schema: z.ZodType) => ({ 'application/json': { schema: sink.convert(schema) } });
  const out: Record<string, Json> = {};
  for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
    const r: Json = { description, content: body(status === '422' ? ValidationErrorModel : APIErrorModel) };
    if (status === '401') r.headers = { 'WWW-Authenticate': ref('headers', 'WWWAuthenticate') };
    if (status === '405') r.headers = { Allow: ref('headers', 'Allow') };
    if (status === '429') r.headers = { 'Retry-After': ref('headers', 'RetryAfter'), ...LIMIT_HEADERS };
    out[`Error${status}`] = r;
  }
  return out;
}

function operation(sink: SchemaSink, d: RouteDef, notImplemented: boolean): Json {
  const responses: Json = {};
  for (const status of operationStatuses(d, notImplemented)) {
    if (status !== d.status) {
      responses[String(status)] = ref('responses', `Error${status}`);
      continue;
    }
    const ok: Json = { description: d.status === 204 ? 'Done; no content' : 'Successful response' };
    if (d.response && d.produces) {
      ok.content = { [d.produces]: { schema: { type: 'string' } } };
    } else if (d.response) {
      const content: Json = { 'application/json': { schema: sink.convert(d.response) } };
      if (d.stream) content['text/event-stream'] = { schema: sseEvent(sink, d.stream) };
      ok.content = content;
    }
    if (d.limit) ok.headers = LIMIT_HEADERS;
    if (d.links) ok.links = d.links;
    responses[String(status)] = ok;
  }
  const op: Json = {
    operationId: d.operationId,
    summary: d.summary,
    tags: [d.group],
    parameters: [...parameters(sink, d.params, 'path'), ...parameters(sink, d.query, 'query')],
    responses,
    'x-newsflow': {
      limitGroup: d.limit,
      publisherAllowed: d.publisher,
      orgOnly: !!d.orgOnly,
      admin: !!d.admin,
      minPlan: d.plan ?? null,
      implemented: !notImplemented,
    },
  };
  const rules = queryRules(sink, d.query);
  if (rules.length) op[X_RULES] = rules;
  if (d.body) op.requestBody = { required: !!d.bodyRequired, content: { 'application/json': { schema: sink.convert(d.body) } } };
  op.security = d.scopes === null ? [] : d.admin ? [{ AdminToken: [] }] : [{ APIKey: d.scopes }, { OAuth2: d.scopes }];
  return op;
}

export interface OpenApiOptions {
  serverUrl?: string;
  /** operationIds this server answers 501 for (no handler yet); they document 501 */
  notImplemented?: Iterable<string>;
  /**
   * The hosts this server refuses in a URL it will call (its fetch policy: networks as CIDR, names
   * with `*.` for subdomains): every `refused-hosts` rule lists them. Without them the rules say
   * what is refused in words only.
   */
  refusedHosts?: { hosts: string[]; names: string[] };
}

/** `v` with every `refused-hosts` rule of its x-newsflow-rules listing `refused` (new objects: the rules of spec/ stay as they are). */
function withRefusedHosts(v: unknown, refused: { hosts: string[]; names: string[] }): unknown {
  if (Array.isArray(v)) return v.map((x) => withRefusedHosts(x, refused));
  if (!v || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] =
      k === X_RULES && Array.isArray(x)
        ? (x as CrossFieldRule[]).map((r) => (r.rule === 'refused-hosts' ? { ...r, hosts: [...refused.hosts], names: [...refused.names] } : r))
        : withRefusedHosts(x, refused);
  }
  return out;
}

export function buildOpenApi(opts: OpenApiOptions = {}): Json {
  const sink = new SchemaSink();
  const missing = new Set(opts.notImplemented ?? []);
  const paths: Record<string, Json> = {};
  for (const d of ROUTES) {
    paths[d.path] ??= {};
    paths[d.path]![d.method.toLowerCase()] = operation(sink, d, missing.has(d.operationId));
  }
  const oauthError = (description: string) => ({ description, content: { 'application/json': { schema: sink.convert(OAuthErrorModel) } } });
  paths[OAUTH_TOKEN_PATH] = {
    post: {
      operationId: 'oauth2_token',
      summary: 'OAuth2 client-credentials token (HTTP Basic client auth)',
      tags: ['auth'],
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', required: ['grant_type'], properties: { grant_type: { const: 'client_credentials' }, scope: { type: 'string' } } },
          },
        },
      },
      responses: {
        '200': { description: 'Token', content: { 'application/json': { schema: sink.convert(OAuthTokenResponse) } } },
        '400': oauthError('Bad request: unsupported grant_type, unknown scope, malformed body'),
        '401': { ...oauthError('Bad or missing client credentials'), headers: { 'WWW-Authenticate': ref('headers', 'WWWAuthenticate') } },
        '405': ref('responses', 'Error405'),
        '413': ref('responses', 'Error413'),
        '431': ref('responses', 'Error431'),
        '415': ref('responses', 'Error415'),
        '500': ref('responses', 'Error500'),
      },
    },
  };
  const responses = errorResponses(sink);
  const doc: Json = {
    openapi: '3.1.0',
    info: {
      title: 'newsflow news-intelligence API',
      version: API_VERSION,
      description: 'Self-hosted implementation of the news-intelligence HTTP API v0.32.4, generated from newsflow spec/.',
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
    paths,
    components: {
      schemas: sink.components,
      responses,
      headers: HEADERS,
      securitySchemes: {
        APIKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <api key or OAuth access token>' },
        AdminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <the admin token in the data dir: admin.token, mode 0600>; API keys are refused (403)',
        },
        OAuth2: {
          type: 'oauth2',
          flows: {
            clientCredentials: {
              tokenUrl: OAUTH_TOKEN_PATH,
              scopes: { news: 'news', stories: 'stories', chat: 'chat', distribution: 'distribution', profile: 'profile' },
            },
          },
        },
      },
    },
  };
  return opts.refusedHosts ? (withRefusedHosts(doc, opts.refusedHosts) as Json) : doc;
}
