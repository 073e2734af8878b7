/**
 * Integer time parameters (Unix seconds, look-back hours and days) have a documented range:
 * outside it a 422 naming the parameter, never a 500 from a date a JS Date cannot hold. The
 * parameters are found by walking spec/; the OpenAPI document shows each range as
 * minimum/maximum with a description.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi, filterShape, TIME_LIMITS } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { ALL_LIMITS, fillPath, isInteger, routeFields } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const TIME_NAME = /timestamp$|_date$|^hours_back$|^lookback$/;
const fields = routeFields()
  .filter((f) => f.where === 'query' && TIME_NAME.test(f.name) && isInteger(f.schema))
  .map((f) => ({ op: f.route.operationId, method: f.route.method, path: f.route.path, url: fillPath(f.route), name: f.name }));
const locsOf = (body: { detail?: unknown }) => (Array.isArray(body?.detail) ? body.detail.map((d: { loc: unknown[] }) => d.loc.join('.')) : []);

/** Values every such parameter refuses: past what a JS Date holds (8.64e12 s), near 2^53, and below its minimum. */
const OUTSIDE = ['8640000000001', '9007199254740991', '-1'];
/** What the other parameters of the route need to get past validation to the handler. */
const NEEDS: Record<string, string> = {
  domain_hit_share: 'domain_names=example.com',
  top_n_articles_for_domains: 'domain_names=example.com',
  get_domain_queries: 'domain_names=example.com',
  get_domain_metrics: 'domain_names=example.com',
  get_domain_metrics_timeseries: 'domain_names=example.com',
  top_n_articles_for_domain_timeseries: 'domain_name=example.com',
  get_article_hits: 'domain_name=example.com',
  get_forecast: 'query=x',
  live_web_search: 'queries=x',
};
/** Each parameter at its documented maximum, with the route's other time parameter beside it. */
const AT_MAX: Record<string, string> = {
  start_timestamp: `start_timestamp=${TIME_LIMITS.unixSecondsMax}&end_timestamp=${TIME_LIMITS.unixSecondsMax}`,
  end_timestamp: `end_timestamp=${TIME_LIMITS.unixSecondsMax}`,
  start_date: `start_date=${TIME_LIMITS.unixSecondsMax}&end_date=${TIME_LIMITS.unixSecondsMax}`,
  end_date: `start_date=${TIME_LIMITS.unixSecondsMax - 10}&end_date=${TIME_LIMITS.unixSecondsMax}`,
  hours_back: `hours_back=${TIME_LIMITS.lookbackHoursMax}`,
};

describe('integer time parameters', () => {
  it('finds them on search, stories, alert logs, distribution, forecast and web search', () => {
    const ops = new Set(fields.map((f) => f.op));
    for (const op of [
      'search_news',
      'get_stories',
      'get_all_alert_logs',
      'get_alert_logs',
      'domain_hit_share',
      'get_article_hits',
      'get_forecast',
      'live_web_search',
    ])
      expect(ops, op).toContain(op);
  });

  it.each(fields)('$op: $name outside its range is 422 naming it', async ({ method, url, op, name }) => {
    for (const v of OUTSIDE) {
      const r = await api(svc.url, method, `${url}?${NEEDS[op] ?? ''}&${name}=${v}`, svc.keys.org);
      expect(r.status, `${name}=${v}: ${r.text}`).toBe(422);
      expect(locsOf(r.body), `${name}=${v}`).toContain(`query.${name}`);
    }
  });

  it.each(fields.filter((f) => AT_MAX[f.name]))('$op: $name at its maximum is no 500', async ({ method, url, op, name }) => {
    const r = await api(svc.url, method, `${url}?${NEEDS[op] ?? ''}&${AT_MAX[name]}`, svc.keys.org);
    expect(r.status, r.text).not.toBe(500);
    expect(locsOf(r.body), r.text).not.toContain(`query.${name}`);
  });

  it.each(fields)('$op: $name shows its range in the OpenAPI document (minimum, maximum, description)', ({ method, path, name }) => {
    const doc = buildOpenApi() as {
      paths: Record<string, Record<string, { parameters: { name: string; description?: string; schema: Record<string, unknown> }[] }>>;
    };
    const p = doc.paths[path]![method.toLowerCase()]!.parameters.find((x) => x.name === name)!;
    const branches = [p.schema, ...((p.schema.anyOf as Record<string, unknown>[] | undefined) ?? [])];
    const int = branches.find((b) => b.type === 'integer')!;
    expect(typeof int.minimum).toBe('number');
    expect(typeof int.maximum).toBe('number');
    expect(int.maximum as number).toBeLessThanOrEqual(8.64e12);
    expect(p.description).toMatch(/\d/);
  });

  it('the filter parameters of chat, graph and alert bodies share the ranges of search', async () => {
    for (const k of ['start_timestamp', 'end_timestamp', 'hours_back'] as const) {
      expect(filterShape[k].safeParse(9007199254740991).success, k).toBe(false);
    }
    const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
      cron: '*/5 * * * *',
      triggers: [],
      sources: [{ identifier: 'asknews', params: { start_timestamp: 9007199254740991 } }],
    });
    expect(r.status).toBe(422);
    expect(locsOf(r.body)).toContain('body.sources.0.params.start_timestamp');
  });
});
