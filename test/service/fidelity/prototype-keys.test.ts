/**
 * Keys named like the properties every JS object inherits (`__proto__`, `constructor`,
 * `toString`, `valueOf`, `hasOwnProperty`) are unknown keys like any other: ignored (or 422),
 * never looked up on a prototype. In the query of every route, in JSON bodies (top level and
 * nested: an alert webhook `payload`, chat `filter_params`) and in forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { ALL_LIMITS, defOf, fillPath, routeFields, scalarsOf } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];
const routes = ROUTES.map((d) => ({ op: d.operationId, method: d.method, path: fillPath(d), hasBody: !!d.body }));
const okStatus = (s: number) => s !== 500 && s < 600;

describe('object-property names as query keys', () => {
  it.each(routes)('$method $path: every such name as a query key is no 500', async ({ method, path }) => {
    for (const name of NAMES) {
      for (const q of [`${name}=1`, `${name}=a&${name}=b`, `${name}[]=x`, `${name}[x]=1`]) {
        const r = await api(svc.url, method, `${path}?${q}`, svc.keys.org);
        expect(okStatus(r.status), `${q}: ${r.status} ${r.text}`).toBe(true);
        expect(r.body?.code, q).not.toBe(500000);
        // the name is not mistaken for a field
        if (r.status === 422) expect(JSON.stringify(r.body.detail), q).not.toContain(`"${name.replace(/\[.*$/, '')}"`);
      }
    }
  });
  it('an unknown key answers exactly as without it (search)', async () => {
    const plain = await api(svc.url, 'GET', '/v1/news/search?query=x', svc.keys.org);
    for (const name of NAMES) {
      const r = await api(svc.url, 'GET', `/v1/news/search?query=x&${name}=1`, svc.keys.org);
      expect(r.status, name).toBe(plain.status);
      expect(r.body, name).toEqual(plain.body);
    }
  });
});

/** A JSON text whose keys are those names (JSON.stringify cannot write an own `__proto__`). */
const hostileObject = (inner = '{}') => `{${NAMES.map((n) => `"${n}": ${inner}`).join(', ')}}`;

describe('object-property names as JSON body keys', () => {
  it.each(routes.filter((r) => r.hasBody))('$method $path: such keys at the top of the body are no 500', async ({ method, path }) => {
    for (const text of [hostileObject(), hostileObject('1'), hostileObject('{"prototype": {"x": 1}}')]) {
      const res = await fetch(`${svc.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
        body: text,
      });
      const body = await res.json();
      expect(okStatus(res.status), `${res.status} ${JSON.stringify(body)}`).toBe(true);
      // ignored like any unknown key: never refused as unparsable JSON
      expect(res.status, JSON.stringify(body)).not.toBe(400);
      if (res.status >= 400) expect(body.code).toBe(res.status * 1000);
    }
  });
  it('an alert whose webhook payload and asknews filter_params hold such keys is created; the payload keeps them, less __proto__ and constructor.prototype', async () => {
    const payload =
      '{"constructor": "c", "toString": "s", "hasOwnProperty": 1, "valueOf": {"deep": {"__proto__": {"b": 2}, "constructor": {"prototype": {"a": 1}}}}}';
    const text = `{"cron": "*/5 * * * *", "query": "q", "sources": [{"identifier": "asknews", "params": ${hostileObject()}}],
      "triggers": [{"action": "webhook", "params": {"url": "https://hooks.example.com/a", "payload": ${payload}}}]}`;
    const res = await fetch(`${svc.url}/v1/chat/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
      body: text,
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.triggers[0].params.payload).toEqual({ constructor: 'c', toString: 's', hasOwnProperty: 1, valueOf: { deep: {} } });
    const again = await api(svc.url, 'GET', `/v1/chat/alerts/${body.id}`, svc.keys.org);
    expect(again.body.triggers[0].params.payload).toEqual(body.triggers[0].params.payload);
    expect(({} as Record<string, unknown>).b).toBeUndefined();
  });
  it('chat filter_params with such keys is no 500', async () => {
    const text = `{"messages": [{"role": "user", "content": "hi"}], "filter_params": ${hostileObject('{"__proto__": {"n_articles": 0}}')}}`;
    const res = await fetch(`${svc.url}/v1/openai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
      body: text,
    });
    expect(okStatus(res.status), await res.text()).toBe(true);
  });
});

describe('object-property names as form keys', () => {
  it.each(routes.filter((r) => r.hasBody))('$method $path: such form keys are no 500', async ({ method, path }) => {
    const form = NAMES.map((n) => `${n}=1`).join('&');
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const body = await res.json();
    expect(okStatus(res.status), `${res.status} ${JSON.stringify(body)}`).toBe(true);
  });
  it('the token endpoint with such form keys is a 4xx, not a 500', async () => {
    const res = await fetch(`${svc.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: NAMES.map((n) => `${n}=1`).join('&'),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe('object-property names as values', () => {
  const stringParams = routeFields().filter((f) => f.where === 'query' && scalarsOf(f.schema).some((x) => ['string', 'enum'].includes(defOf(x).type)));
  const byRoute = [...new Set(stringParams.map((f) => f.route))].map((route) => ({
    method: route.method,
    path: fillPath(route),
    names: stringParams.filter((f) => f.route === route).map((f) => f.name),
  }));
  it.each(byRoute)('$method $path: every string or enum parameter set to such a name is no 500', async ({ method, path, names }) => {
    for (const name of names) {
      for (const v of NAMES) {
        const r = await api(svc.url, method, `${path}?${name}=${v}`, svc.keys.org);
        expect(r.status, `${name}=${v}: ${r.text}`).not.toBe(500);
      }
    }
  });
  it('a cron whose month or weekday is such a name is 422 naming cron', async () => {
    for (const cron of ['0 0 1 constructor *', '0 0 1 * toString', '0 0 1 __proto__ *', '0 0 1 jan-valueOf *']) {
      const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron, triggers: [] });
      expect(r.status, cron).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'cron']);
    }
  });
});
