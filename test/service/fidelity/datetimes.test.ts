/**
 * Date-times without an offset, with a space for T, with microseconds (what Python's
 * `str(datetime)` writes) are read as the hosted API reads them: naive means UTC. Every
 * date-time of every request schema (found by walking spec/) accepts them, and handlers see the
 * normalised RFC 3339 value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DateTime, ROUTES } from '../../../spec/index.js';
import { api, type TestService } from '../../helpers/service.js';
import { startCorpusService } from '../../helpers/news.js';
import { ALL_LIMITS, defOf, fillPath, isDateTime, routeFields } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const locsOf = (body: { detail?: unknown }) => (Array.isArray(body?.detail) ? body.detail.map((d: { loc: unknown[] }) => d.loc.join('.')) : []);

/** Every schema reachable from a route's query, path and body whose format is date-time. */
function dateTimeSchemas(): { where: string; schema: z.ZodType }[] {
  const out: { where: string; schema: z.ZodType }[] = [];
  const seen = new Set<z.ZodType>();
  const visit = (s: z.ZodType, where: string) => {
    if (!s) return;
    const d = defOf(s) as ReturnType<typeof defOf> & {
      valueType?: z.ZodType;
      items?: z.ZodType[];
      out?: z.ZodType;
      rest?: z.ZodType;
      left?: z.ZodType;
      right?: z.ZodType;
    };
    if (d.type === 'string' && isDateTime(s)) out.push({ where, schema: s });
    if (seen.has(s)) return;
    seen.add(s);
    for (const [k, x] of Object.entries(d.shape ?? {})) visit(x, `${where}.${k}`);
    for (const x of [d.innerType, d.in, d.out, d.element, d.valueType, d.rest, d.left, d.right, ...(d.options ?? []), ...(d.items ?? [])])
      if (x) visit(x, where);
  };
  for (const r of ROUTES)
    for (const [part, s] of [
      ['query', r.query],
      ['path', r.params],
      ['body', r.body],
    ] as const)
      if (s) visit(s, `${r.operationId}:${part}`);
  return out;
}

describe('date-time schemas of spec/', () => {
  const found = dateTimeSchemas();
  it('finds the date-time fields of index counts, web search, URL indexing, alerts and DeepNews', () => {
    const where = found.map((f) => f.where).join(' ');
    for (const w of [
      'get_index_counts:query.start_datetime',
      'live_web_search:query.end_datetime',
      'index_urls:body.start_time',
      'create_alert:body.expires_at',
      'deep_news:body.cutoff_datetime',
    ])
      expect(where).toContain(w);
  });
  it('every one of them reads a naive date-time as UTC and a space as T, keeping microseconds', () => {
    expect(found.length).toBeGreaterThan(0);
    for (const { where, schema } of found) {
      expect(schema.safeParse('2022-07-01T00:00:00').data, where).toBe('2022-07-01T00:00:00Z');
      expect(schema.safeParse('2022-07-01 00:00:00.123456+00:00').data, where).toBe('2022-07-01T00:00:00.123456+00:00');
      expect(schema.safeParse('2022-07-01 00:00:00.123456').data, where).toBe('2022-07-01T00:00:00.123456Z');
      expect(schema.safeParse('2022-07-01T12:00:00+02:00').data, where).toBe('2022-07-01T12:00:00+02:00');
      expect(schema.safeParse('2022-07-01T00:00:00+0530').data, where).toBe('2022-07-01T00:00:00+05:30');
      expect(schema.safeParse('yesterday').success, where).toBe(false);
      expect(schema.safeParse('2022-02-30 00:00:00').success, where).toBe(false);
    }
  });
  it('DateTime leaves an RFC 3339 value as it is (responses parse unchanged)', () => {
    for (const v of ['2022-07-01T00:00:00Z', '2022-07-01T00:00:00.000Z', '2022-07-01T00:00:00.5-03:00']) expect(DateTime.parse(v)).toBe(v);
  });
});

const FORMS = ['2022-07-01T00:00:00', '2022-07-01 00:00:00', '2022-07-01 00:00:00.123456', '2022-07-01 00:00:00.123456+00:00'];
const queryFields = routeFields()
  .filter((f) => f.where === 'query' && isDateTime(f.schema))
  .map((f) => ({ op: f.route.operationId, method: f.route.method, path: fillPath(f.route), name: f.name }));

