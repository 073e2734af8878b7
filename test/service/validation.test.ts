/** Request validation and error shapes over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { ROUTES } from '../../spec/index.js';
import { NOT_IMPLEMENTED } from '../../service/routes/index.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'distribution=100:100:10,news=100:100:10,chat=1000:1000:10' });
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

describe('the rules the OpenAPI document states are the rules the server enforces', () => {
  it('refuses a JSON null body with a 422 on body, where a body is required and where it is optional', async () => {
    for (const p of ['/v1/news/graph', '/v1/chat/alerts', '/v1/openai/chat/completions']) {
      const r = await fetch(`${svc.url}${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
        body: 'null',
      });
      expect(r.status, p).toBe(422);
      expect(((await r.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc, p).toEqual(['body']);
    }
    // no body at all still takes the defaults where the body is optional
    const none = await fetch(`${svc.url}/v1/news/graph`, { method: 'POST', headers: { authorization: `Bearer ${svc.keys.org}` } });
    expect(none.status).not.toBe(422);
  });

  it('refuses a BYOK key holding CR/LF or other control characters (it would be sent in a header)', async () => {
    for (const key of ['abc\r\nX-Injected: 1xxxxxxx', 'sk-ant-0123456789\u0000', 'sk ant 0123456789']) {
      const r = await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: key });
      expect(r.status, JSON.stringify(key)).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ['body', 'api_key'], type: 'value_error.str.regex' });
    }
    expect((await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: 'sk-ant-0123456789abcdef' })).status).toBe(200);
  });

  it('more than 100 article ids is a 422 naming article_ids; a query string past 16 KiB is the 431 the document lists', async () => {
    const long = Array.from({ length: 101 }, (_, i) => `article_ids=${'a'.repeat(150)}${i}`).join('&');
    const r = await api(svc.url, 'GET', `/v1/news?${long}`, svc.keys.org);
    expect(r.status).toBe(431);
    expect(r.body).toEqual({ code: 431000, detail: expect.stringContaining('16 KB') });
    const doc = (await api(svc.url, 'GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/news'].get.responses)).toContain('431');
    const many = await api(svc.url, 'GET', `/v1/news?${ids(101)}`, svc.keys.org);
    expect(many.body.detail[0]).toMatchObject({ loc: ['query', 'article_ids'], type: 'value_error.list.max_items' });
  });

  it('cron: the shape of its pattern, then ranges that do not run backwards', async () => {
    const cron = (c: string) => api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: c, triggers: [] });
    for (const ok of ['0 9 * * MON-fri', ' */15 0-23/2 1,15 jan-Dec * ', '@daily', '05 4 * * 7']) expect((await cron(ok)).status, ok).toBe(201);
    for (const [bad, msg] of [
      ['5-1 * * * *', /minute range "5-1" is reversed/],
      ['* * * FEB-jan *', /month range "FEB-jan" is reversed/],
      ['007 * * * *', /minute field "007" is not valid/],
      ['*/100 * * * *', /minute field/],
      ['0 0 * * * *', /5 fields/],
      ['@every 5m', /macro/],
    ] as const) {
      const r = await cron(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'cron']);
      expect(r.body.detail[0].msg).toMatch(msg);
    }
  });

  it('webhook URLs are absolute http(s) URLs a parser takes; index_urls takes http(s) URLs only', async () => {
    const hook = (url: string) =>
      api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '0 * * * *', triggers: [{ action: 'webhook', params: { url } }] });
    for (const ok of ['https://hooks.example.com/x?y=1#z', 'HTTP://user:pw@hooks.example.com:8443/', 'http://[2606:4700:4700::1111]/in'])
      expect((await hook(ok)).status, ok).toBe(201);
    for (const bad of [
      'ftp://hooks.example.com/',
      'https://hooks example.com/',
      'https://a.999/',
      'https://xn--a/',
      'https://h.example.com:99999/',
      '/relative',
    ]) {
      const r = await hook(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'triggers', 0, 'params', 'url']);
    }
    const index = (url: string) =>
      api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-02T00:00:00Z', urls: [{ url }] });
    for (const bad of ['ftp://example.com/a', 'mailto:a@example.com', ' http://example.com/', 'http://example.com/a b']) {
      const r = await index(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'urls', 0, 'url']);
    }
  });

  it('forecast cutoff_date is a real UTC minute of the years 0001 to 9999, leap days in leap years only', async () => {
    const cutoff = (c: string) => api(svc.url, 'GET', `/v1/chat/forecast?query=election&cutoff_date=${c}`, svc.keys.org);
    for (const ok of ['0020-02-29-00:00', '2024-02-29-23:59', '0001-01-01-00:00']) expect((await cutoff(ok)).status, ok).not.toBe(422);
    for (const bad of ['2023-02-29-00:00', '1900-02-29-12:00', '2024-04-31-00:00', '2024-01-01-24:00', '0000-01-01-00:00', '2024-1-01-00:00']) {
      const r = await cutoff(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'cutoff_date']);
    }
    const blank = await api(svc.url, 'GET', '/v1/chat/forecast?query=%20%09', svc.keys.org);
    expect(blank.body.detail[0]).toMatchObject({ loc: ['query', 'query'], msg: 'query: query is blank' });
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
    const partial = await startTestService({ handlers: { search_wiki: undefined } });
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
