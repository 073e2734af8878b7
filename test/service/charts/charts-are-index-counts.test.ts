/**
 * POST /v1/chat/charts on the seeded corpus service: questions become ChartParameters whose
 * series, drawn as plotly traces, hold exactly the counts GET /v1/index_counts answers for the
 * same parameters; line, bar and bar_pct; the capability DeepNews calls; the client; bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartResponse } from '../../../spec/index.js';
import { NewsClient } from '../../../client/client.js';
import { api, type TestService } from '../../helpers/service.js';
import { NOW, qs, startCorpusService, type Query } from '../../helpers/news.js';
import type { Charts } from '../../../service/charts/index.js';

interface Trace {
  type: string;
  mode?: string;
  name: string;
  x: string[];
  y: number[];
}
interface Series {
  name: string;
  sampling: string;
  [k: string]: unknown;
}

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService({ limitsText: 'news=1000:1000:50,chat=1000:1000:50,deepnews=1000:1000:50' });
});
afterAll(async () => svc?.stop());

const post = (body: unknown, key = svc.keys.org) => api(svc.url, 'POST', '/v1/chat/charts', key, body);

/** Each series' trace equals GET /v1/index_counts for the series' parameters; returns the totals. */
async function assertSeriesAreIndexCounts(body: ChartResponse): Promise<number[]> {
  const series = body.parameters!.series as Series[];
  const traces = (body.chart_json as { data: Trace[] }).data;
  expect(traces).toHaveLength(series.length);
  const totals: number[] = [];
  for (const [i, s] of series.entries()) {
    const { name, ...params } = s;
    const counts = await api(svc.url, 'GET', `/v1/index_counts?${qs(params as Query)}`, svc.keys.org);
    expect(counts.status, counts.text).toBe(200);
    const items = counts.body as { start: string; count: number }[];
    expect(items.length).toBeGreaterThan(0);
    expect(traces[i]!.name).toBe(name);
    expect(traces[i]!.x).toEqual(items.map((c) => c.start));
    expect(traces[i]!.y).toEqual(items.map((c) => c.count));
    totals.push(items.reduce((n, c) => n + c.count, 0));
  }
  return totals;
}

