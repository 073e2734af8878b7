/** Request validation and error shapes over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { ROUTES } from '../../spec/index.js';
import { NOT_IMPLEMENTED } from '../../service/routes/index.js';
import type { GroupHandlers } from '../../service/context.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'distribution=100:100:10,news=100:100:10' });
});
afterAll(async () => svc?.stop());

const ids = (n: number) => Array.from({ length: n }, (_, i) => `article_ids=00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join('&');
const utc = (s: string) => Date.parse(`${s}Z`) / 1000;

describe('validation errors are 422 with loc/msg/type', () => {
  it.each([['0'], ['102']])('n_articles=%s', async (n) => {
    const r = await api(svc.url, 'GET', `/v1/news/search?n_articles=${n}`, svc.keys.org);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail).toEqual([{ loc: ['query', 'n_articles'], msg: expect.stringContaining('n_articles'), type: expect.any(String) }]);
  });
  it('accepts n_articles=101 and 1 (passes validation)', async () => {
    for (const n of [1, 101]) expect((await api(svc.url, 'GET', `/v1/news/search?n_articles=${n}`, svc.keys.org)).status).not.toBe(422);
  });
  it('refuses 101 article ids and accepts 100', async () => {
    const bad = await api(svc.url, 'GET', `/v1/news?${ids(101)}`, svc.keys.org);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'article_ids'], type: 'value_error.list.max_items' });
    expect((await api(svc.url, 'GET', `/v1/news?${ids(100)}`, svc.keys.org)).status).not.toBe(422);
    const missing = await api(svc.url, 'GET', '/v1/news', svc.keys.org);
    expect(missing.body.detail[0]).toEqual({ loc: ['query', 'article_ids'], msg: 'field required', type: 'value_error.missing' });
  });
  it('refuses distribution dates in two UTC months with 422000', async () => {
    const q = `domain_names=acme.com&start_date=${utc('2026-01-31T23:00:00')}&end_date=${utc('2026-02-01T01:00:00')}`;
    for (const p of ['/v1/distribution/stats/hit_share', '/v1/distribution/articles/top_n_for_domains', '/v1/distribution/stats/metrics']) {
      const r = await api(svc.url, 'GET', `${p}?${q}`, svc.keys.org);
      expect(r.status, p).toBe(422);
      expect(r.body.code).toBe(422000);
      expect(r.body.detail[0].loc).toEqual(['query', 'end_date']);
      expect(r.body.detail[0].msg).toMatch(/same UTC calendar month/);
    }
  });
  it('refuses limit=101 on top_n_for_domains with 422000', async () => {
    const q = `domain_names=acme.com&start_date=${utc('2026-03-01T00:00:00')}&end_date=${utc('2026-03-02T00:00:00')}&limit=101`;
    const r = await api(svc.url, 'GET', `/v1/distribution/articles/top_n_for_domains?${q}`, svc.keys.org);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 422000, detail: [{ loc: ['query', 'limit'] }] });
  });
  it('names the parameter of an unknown enum value', async () => {
    const r = await api(svc.url, 'GET', '/v1/news/search?method=fuzzy', svc.keys.org);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'method']);
    expect(r.body.detail[0].msg).toMatch(/^method: "fuzzy" is not a permitted value; permitted: "nl", "kw", "both"/);
    const cat = await api(svc.url, 'GET', '/v1/news/search?categories=Business&categories=Gossip', svc.keys.org);
    expect(cat.body.detail[0].loc).toEqual(['query', 'categories', 1]);
    expect(cat.body.detail[0].msg).toContain('categories');
  });
  it('checks the geo triple and the polygon', async () => {
    const r = await api(svc.url, 'GET', '/v1/news/search?geo_lat=10&geo_lon=20', svc.keys.org);
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['query', 'geo_radius']]);
    const poly = encodeURIComponent(
      JSON.stringify({
        exterior: [
          { lon: 0, lat: 0 },
          { lon: 1, lat: 0 },
          { lon: 1, lat: 1 },
          { lon: 0, lat: 1 },
        ],
      }),
    );
    const p = await api(svc.url, 'GET', `/v1/news/search?geo_polygon=${poly}`, svc.keys.org);
    expect(p.status).toBe(422);
    expect(p.body.detail[0].msg).toMatch(/not closed/);
  });
  it('coerces query strings by the schema (repeated keys, booleans, ints, int-or-uuid offset)', async () => {
    const ok = [
      '/v1/news/search?domain_url=a.com&domain_url=b.com&historical=true&offset=20',
      '/v1/news/search?offset=5f0c8b8e-8d0e-4a8e-9a39-0f7a3a1f2b3c&categories=Business',
      '/v1/news/search?reporting_voice=Objective',
    ];
    for (const p of ok) expect((await api(svc.url, 'GET', p, svc.keys.org)).status, p).toBe(200);
    const bad = await api(svc.url, 'GET', '/v1/news/search?historical=maybe', svc.keys.org);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'historical'], type: 'type_error.boolean' });
  });
  it('validates JSON bodies and reports the body location', async () => {
    const r = await api(svc.url, 'POST', '/v1/openai/chat/completions', svc.keys.org, { messages: [] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'messages']);
    const none = await fetch(`${svc.url}/v1/chat/alerts`, { method: 'POST', headers: { authorization: `Bearer ${svc.keys.org}` } });
    expect(none.status).toBe(422);
    const cron = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '99 * * * *', triggers: [] });
    expect(cron.status).toBe(422);
    expect(cron.body.detail[0].loc).toEqual(['body', 'cron']);
  });
});

describe('error shapes', () => {
  it('answers 404 and 405 as {code, detail}', async () => {
    const nf = await api(svc.url, 'GET', '/v2/nothing', svc.keys.org);
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ code: 404000, detail: expect.any(String) });
    const m = await api(svc.url, 'DELETE', '/v1/news/search', svc.keys.org);
    expect(m.status).toBe(405);
    expect(m.body).toEqual({ code: 405000, detail: expect.stringContaining('GET') });
    expect(m.headers.get('allow')).toBe('GET');
    const alerts = await api(svc.url, 'PATCH', '/v1/chat/alerts/00000000-0000-4000-8000-000000000001', svc.keys.org);
    expect(alerts.status).toBe(405);
    expect(alerts.headers.get('allow')).toBe('GET, PUT, DELETE');
  });
  it('answers bad JSON with 400 and no stack trace', async () => {
    const r = await fetch(`${svc.url}/v1/news/graph`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { code: number; detail: string };
    expect(body.code).toBe(400000);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });
  it('every operation of the table has a handler: none answers 501', () => {
    expect(NOT_IMPLEMENTED).toEqual([]);
  });
  it('a server without the handler of an operation answers it 501 501000 naming it, and documents that 501 there only', async () => {
    const op = ROUTES.find((d) => d.operationId === 'search_wiki')!;
    const partial = await startTestService({ handlers: { search_wiki: undefined as unknown as GroupHandlers[string] } });
    try {
      const r = await api(partial.url, 'GET', `${op.path}?query=election`, partial.keys.org);
      expect(r.status).toBe(501);
      expect(r.body).toEqual({ code: 501000, detail: expect.stringContaining('search_wiki') });
      const doc = (await api(partial.url, 'GET', '/openapi.json')).body;
      expect(Object.keys(doc.paths['/v1/wiki/search'].get.responses)).toContain('501');
      expect(Object.keys(doc.paths['/v1/news/search'].get.responses)).not.toContain('501');
    } finally {
      await partial.stop();
    }
  });
  it('serves the OpenAPI document and the docs page', async () => {
    const doc = await api(svc.url, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const page = await fetch(`${svc.url}/docs`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('/openapi.json');
  });
});
