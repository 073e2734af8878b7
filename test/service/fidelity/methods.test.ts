/**
 * Methods and `Allow`: on every path of the route table, a method the table does not have for
 * that path is 405 whose `Allow` lists exactly the table's methods for it, with or without a
 * body, before authentication. A static path wins over a parametric one for routing and Allow
 * (/v1/news/graph is POST only although /v1/news/{article_id} is GET). HEAD goes wherever GET
 * does; OPTIONS is 405 with the same Allow (service/allow.ts).
 */
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_TOKEN_PATH, ROUTES } from '../../../spec/index.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let client: Client;
beforeAll(async () => {
  svc = await startTestService({ keys: { org: { org: 'acme', scopes: ['news', 'chat', 'stories', 'profile'], plan: 'enterprise' } } });
  client = new Client(svc.url);
});
afterAll(async () => {
  await client?.close();
  await svc?.stop();
});

const ID = '00000000-0000-4000-8000-000000000001';
const concrete = (p: string) => p.replace(/\{[^}]+\}/g, ID);
const TABLE = new Map<string, string[]>();
for (const r of [
  ...ROUTES,
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/docs' },
  { method: 'POST', path: OAUTH_TOKEN_PATH },
  ...['/metrics', '/healthz', '/readyz'].map((path) => ({ method: 'GET', path })),
]) {
  TABLE.set(r.path, [...(TABLE.get(r.path) ?? []), r.method]);
}
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'QUERY', 'TRACE', 'OPTIONS'];
const cases = [...TABLE].flatMap(([path, served]) => METHODS.filter((m) => !served.includes(m)).map((method) => ({ path, method, served })));

async function send(method: string, path: string, body?: string, key?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await client.request({ method, path, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, allow: res.headers.allow as string | undefined, type: String(res.headers['content-type']), text };
}
const allowOf = (h: string | undefined) =>
  (h ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();

describe("a method the path does not serve is 405 with the path's Allow", () => {
  it('the table has paths whose methods are missing (the cases below are not empty)', () => {
    expect(cases.length).toBeGreaterThan(TABLE.size * 4);
  });
  it.each(cases)("$method $path is 405 with Allow listing exactly the table's methods, without a body and with one", async ({ path, method, served }) => {
    for (const body of [undefined, '{"query": "x"}']) {
      const r = await send(method, concrete(path), body);
      expect(r.status, `${method} ${path} body=${body !== undefined}: ${r.text}`).toBe(405);
      expect(allowOf(r.allow)).toEqual([...served].sort());
      expect(r.type).toMatch(/^application\/json/);
      expect(JSON.parse(r.text)).toEqual({ code: 405000, detail: expect.stringContaining(method) });
    }
  });
});

describe('a static path wins over a parametric one', () => {
  it.each(['/v1/news/graph', '/v1/news/index_urls'])('GET %s is 405 with Allow: POST (not the article lookup)', async (path) => {
    const r = await send('GET', path, undefined, svc.keys.org);
    expect(r.status).toBe(405);
    expect(r.allow).toBe('POST');
    expect(JSON.parse(r.text).code).toBe(405000);
    const d = await send('DELETE', path, undefined, svc.keys.org);
    expect(d.status).toBe(405);
    expect(d.allow).toBe('POST');
  });
  it('PUT and DELETE /v1/chat/alerts/logs are 405 with Allow: GET (not the alert by id)', async () => {
    for (const m of ['PUT', 'DELETE']) {
      const r = await send(m, '/v1/chat/alerts/logs', m === 'PUT' ? '{}' : undefined, svc.keys.org);
      expect(r.status, r.text).toBe(405);
      expect(r.allow).toBe('GET');
    }
  });
  it('a parametric path still answers its own methods and its own Allow', async () => {
    const r = await send('GET', `/v1/news/${ID}`, undefined, svc.keys.org);
    expect(r.status).not.toBe(405);
    const p = await send('POST', `/v1/news/${ID}`, '{}');
    expect(p.status).toBe(405);
    expect(p.allow).toBe('GET');
    const a = await send('PATCH', `/v1/chat/alerts/${ID}`, '{}');
    expect(allowOf(a.allow)).toEqual(['DELETE', 'GET', 'PUT']);
  });
});

describe('HEAD, OPTIONS and unknown paths', () => {
  it('HEAD on a GET path is answered like GET (no 405); on a POST-only path it is 405 with Allow: POST', async () => {
    expect((await send('HEAD', '/')).status).toBe(200);
    expect((await send('HEAD', '/v1/news/search', undefined, svc.keys.org)).status).not.toBe(405);
    const r = await send('HEAD', '/v1/news/graph');
    expect(r.status).toBe(405);
    expect(r.allow).toBe('POST');
  });
  it("OPTIONS is 405 with the path's Allow", async () => {
    const r = await send('OPTIONS', '/v1/chat/alerts');
    expect(r.status).toBe(405);
    expect(allowOf(r.allow)).toEqual(['GET', 'POST']);
  });
  it('a path outside the table is 404 whatever the method', async () => {
    for (const m of ['GET', 'QUERY', 'PATCH', 'TRACE']) expect((await send(m, '/v2/nothing')).status).toBe(404);
  });
});