describe('charts are index counts', () => {
  it('draws one line per compared subject ("Ukraine vs Russia ... last month")', async () => {
    const r = await post({ query: 'Ukraine vs Russia coverage over the last month' });
    expect(r.status, r.text).toBe(200);
    expect(ChartResponse.safeParse(r.body).success).toBe(true);
    expect(r.body.success).toBe(true);
    expect(r.body.parameters.chart_type).toBe('line');
    const series = r.body.parameters.series as Series[];
    expect(series.map((s) => s.entity_guarantee)).toEqual([['Location:Ukraine'], ['Location:Russia']]);
    expect(series.every((s) => s.sampling === '1d' && s.start_datetime === '2022-06-11T12:00:00.000Z' && s.end_datetime === new Date(NOW).toISOString())).toBe(
      true,
    );
    const traces = r.body.chart_json.data as Trace[];
    expect(traces.every((t) => t.type === 'scatter' && t.mode === 'lines+markers')).toBe(true);
    const totals = await assertSeriesAreIndexCounts(r.body);
    expect(totals.every((n) => n > 0)).toBe(true);
    expect(r.body.context.totals).toEqual({ Ukraine: totals[0], Russia: totals[1] });
  });

  it('draws bars for a bar question (tech news per day in June 2022)', async () => {
    const r = await post({ query: 'Bar chart of tech news per day in June 2022' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.parameters.chart_type).toBe('bar');
    const [s] = r.body.parameters.series as Series[];
    expect(r.body.parameters.series).toHaveLength(1);
    expect(s).toMatchObject({
      sampling: '1d',
      categories: ['Technology'],
      start_datetime: '2022-06-01T00:00:00.000Z',
      end_datetime: '2022-07-01T00:00:00.000Z',
    });
    expect((r.body.chart_json.data as Trace[])[0]!.type).toBe('bar');
    expect(r.body.chart_json.layout.barmode).toBe('group');
    const [total] = await assertSeriesAreIndexCounts(r.body);
    expect((r.body.chart_json.data as Trace[])[0]!.y).toHaveLength(30);
    expect(total).toBeGreaterThan(0);
  });

  it('draws shares as stacked bars normalised to 100% (bar_pct), weekly, by publisher country', async () => {
    const r = await post({ query: 'Percentage of articles from British media vs American media since May 2022, weekly' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.parameters.chart_type).toBe('bar_pct');
    const series = r.body.parameters.series as Series[];
    expect(series.map((s) => s.countries)).toEqual([['GB'], ['US']]);
    expect(series.every((s) => s.sampling === '1w')).toBe(true);
    expect(r.body.chart_json.layout).toMatchObject({ barmode: 'stack', barnorm: 'percent' });
    const totals = await assertSeriesAreIndexCounts(r.body);
    expect(totals.every((n) => n > 0)).toBe(true);
  });

  it('counts the words of a subject no filter names, and applies the caller filter_params to every series', async () => {
    const r = await post({
      query: 'How many articles mentioned heatwave hourly over the last 3 days?',
      filter_params: { countries: ['GB'], languages: ['en'] },
    });
    expect(r.status, r.text).toBe(200);
    const [s] = r.body.parameters.series as Series[];
    expect(s).toMatchObject({ sampling: '1h', string_guarantee: ['heatwave'], countries: ['GB'], languages: ['en'] });
    expect((r.body.chart_json.data as Trace[])[0]!.y).toHaveLength(72);
    await assertSeriesAreIndexCounts(r.body);
    const all = await post({ query: 'Compare Biden, Trump and Putin weekly in 2022' });
    expect(all.status, all.text).toBe(200);
    expect((all.body.parameters.series as Series[]).map((x) => x.entity_guarantee)).toEqual([['Person:Biden'], ['Person:Trump'], ['Person:Putin']]);
    await assertSeriesAreIndexCounts(all.body);
  });

  it('is a capability: services.charts.chart(question, {filters, principal}) answers what the route answers', async () => {
    const q = 'Ukraine vs Russia coverage over the last month';
    const chart = (question: string, filters: NonNullable<Parameters<Charts['chart']>[1]>['filters']) =>
      svc.services.charts!.chart(question, { filters, principal: null });
    const direct = await chart(q, { languages: ['en'] });
    const viaHttp = await post({ query: q, filter_params: { languages: ['en'] } });
    expect(viaHttp.status).toBe(200);
    expect(direct.chart_json).toEqual(viaHttp.body.chart_json);
    expect(direct.parameters).toEqual(viaHttp.body.parameters);
    // a DeepNews caller may pass filters the index counts cannot take: they are dropped, not a 500
    const odd = await chart(q, { countries: ['GBR'], n_articles: 5, query: 'ignored' } as never);
    expect(odd.success).toBe(true);
    expect((odd.parameters!.series as Series[])[0]!.countries).toBeUndefined();
    // windows at the ends of time are clamped to what a date-time can name, in at most 1,000 buckets
    const last = await chart('Tesla', { start_timestamp: 253402300799, end_timestamp: 253402300799 });
    const first = await chart('Tesla since 1850', null);
    for (const c of [last, first]) {
      expect(ChartResponse.safeParse(c).success).toBe(true);
      expect((c.chart_json as { data: Trace[] }).data[0]!.y.length).toBeLessThanOrEqual(1000);
    }
  });

  it('is services.charts.chart(question, {cutoff}) for the DeepNews charts tool: the cutoff stands in for now', async () => {
    const cutoff = Date.parse('2022-07-01T00:00:00Z');
    const c = await svc.services.charts!.chart('Ukraine vs Russia coverage over the last month', { cutoff });
    const series = c.parameters!.series as Series[];
    expect(series.map((s) => [s.start_datetime, s.end_datetime])).toEqual([
      ['2022-06-01T00:00:00.000Z', '2022-07-01T00:00:00.000Z'],
      ['2022-06-01T00:00:00.000Z', '2022-07-01T00:00:00.000Z'],
    ]);
    const totals = await assertSeriesAreIndexCounts(c);
    expect(totals.every((n) => n > 0)).toBe(true);
    const plain = await svc.services.charts!.chart('Ukraine', { cutoff: null });
    expect((plain.parameters!.series as Series[])[0]!.end_datetime).toBe(new Date(NOW).toISOString());
  });

  it('is what DeepNews draws when its sources include charts', async () => {
    const q = 'How did coverage of Ukraine develop in June 2022?';
    const r = await api(svc.url, 'POST', '/v1/chat/deepnews', svc.keys.org, {
      messages: [{ role: 'user', content: q }],
      sources: ['asknews', 'charts'],
      stream: false,
    });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const charts = r.body.sources.charts as ChartResponse[];
    expect(charts.length).toBeGreaterThan(0);
    for (const c of charts) {
      expect(ChartResponse.safeParse(c).success).toBe(true);
      await assertSeriesAreIndexCounts(c);
    }
  });

  it('is reachable through the client', async () => {
    const c = new NewsClient({ baseUrl: `${svc.url}/v1`, apiKey: svc.keys.org });
    const r = await c.charts({ query: 'Bar chart of tech news per day in June 2022' });
    expect(r.parameters?.chart_type).toBe('bar');
    expect((r.chart_json as { data: Trace[] }).data[0]!.y).toHaveLength(30);
  });
});

describe('bad input', () => {
  it('answers 422 naming the field', async () => {
    const missing = await post({});
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe(422000);
    expect(missing.body.detail[0].loc).toEqual(['body', 'query']);
    const empty = await post({ query: '' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'query']);
    const notText = await post({ query: 42 });
    expect(notText.status).toBe(422);
    expect(notText.body.detail[0].loc).toEqual(['body', 'query']);
    const long = await post({ query: 'x'.repeat(1001) });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'query']);
    const badFilter = await post({ query: 'Tesla', filter_params: { countries: ['GBR'] } });
    expect(badFilter.status).toBe(422);
    expect(badFilter.body.detail[0].loc).toEqual(['body', 'filter_params', 'countries', 0]);
  });

  it('answers 200 for a window at the end of time in filter_params (found by the fuzz test: was a 500)', async () => {
    const r = await post({ query: '0', filter_params: { start_timestamp: 253402300798, end_timestamp: 0, time_filter: 'crawl_date' } });
    expect(r.status, r.text).toBe(200);
    expect(ChartResponse.safeParse(r.body).success).toBe(true);
    const far = await post({ query: 'Tesla', filter_params: { start_timestamp: 253402300799 } });
    expect(far.status, far.text).toBe(200);
    await assertSeriesAreIndexCounts(far.body);
  });

  it('answers 200 for hostile questions, never a 500', async () => {
    for (const q of [
      'a'.repeat(1000),
      'a.'.repeat(500),
      '2022 '.repeat(200),
      'vs vs vs vs',
      'compare , , and and',
      '\u0000 chart ﷽ 😀 <b>x</b>',
      'in 9999',
      'hourly since 1970',
      'percentage bar line chart of nothing',
      '%',
      'x vs y vs z vs a vs b vs c vs d vs e vs f vs g',
    ]) {
      const r = await post({ query: q });
      expect(r.status, `${JSON.stringify(q)} -> ${r.text.slice(0, 300)}`).toBe(200);
      expect(ChartResponse.safeParse(r.body).success).toBe(true);
      expect((r.body.parameters.series as Series[]).length).toBeLessThanOrEqual(8);
    }
  });
});