describe('date-time query parameters', () => {
  it.each(queryFields)('$op: $name accepts a naive date-time, a space for T and microseconds', async ({ method, path, name }) => {
    for (const v of FORMS) {
      const r = await api(svc.url, method, `${path}?${name}=${encodeURIComponent(v)}`, svc.keys.org);
      expect(r.status, r.text).not.toBe(500);
      expect(locsOf(r.body), `${name}=${v}: ${r.text}`).not.toContain(`query.${name}`);
    }
    const bad = await api(svc.url, method, `${path}?${name}=yesterday`, svc.keys.org);
    expect(locsOf(bad.body)).toContain(`query.${name}`);
  });

  it('GET /v1/index_counts?start_datetime=2022-07-01T00:00:00 counts from UTC midnight: the same answer as with Z', async () => {
    const q = (start: string, end: string) =>
      api(svc.url, 'GET', `/v1/index_counts?sampling=1h&start_datetime=${encodeURIComponent(start)}&end_datetime=${encodeURIComponent(end)}`, svc.keys.org);
    const z = await q('2022-07-09T00:00:00Z', '2022-07-11T00:00:00Z');
    expect(z.status).toBe(200);
    expect(z.body.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBeGreaterThan(0);
    const naive = await q('2022-07-09T00:00:00', '2022-07-11 00:00:00.000000');
    expect(naive.status, naive.text).toBe(200);
    expect(naive.body).toEqual(z.body);
    const shifted = await q('2022-07-09T00:00:00+05:00', '2022-07-11T00:00:00+05:00');
    expect(shifted.body).not.toEqual(z.body);
  });
});

describe('date-time body fields', () => {
  it('an alert whose expires_at is naive expires at that UTC instant (echoed as with Z)', async () => {
    const mk = (expires_at: string) => api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '*/5 * * * *', triggers: [], expires_at });
    const withZ = await mk('2030-01-01T00:00:00Z');
    const naive = await mk('2030-01-01 00:00:00.000000');
    expect(naive.status, naive.text).toBe(201);
    expect(Date.parse(naive.body.expires_at)).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(naive.body.expires_at).toBe(withZ.body.expires_at);
  });
  it('POST /v1/news/index_urls takes naive start_time and end_time', async () => {
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
      start_time: '2022-07-01 00:00:00',
      end_time: '2022-07-02T00:00:00',
      urls: [{ url: 'https://example.com/a' }],
    });
    expect(r.status).not.toBe(500);
    expect(locsOf(r.body)).not.toContain('body.start_time');
    expect(locsOf(r.body)).not.toContain('body.end_time');
  });
  it('a DeepNews cutoff_datetime with a space is not refused', async () => {
    const r = await api(svc.url, 'POST', '/v1/chat/deepnews', svc.keys.org, {
      messages: [{ role: 'user', content: 'hi' }],
      cutoff_datetime: '2022-07-01 00:00:00',
    });
    expect(locsOf(r.body)).not.toContain('body.cutoff_datetime');
  });
});

describe('date-times at the ends of the calendar', () => {
  const INSIDE = ['0001-01-01 00:00:00', '0001-01-01T00:00:00+00:00', '9999-12-31T23:59:59.999999+00:00', '9999-12-31 23:59:59'];
  const OUTSIDE = ['0000-01-01T00:00:00Z', '0000-12-31 23:59:59', '9999-12-31T23:59:59-14:00', '0001-01-01T00:00:00+00:01'];
  it.each(queryFields)('$op: $name from year 1 to 9999 is answered; outside (in UTC) it is 422 naming it; never a 500', async ({ method, path, name }) => {
    for (const v of INSIDE) {
      const r = await api(svc.url, method, `${path}?${name}=${encodeURIComponent(v)}`, svc.keys.org);
      expect(r.status, `${v}: ${r.text}`).not.toBe(500);
      // the date-time is taken (a route may still refuse the range it makes: too many buckets)
      const mine = (r.body?.detail ?? []).filter((d: { loc: unknown[] }) => d.loc.join('.') === `query.${name}`);
      expect(
        mine.map((d: { type: string }) => d.type),
        `${v}: ${r.text}`,
      ).not.toContain('value_error.datetime');
      expect(
        mine.map((d: { type: string }) => d.type),
        `${v}: ${r.text}`,
      ).not.toContain('value_error');
    }
    for (const v of OUTSIDE) {
      const r = await api(svc.url, method, `${path}?${name}=${encodeURIComponent(v)}`, svc.keys.org);
      expect(r.status, `${v}: ${r.text}`).toBe(422);
      expect(locsOf(r.body), v).toContain(`query.${name}`);
    }
  });
  it('index counts whose last bucket would end after 9999-12-31 are 422 naming end_datetime', async () => {
    const r = await api(svc.url, 'GET', '/v1/index_counts?end_datetime=9999-12-31T23:59:59Z&sampling=1m', svc.keys.org);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'end_datetime']);
  });
  it('an alert expiring in year 1 or 9999 is created; beyond 9999 in UTC (9999-12-31T23:59:59-14:00) is 422 naming expires_at', async () => {
    for (const v of INSIDE) {
      const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '*/5 * * * *', triggers: [], expires_at: v });
      expect(r.status, `${v}: ${r.text}`).toBe(201);
    }
    for (const v of OUTSIDE) {
      const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '*/5 * * * *', triggers: [], expires_at: v });
      expect(r.status, `${v}: ${r.text}`).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'expires_at']);
    }
  });
});
