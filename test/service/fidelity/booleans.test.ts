/**
 * Booleans in query strings, paths and forms are read the way the hosted API's framework reads
 * them (pydantic): true/false, 1/0, yes/no, on/off, t/f, y/n in any case. Python clients that
 * write `str(True)` send `True`. Every boolean parameter of every route is found in spec/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { ALL_LIMITS, fillPath, isBoolean, routeFields } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const TRUE = ['true', 'True', 'TRUE', '1', 'yes', 'Yes', 'on', 'ON', 't', 'T', 'y', 'Y'];
const FALSE = ['false', 'False', 'FALSE', '0', 'no', 'NO', 'off', 'Off', 'f', 'F', 'n', 'N'];
const booleanParams = routeFields().filter((f) => f.where === 'query' && isBoolean(f.schema));
const cases = booleanParams.map((f) => ({ op: f.route.operationId, method: f.route.method, path: fillPath(f.route), name: f.name }));

const locsOf = (body: { detail?: unknown }) => (Array.isArray(body?.detail) ? body.detail.map((d: { loc: unknown[] }) => d.loc.join('.')) : []);

describe('boolean query parameters', () => {
  it('finds the boolean query parameters of search, articles, stories, alerts, distribution, forecast, websearch, wiki and forum in spec/', () => {
    const ops = new Set(cases.map((c) => c.op));
    for (const op of [
      'search_news',
      'get_articles',
      'get_article',
      'get_stories',
      'get_story',
      'get_alerts',
      'run_alert',
      'domain_hit_share',
      'find_domains',
      'get_forecast',
      'live_web_search',
      'search_wiki',
      'search_reddit',
      'search_forum',
    ]) {
      expect(ops, op).toContain(op);
    }
  });

  it.each(cases)('$op: $name accepts every pydantic spelling of true and false, in any case', async ({ method, path, name }) => {
    for (const v of [...TRUE, ...FALSE]) {
      const r = await api(svc.url, method, `${path}?${name}=${v}`, svc.keys.org);
      expect(r.status, `${name}=${v}`).not.toBe(500);
      expect(locsOf(r.body), `${name}=${v}: ${r.text}`).not.toContain(`query.${name}`);
    }
  });

  it.each(cases)('$op: $name with a word that is not a boolean is still 422 naming it', async ({ method, path, name }) => {
    const r = await api(svc.url, method, `${path}?${name}=maybe`, svc.keys.org);
    expect(r.status).toBe(422);
    expect(locsOf(r.body)).toContain(`query.${name}`);
    expect(r.body.detail.find((d: { loc: unknown[] }) => d.loc.join('.') === `query.${name}`).type).toBe('type_error.boolean');
  });

  it('True means true and False means false: return_graphs=True needs the analyst plan, return_graphs=False does not', async () => {
    const yes = await api(svc.url, 'GET', '/v1/news/search?query=x&return_graphs=True', svc.keys.personal);
    expect(yes.status).toBe(403);
    expect(yes.body.detail).toContain('return_graphs');
    const no = await api(svc.url, 'GET', '/v1/news/search?query=x&return_graphs=False', svc.keys.personal);
    expect(no.status).toBe(200);
  });
});

describe('boolean form fields', () => {
  it('a form body with always_trigger=True is not refused for that field', async () => {
    const res = await fetch(`${svc.url}/v1/chat/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'cron=*/5+*+*+*+*&always_trigger=True&repeat=no&active=On',
    });
    const body = await res.json();
    expect(res.status).toBe(422); // triggers cannot be written in a form
    expect(locsOf(body)).toEqual(['body.triggers']);
  });
  it('a form boolean that is not a boolean is 422 naming it', async () => {
    const res = await fetch(`${svc.url}/v1/chat/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'cron=*/5+*+*+*+*&always_trigger=maybe',
    });
    expect(locsOf(await res.json())).toContain('body.always_trigger');
  });
});
