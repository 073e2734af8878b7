import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll } from 'vitest';

import {
  buildOpenApi,
  CHAT_LIMITS,
  CRON,
  CUTOFF_DATE,
  DIGITS_CURSOR,
  EMAIL,
  ENTITY_GUARANTEE,
  HEADER_TOKEN,
  HTTP_URL,
  LIMIT_GROUPS,
  NOT_BLANK,
  PAGE_URL,
  ROUTES,
  SCOPES,
  X_RULES,
  operationStatuses,
  route,
  type CrossFieldRule,
  type RouteDef,
  type Scope,
} from '../../spec/index.js';
import { interfaceOperations, samplePath } from '../helpers/interface.js';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';
import { webhookRefusedHosts } from '../../service/alerts/webhooks.js';

type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
/** Follow a local `$ref` (`#/components/...`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function resolve(doc: Doc, x: any): any {
  if (!x?.$ref) return x;
  return String(x.$ref)
    .slice(2)
    .split('/')
    .reduce((o: any, k: string) => o[k], doc); // eslint-disable-line @typescript-eslint/no-explicit-any
}
const documented = (doc: Doc, d: RouteDef): number[] => Object.keys(doc.paths[d.path]![d.method.toLowerCase()].responses).map(Number);

describe('OpenAPI document generated from spec/', () => {
  const doc = buildOpenApi() as Doc;

  it('passes the OpenAPI 3.1 schema validator', async () => {
    const v = new Validator();
    const res = await v.validate(doc as never);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(v.version).toBe('3.1');
    // the validator is not a rubber stamp: a parameter in an invalid location is refused
    const broken = structuredClone(doc);
    broken.paths['/v1/news/search']!.get.parameters[0].in = 'body';
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('lists every path and method of the interface', () => {
    for (const op of interfaceOperations()) {
      expect(doc.paths[op.path]?.[op.method.toLowerCase()], `${op.method} ${op.path}`).toBeDefined();
    }
    expect(Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0)).toBe(ROUTES.length + 1); // + oauth token
  });

  it('describes the search parameters with their rules', () => {
    const params = doc.paths['/v1/news/search']!.get.parameters as { name: string; schema: any }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    const n = params.find((p) => p.name === 'n_articles')!;
    expect(n.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 101, default: 10 });
    const voice = params.find((p) => p.name === 'reporting_voice')!;
    expect(JSON.stringify(voice.schema)).toContain('Sensational');
    expect(doc.paths['/v1/news']!.get.parameters.find((p: any) => p.name === 'article_ids').schema.maxItems).toBe(100); // eslint-disable-line @typescript-eslint/no-explicit-any
    const limit = doc.paths['/v1/distribution/articles/top_n_for_domains']!.get.parameters.find((p: any) => p.name === 'limit'); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
  });

  it('documents the error bodies and security of each operation', () => {
    const op = doc.paths['/v1/distribution/stats/hit_share']!.get;
    expect(op.security).toEqual([{ APIKey: ['distribution'] }, { OAuth2: ['distribution'] }]);
    expect(resolve(doc, op.responses['422']).content['application/json'].schema.$ref).toBe('#/components/schemas/ValidationErrorModel');
    expect(resolve(doc, op.responses['403']).content['application/json'].schema.$ref).toBe('#/components/schemas/APIErrorModel');
    expect(op.responses['429']).toBeDefined();
    expect(doc.paths['/']!.get.security).toEqual([]);
    expect(doc.components.schemas.SearchResponseDictItem.required).toContain('as_string_key');
  });
});

describe('OpenAPI document: the statuses each route answers (item 15)', () => {
  const doc = buildOpenApi({ notImplemented: ['build_graph', 'get_byok_key'] }) as Doc;
  const statuses = (id: string) => documented(doc, route(id));

  it('still passes the OpenAPI 3.1 schema validator, every $ref resolving', async () => {
    const res = await new Validator().validate(doc as never);
    expect(res.errors ?? []).toEqual([]);
    for (const m of JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)) expect(resolve(doc, { $ref: m[1] }), m[1]).toBeDefined();
  });

  it('derives them from the route table: auth, lookups, bodies, parameters, limits, missing handlers', () => {
    expect(statuses('ping')).toEqual([200, 400, 405, 431, 500]);
    // any valid key, publisher keys allowed, no limiter: 401 but never 403 or 429
    expect(statuses('get_rate_limit_status')).toEqual([200, 400, 401, 405, 431, 500]);
    expect(statuses('get_article')).toEqual([200, 400, 401, 403, 404, 405, 422, 429, 431, 500]);
    expect(statuses('create_alert')).toEqual([201, 400, 401, 403, 405, 413, 415, 422, 429, 431, 500]);
    expect(statuses('delete_alert')).toEqual([204, 400, 401, 403, 404, 405, 413, 415, 422, 429, 431, 500]);
    // 409 where the resource's state can refuse: running an alert whose sources this server cannot run
    expect(statuses('run_alert')).toContain(409);
    expect(statuses('get_alert')).not.toContain(409);
    // the handler answers 404 for a foreign user_id or an unknown alert_id filter
    expect(statuses('get_alerts')).toContain(404);
    expect(statuses('get_all_alert_logs')).toContain(404);
    expect(statuses('search_news')).not.toContain(404);
    // 501 only where this server has no handler
    expect(statuses('build_graph')).toContain(501);
    expect(statuses('get_byok_key')).toContain(501);
    expect(statuses('search_news')).not.toContain(501);
    expect(documented(buildOpenApi() as Doc, route('build_graph'))).not.toContain(501);
    for (const d of ROUTES)
      expect(documented(doc, d), d.operationId).toEqual(operationStatuses(d, d.operationId === 'build_graph' || d.operationId === 'get_byok_key'));
  });

  it('documents 429 with Retry-After and the limit headers, 401 with WWW-Authenticate, 405 with Allow', () => {
    const op = doc.paths['/v1/news/search']!.get;
    const tooMany = resolve(doc, op.responses['429']);
    expect(resolve(doc, tooMany.headers['Retry-After'])).toMatchObject({ required: true, schema: { type: 'integer' } });
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Concurrency-Limit', 'X-Concurrency-Remaining']) {
      expect(resolve(doc, tooMany.headers[h]), h).toBeDefined();
      expect(resolve(doc, op.responses['200'].headers[h]), h).toBeDefined();
    }
    expect(resolve(doc, op.responses['401']).headers['WWW-Authenticate']).toBeDefined();
    expect(resolve(doc, op.responses['405']).headers.Allow).toBeDefined();
  });

  it('documents the event stream of stream routes and no body on 204', () => {
    for (const d of ROUTES) {
      const ok = doc.paths[d.path]![d.method.toLowerCase()].responses[String(d.status)];
      expect(!!ok.content?.['text/event-stream'], d.operationId).toBe(!!d.stream);
      if (d.status === 204) expect(ok.content, d.operationId).toBeUndefined();
    }
  });

  it('describes one server-sent event per stream route as OpenAPI 3.1 tools read it: data is a chunk, an error event or [DONE]', () => {
    const chat = doc.paths['/v1/openai/chat/completions']!.post.responses['200'].content['text/event-stream'].schema;
    expect(chat.type).toBe('object');
    expect(chat.required).toEqual(['data']);
    expect(Object.keys(chat.properties).sort()).toEqual(['data', 'event', 'id', 'retry']);
    expect(chat.properties.data.type).toBe('string');
    expect(chat.properties.data.anyOf[0]).toEqual({ const: '[DONE]' });
    const json = chat.properties.data.anyOf[1];
    expect(json.contentMediaType).toBe('application/json');
    expect(json.contentSchema.anyOf.map((x: { $ref: string }) => x.$ref)).toEqual([
      '#/components/schemas/CreateChatCompletionResponseStream',
      '#/components/schemas/StreamError',
    ]);
  });

  it('documents the token endpoint with its OAuth error bodies', () => {
    const op = doc.paths['/oauth2/token']!.post;
    expect(Object.keys(op.responses).map(Number)).toEqual([200, 400, 401, 405, 413, 415, 431, 500]);
    const schema = resolve(doc, op.responses['401'].content['application/json'].schema);
    expect(schema.required).toEqual(['code', 'detail', 'error', 'error_description']);
  });
});

describe('OpenAPI document: every rule the server enforces is stated', () => {
  const doc = buildOpenApi() as Doc;
  const op = (path: string, method = 'get') => doc.paths[path]![method];
  const param = (path: string, name: string) => op(path).parameters.find((p: { name: string }) => p.name === name).schema;
  const schema = (id: string) => doc.components.schemas[id];
  const rules = (x: { [X_RULES]?: CrossFieldRule[] }) => (x[X_RULES] ?? []).map((r) => `${r.rule} ${r.fields.join(',')}`);

  it('as a pattern: cron, webhook and index URLs, forecast cutoff_date, the web search cursor, BYOK keys, emails, entity guarantees', () => {
    expect(schema('CreateAlertRequest').properties.cron).toMatchObject({ maxLength: 256, pattern: CRON.source });
    const hook = schema('AlertTrigger').oneOf[0].properties.params;
    expect(hook.properties.url).toMatchObject({ pattern: HTTP_URL.source, maxLength: 2083 });
    expect(JSON.stringify(doc.components.schemas)).toContain(JSON.stringify(PAGE_URL.source));
    expect(param('/v1/chat/forecast', 'cutoff_date').pattern).toBe(CUTOFF_DATE.source);
    expect(param('/v1/chat/forecast', 'query').pattern).toBe(NOT_BLANK.source);
    expect(param('/v1/chat/websearch', 'offset').anyOf[1]).toMatchObject({ type: 'string', pattern: DIGITS_CURSOR.source });
    expect(schema('UpsertApiKeyRequest').properties.api_key).toMatchObject({ minLength: 10, pattern: HEADER_TOKEN.source });
    expect(schema('AlertTrigger').oneOf[1].properties.params.properties.to).toEqual({ type: 'string', pattern: EMAIL.source });
    expect(param('/v1/news/search', 'entity_guarantee').anyOf[0].items.pattern).toBe(ENTITY_GUARANTEE.source);
    // no `format` beside a pattern the server reads differently (a validator's `email` takes other addresses)
    expect(JSON.stringify(doc)).not.toContain('"format":"email"');
  });

  it('as x-newsflow-rules where JSON Schema cannot say it: each kind described, on the operation for query parameters, on the schema for bodies', () => {
    for (const p of ['/v1/distribution/stats/hit_share', '/v1/distribution/stats/metrics', '/v1/distribution/articles/top_n']) {
      expect(rules(op(p)), p).toEqual(['not-before start_date,end_date', 'same-utc-month start_date,end_date']);
    }
    expect(rules(op('/v1/news/search'))).toEqual([
      'all-or-none geo_lat,geo_lon,geo_radius',
      'closed-rings geo_polygon',
      'not-before start_timestamp,end_timestamp',
    ]);
    expect(rules(schema('FilterParams'))).toEqual(rules(op('/v1/news/search')));
    expect(param('/v1/news/search', 'geo_polygon').anyOf[0]).toMatchObject({ contentMediaType: 'application/json', contentSchema: { required: ['exterior'] } });
    expect(rules(op('/v1/index_counts'))).toEqual(['not-before start_datetime,end_datetime', 'max-buckets start_datetime,end_datetime,sampling']);
    expect(op('/v1/index_counts')[X_RULES][1]).toMatchObject({ max: 10_000, defaults: { '1d': 30 } });
    expect(rules(op('/v1/chat/websearch'))).toEqual(['not-before start_datetime,end_datetime']);
    expect(rules(schema('URLIndexingRequest'))).toEqual(['not-before start_time,end_time']);
    expect(rules(schema('CreateAlertRequest').properties.cron)).toEqual(['ascending-ranges cron']);
    expect(rules(schema('AlertTrigger').oneOf[0].properties.params)).toEqual(['refused-hosts url']);
    // the hosts are the server's fetch policy: spec/ alone says the rule in words, a server's document lists them
    expect(schema('AlertTrigger').oneOf[0].properties.params[X_RULES][0]).not.toHaveProperty('hosts');
    const served = buildOpenApi({ refusedHosts: webhookRefusedHosts() }) as Doc;
    const refused = served.components.schemas.AlertTrigger.oneOf[0].properties.params[X_RULES][0];
    expect(refused.hosts).toEqual(expect.arrayContaining(['127.0.0.0/8', '::1/128', '169.254.0.0/16']));
    expect(refused.names).toEqual(['localhost', '*.localhost']);
    // filling them in leaves spec/'s rule as it was
    expect((buildOpenApi() as Doc).components.schemas.AlertTrigger.oneOf[0].properties.params[X_RULES][0]).not.toHaveProperty('hosts');
    for (const id of ['CreateChatCompletionRequest', 'CreateDeepNewsRequest']) {
      const m = schema(id).properties.messages;
      expect(m, id).toMatchObject({ minItems: 1, maxItems: CHAT_LIMITS.maxMessages });
      expect(m[X_RULES], id).toEqual([expect.objectContaining({ rule: 'max-total-length', property: 'content', max: CHAT_LIMITS.maxChars })]);
    }
    const all: CrossFieldRule[] = [];
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (x && typeof x === 'object') {
        for (const [k, v] of Object.entries(x)) {
          if (k === X_RULES) all.push(...(v as CrossFieldRule[]));
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(new Set(all.map((r) => r.rule))).toEqual(
      new Set(['not-before', 'same-utc-month', 'all-or-none', 'closed-rings', 'max-buckets', 'max-total-length', 'ascending-ranges', 'refused-hosts']),
    );
    for (const rule of all) expect(rule.description.length, JSON.stringify(rule)).toBeGreaterThan(20);
  });

  it('in schemas every tool reads alike: no tuple (prefixItems), which Schemathesis turns into an invalid draft-7 items array when checking a response', () => {
    expect(JSON.stringify(doc)).not.toContain('prefixItems');
    const cluster = schema('DomainQueriesResponse').properties.data.items.properties;
    expect(cluster.centroid_coords).toEqual({ type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 });
  });

  it('as links: an alert (created, read, updated, run) leads to its get, update, run, logs and delete, an index_urls job to its status', () => {
    for (const [path, method, status] of [
      ['/v1/chat/alerts/{alert_id}', 'get', '200'],
      ['/v1/chat/alerts/{alert_id}', 'put', '200'],
      ['/v1/chat/alerts/{alert_id}/run', 'get', '200'],
    ] as const) {
      expect(op(path, method).responses[status].links, `${method} ${path}`).toEqual(op('/v1/chat/alerts', 'post').responses['201'].links);
    }
    const created = op('/v1/chat/alerts', 'post').responses['201'].links;
    expect(
      Object.values(created)
        .map((l: any) => l.operationId) // eslint-disable-line @typescript-eslint/no-explicit-any
        .sort(),
    ).toEqual(['delete_alert', 'get_alert', 'get_alert_logs', 'get_all_alert_logs', 'put_alert', 'run_alert']);
    for (const l of Object.values(created) as { parameters: Record<string, string> }[]) expect(l.parameters).toEqual({ alert_id: '$response.body#/id' });
    expect(op('/v1/news/index_urls', 'post').responses['200'].links).toEqual({
      GetIndexUrlsJob: { operationId: 'get_index_urls_job', parameters: { job_id: '$response.body#/job_id' } },
    });
  });
});

describe('OpenAPI document served by the service: real answers are documented statuses', () => {
  let svc: TestService;
  let tight: TestService;
  let doc: Doc;
  const without: Partial<Record<Scope, string>> = {};
  beforeAll(async () => {
    svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: LIMIT_GROUPS.map((g) => `${g}=1000:1000:100`).join(',') });
    for (const s of SCOPES) without[s] = (await svc.services.keys.createKey({ name: `no-${s}`, org: 'acme', scopes: SCOPES.filter((x) => x !== s) })).key;
    tight = await startTestService({ limitsText: LIMIT_GROUPS.map((g) => `${g}=0.001:1:1`).join(',') });
    doc = (await api(svc.url, 'GET', '/openapi.json')).body;
  });
  afterAll(async () => {
    await svc?.stop();
    await tight?.stop();
  });

  /** The sample: auth missing, wrong scope, bad parameter, unknown id, bad body, unsupported media type. */
  async function sample(d: RouteDef): Promise<{ what: string; status: number }[]> {
    const key = svc.keys.org!;
    const body = d.body ? {} : undefined;
    const out: { what: string; status: number }[] = [];
    const call = async (what: string, p: string, k: string | undefined, b?: unknown) =>
      out.push({ what, status: (await api(svc.url, d.method, p, k, b)).status });
    await call('valid', samplePath(d.path), key, body);
    await call('auth missing', samplePath(d.path), undefined, body);
    if (d.scopes?.length) await call('wrong scope', samplePath(d.path), without[d.scopes[0]!], body);
    const op = doc.paths[d.path]![d.method.toLowerCase()];
    for (const p of op.parameters as { name: string; in: string }[]) {
      if (p.in === 'query') await call(`bad ${p.name}`, `${samplePath(d.path)}?${p.name}=%25not%20valid%25&${p.name}=-1`, key, body);
      else await call(`bad ${p.name}`, d.path.replace(`{${p.name}}`, 'not%20an%20id').replace(/\{[^}]+\}/g, 'x'), key, body);
    }
    if (d.params) await call('unknown id', d.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-00000000abcd'), key, body);
    if (d.body) {
      await call('body of the wrong type', samplePath(d.path), key, ['not', 'an', 'object']);
      const r = await fetch(`${svc.url}${samplePath(d.path)}`, {
        method: d.method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
        body: '<a/>',
      });
      out.push({ what: 'unsupported media type', status: r.status });
    }
    return out;
  }

  it.each(ROUTES.map((d) => [`${d.method} ${d.path}`, d] as const))('%s answers only statuses its operation lists', async (_n, d) => {
    const listed = documented(doc, d);
    for (const { what, status } of await sample(d)) expect(listed, `${what}: ${status}`).toContain(status);
  });

  it('answers 429 with Retry-After on a limited route, a status the document lists', async () => {
    const d = route('search_news');
    const first = await api(tight.url, 'GET', '/v1/news/search?query=x', tight.keys.org);
    const second = await api(tight.url, 'GET', '/v1/news/search?query=x', tight.keys.org);
    expect([first.status, second.status]).toContain(429);
    const limited = first.status === 429 ? first : second;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(documented(doc, d)).toContain(429);
  });

  it('answers 413 for a body over the limit and 400 for a malformed URL, statuses the document lists', async () => {
    const big = await fetch(`${svc.url}/v1/chat/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'x'.repeat(11 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(documented(doc, route('create_alert'))).toContain(413);
    const bad = await api(svc.url, 'GET', '/v1/profiles/me%zz', svc.keys.org);
    expect(bad.status).toBe(400);
    expect(documented(doc, route('get_user_profile'))).toContain(400);
  });

  it('lists 501 exactly on the operations this server has no handler for', async () => {
    for (const d of ROUTES) {
      const r = await api(svc.url, d.method, samplePath(d.path), svc.keys.org, d.body ? {} : undefined);
      if (r.status === 501) expect(documented(doc, d), d.operationId).toContain(501);
      if (documented(doc, d).includes(501)) expect(r.status === 501 || r.status === 422, `${d.operationId}: ${r.status}`).toBe(true);
    }
  });
});
