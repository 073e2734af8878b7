/** Generates the OpenAPI 3.1 document from the route table and the zod schemas. */
import { z } from 'zod';
import { ROUTES, OAUTH_TOKEN_PATH, OAuthTokenResponse, type RouteDef } from './routes.js';
import { APIErrorModel, DOCUMENTED_ERROR_STATUSES, ValidationErrorModel } from './errors.js';

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

function parameters(sink: SchemaSink, schema: z.ZodType | undefined, where: 'query' | 'path'): Json[] {
  if (!schema) return [];
  const js = sink.convert(schema);
  const resolved = (js.$ref ? sink.components[String(js.$ref).split('/').pop()!] : js) as Json;
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

function operation(sink: SchemaSink, d: RouteDef): Json {
  const err = { content: { 'application/json': { schema: sink.convert(APIErrorModel) } } };
  const responses: Json = {};
  const ok: Json = { description: 'Successful response' };
  if (d.response) {
    const content: Json = { 'application/json': { schema: sink.convert(d.response) } };
    if (d.stream) content['text/event-stream'] = { schema: { type: 'string', description: 'Server-sent events: `data: <chunk JSON>` lines, ending with `data: [DONE]`' } };
    ok.content = content;
  }
  responses[String(d.status)] = ok;
  for (const status of DOCUMENTED_ERROR_STATUSES) {
    responses[String(status)] =
      status === 422
        ? { description: 'Validation error', content: { 'application/json': { schema: sink.convert(ValidationErrorModel) } } }
        : { description: `Error ${status}`, ...err };
  }
  if (d.limit) responses['429'] = { description: 'Rate (429000) or concurrency (429001) limit exceeded; see Retry-After', ...err };
  responses['501'] = { description: 'Not implemented by this server yet', ...err };
  const op: Json = {
    operationId: d.operationId,
    summary: d.summary,
    tags: [d.group],
    parameters: [...parameters(sink, d.params, 'path'), ...parameters(sink, d.query, 'query')],
    responses,
    'x-newsflow': { limitGroup: d.limit, publisherAllowed: d.publisher, orgOnly: !!d.orgOnly, minPlan: d.plan ?? null },
  };
  if (d.body) op.requestBody = { required: !!d.bodyRequired, content: { 'application/json': { schema: sink.convert(d.body) } } };
  op.security = d.scopes === null ? [] : [{ APIKey: d.scopes }, { OAuth2: d.scopes }];
  return op;
}

export function buildOpenApi(opts: { serverUrl?: string } = {}): Json {
  const sink = new SchemaSink();
  const paths: Record<string, Json> = {};
  for (const d of ROUTES) {
    paths[d.path] ??= {};
    paths[d.path]![d.method.toLowerCase()] = operation(sink, d);
  }
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
        '400': { description: 'Bad request', content: { 'application/json': { schema: sink.convert(APIErrorModel) } } },
        '401': { description: 'Bad client credentials', content: { 'application/json': { schema: sink.convert(APIErrorModel) } } },
      },
    },
  };
  return {
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
      securitySchemes: {
        APIKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <api key or OAuth access token>' },
        OAuth2: {
          type: 'oauth2',
          flows: { clientCredentials: { tokenUrl: OAUTH_TOKEN_PATH, scopes: { news: 'news', stories: 'stories', chat: 'chat', distribution: 'distribution', profile: 'profile' } } },
        },
      },
    },
  };
}
