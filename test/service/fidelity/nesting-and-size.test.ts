/**
 * Deeply nested and oversized input is refused with a 422 naming the field (INPUT_LIMITS of
 * spec/common.ts), answered without blowing the stack: a body or a webhook payload nested
 * 100,000 deep, a 9 MB alert query, a free-form object or string past its limit. Limits a real
 * request never meets: at the limit, input is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi, INPUT_LIMITS, ROUTES } from '../../../spec/index.js';
import { api, credentialFor, startTestService, type TestService } from '../../helpers/service.js';
import { ALL_LIMITS, fillPath } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const send = async (method: string, path: string, text: string, admin = false) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${credentialFor(svc, { admin })}`, 'content-type': 'application/json' },
    body: text,
  });
  const raw = await res.text();
  return { status: res.status, raw, body: JSON.parse(raw) };
};
/** `{"a": {"a": ... 1 ...}}` nested `depth` objects deep, as JSON text. */
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const nestedArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const alert = (extra: string) => `{"cron": "*/5 * * * *", "triggers": [{"action": "webhook", "params": {"url": "https://hooks.example.com/a"${extra}}}]}`;

describe('nesting depth', () => {
  it('an alert whose webhook payload is nested 100,000 deep is 422 naming the payload, and the service still answers', async () => {
    const r = await send('POST', '/v1/chat/alerts', alert(`, "payload": ${nestedObject(100_000)}`));
    expect(r.status, r.raw.slice(0, 300)).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail[0].loc.slice(0, 6)).toEqual(['body', 'triggers', 0, 'params', 'payload', 'a']);
    expect(r.body.detail[0].loc.length).toBe(INPUT_LIMITS.maxDepth + 1);
    expect(r.body.detail[0].type).toBe('value_error.max_depth');
    expect(r.body.detail[0].msg).toContain(String(INPUT_LIMITS.maxDepth));
    expect((await api(svc.url, 'GET', '/', undefined)).status).toBe(200);
  });
  it('a body that is an array nested 1,000,000 deep is a 422 {code, detail}, not a 500', async () => {
    const r = await send('POST', '/v1/news/graph', nestedArray(1_000_000));
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc[0]).toBe('body');
    expect(r.body.detail[0].type).toBe('value_error.max_depth');
  });
  const bodyRoutes = ROUTES.filter((d) => d.body).map((d) => ({ method: d.method, path: fillPath(d), admin: !!d.admin }));
  it.each(bodyRoutes)('$method $path: a body nested 100,000 deep under an unknown key or a known one is a 422 naming it', async ({ method, path, admin }) => {
    for (const key of ['extra', 'filter_params', 'messages']) {
      const r = await send(method, path, `{"${key}": ${nestedObject(100_000)}}`, admin);
      expect(r.status, `${key}: ${r.raw.slice(0, 200)}`).toBe(422);
      expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['body', key]);
    }
  });
  it(`a webhook payload nested ${INPUT_LIMITS.maxDepth - 5} deep (within the limit) is taken and kept`, async () => {
    const r = await send('POST', '/v1/chat/alerts', alert(`, "payload": ${nestedObject(INPUT_LIMITS.maxDepth - 5)}`));
    expect(r.status, r.raw.slice(0, 300)).toBe(201);
    let p = r.body.triggers[0].params.payload;
    let depth = 0;
    while (typeof p === 'object') {
      p = p.a;
      depth++;
    }
    expect(depth).toBe(INPUT_LIMITS.maxDepth - 5);
  });
});

describe('size of strings and free-form objects', () => {
  it('an alert query of 9 MB is 422 naming the query (it would be sent back on every list page)', async () => {
    const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '*/5 * * * *', triggers: [], query: 'x'.repeat(9 * 1024 * 1024) });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      { loc: ['body', 'query'], msg: expect.stringContaining(String(INPUT_LIMITS.alertTextChars)), type: 'value_error.any_str.max_length' },
    ]);
    expect(r.text.length).toBeLessThan(2000);
  });
  it('an alert query at the limit is taken; one character more is 422; so for the title and an update', async () => {
    const ok = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
      cron: '*/5 * * * *',
      triggers: [],
      query: 'q'.repeat(INPUT_LIMITS.alertTextChars),
    });
    expect(ok.status).toBe(201);
    const over = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
      cron: '*/5 * * * *',
      triggers: [],
      title: 't'.repeat(INPUT_LIMITS.alertTextChars + 1),
    });
    expect(over.status).toBe(422);
    expect(over.body.detail[0].loc).toEqual(['body', 'title']);
    const put = await api(svc.url, 'PUT', `/v1/chat/alerts/${ok.body.id}`, svc.keys.org, { query: 'q'.repeat(INPUT_LIMITS.alertTextChars + 1) });
    expect(put.status).toBe(422);
    expect(put.body.detail[0].loc).toEqual(['body', 'query']);
  });
  it('a webhook payload larger than the alert limit is 422 naming the triggers', async () => {
    const payload = { blob: 'x'.repeat(INPUT_LIMITS.alertPartBytes) };
    const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
      cron: '*/5 * * * *',
      triggers: [{ action: 'webhook', params: { url: 'https://hooks.example.com/a', payload } }],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'triggers']);
    expect(r.body.detail[0].msg).toContain(String(INPUT_LIMITS.alertPartBytes));
  });
  it('a 1 MB cron is 422 naming cron, with a short message', async () => {
    const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: `${'1'.repeat(1_000_000)} * * * *`, triggers: [] });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['body', 'cron'], msg: expect.any(String), type: 'value_error.any_str.max_length' }]);
  });
  it('any string longer than the limit anywhere in a body is 422 naming it (a chat message)', async () => {
    const content = 'x'.repeat(INPUT_LIMITS.maxStringChars + 1);
    const r = await api(svc.url, 'POST', '/v1/openai/chat/completions', svc.keys.org, { messages: [{ role: 'user', content }] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'messages', 0, 'content']);
  });
  it('a free-form object larger than the limit (URL metadata) is 422 naming it', async () => {
    const metadata = { a: 'x'.repeat(INPUT_LIMITS.maxFreeObjectBytes / 2), b: 'y'.repeat(INPUT_LIMITS.maxFreeObjectBytes / 2) };
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
      start_time: '2022-07-01T00:00:00Z',
      end_time: '2022-07-02T00:00:00Z',
      urls: [{ url: 'https://example.com/a', metadata }],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'urls', 0, 'metadata']);
  });
  it('the limits are in the OpenAPI document: maxLength of the alert query and title, descriptions of free-form objects', () => {
    const doc = JSON.stringify(buildOpenApi());
    type Property = { type?: string; maxLength?: number; anyOf?: Property[] };
    const create = (buildOpenApi() as { components: { schemas: Record<string, { properties: Record<string, Property> }> } }).components.schemas
      .CreateAlertRequest!.properties;
    const branch = (p: Property | undefined) => (p ? [p, ...(p.anyOf ?? [])] : []).find((x) => x.type === 'string');
    expect(branch(create.query)?.maxLength).toBe(INPUT_LIMITS.alertTextChars);
    expect(branch(create.title)?.maxLength).toBe(INPUT_LIMITS.alertTextChars);
    expect(branch(create.cron)?.maxLength).toBe(INPUT_LIMITS.alertCronChars);
    expect(doc).toContain(`at most ${INPUT_LIMITS.maxFreeObjectBytes} bytes as JSON`);
  });
});
