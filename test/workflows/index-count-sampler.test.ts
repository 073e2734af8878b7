/**
 * indexCountSampler on the real Temporal dev server against the real service: the warehouse holds
 * exactly the API's buckets per domain and filter set; a bucket that grows is updated in place;
 * an identical run changes nothing.
 */
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { canonicalFilters, filterHash } from '../../activities/index-count-sampler.js';
import type { IndexCountSamplerInput, IndexCountSamplerResult } from '../../workflows/index-count-sampler.js';
import { NOW, startCorpusService } from '../helpers/news.js';
import { type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { startHarness, type Harness } from '../helpers/pipeline.js';
import { waitUntil } from '../helpers/wait-until.js';

let now = NOW;
let svc: TestService;
let warehouse: Warehouse;
let h: Harness;
let temporal: Client;
let api: NewsClient;

beforeAll(async () => {
  svc = await startCorpusService({ clock: () => now });
  api = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { news: { rate: 500, burst: 100, concurrency: 10 } } });
  h = await startHarness({ namespace: 'nf-counts', client: api });
  ({ warehouse, temporal } = h);
}, 180_000);
afterAll(async () => {
  await h?.stop();
  await svc?.stop();
});

let runs = 0;
const sample = (input: IndexCountSamplerInput) =>
  temporal.workflow.execute('indexCountSampler', {
    taskQueue: TASK_QUEUES.news,
    workflowId: `counts-${Date.now()}-${runs++}`,
    args: [input],
  }) as Promise<IndexCountSamplerResult>;

interface Row {
  domain: string;
  start: string;
  end: string;
  count: number;
  load_id: string;
  loaded_at: number;
}
async function landed(sampling: string, filters: Record<string, unknown>): Promise<Row[]> {
  const rows = await warehouse.query<{ domain: string; s: bigint; e: bigint; n: bigint; load_id: string; la: bigint; f: string }>(
    `SELECT domain, epoch_ms(bucket_start) AS s, epoch_ms(bucket_end) AS e, count AS n, load_id, epoch_us(loaded_at) AS la, filters::VARCHAR AS f
     FROM index_counts WHERE sampling = '${sampling}' AND filter_hash = '${filterHash(canonicalFilters(filters))}' ORDER BY domain, bucket_start`,
  );
  for (const r of rows) expect(JSON.parse(r.f)).toEqual(canonicalFilters(filters));
  return rows.map((r) => ({
    domain: r.domain,
    start: new Date(Number(r.s)).toISOString(),
    end: new Date(Number(r.e)).toISOString(),
    count: Number(r.n),
    load_id: r.load_id,
    loaded_at: Number(r.la),
  }));
}
/** What the API answers now, per domain ('*' = every domain), as warehouse rows without the load columns. */
async function fromApi(sampling: '1h' | '1d', window: { from: string; to: string }, domains: string[] | null, filters: Record<string, unknown>) {
  const out: Omit<Row, 'load_id' | 'loaded_at'>[] = [];
  for (const d of domains ?? [null]) {
    const items = await api.getIndexCounts({ ...filters, sampling, start_datetime: window.from, end_datetime: window.to, domains: d ? [d] : undefined });
    out.push(...items.map((i) => ({ domain: d ?? '*', start: i.start, end: i.end, count: i.count })));
  }
  return out.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : a.start < b.start ? -1 : 1));
}
const withoutLoad = (rows: Row[]) => rows.map(({ load_id: _l, loaded_at: _a, ...r }) => r);
const tableSize = async () => Number((await warehouse.query<{ n: bigint }>('SELECT count(*) AS n FROM index_counts'))[0]!.n);

describe('indexCountSampler', () => {
  it('lands exactly the API buckets per domain and filter set; an identical run changes nothing', async () => {
    const window = { from: '2022-07-04T00:00:00.000Z', to: '2022-07-11T12:00:00.000Z' };
    const filters = { categories: ['World', 'Politics'], languages: ['en'] };
    const domains = ['reuters.com', 'cnn.com'];
    const r1 = await sample({ sampling: '1h', domains, filters, ...window });
    const expected = await fromApi('1h', window, domains, filters);
    expect(expected).toHaveLength(2 * (7 * 24 + 12));
    expect(expected.some((e) => e.count > 0)).toBe(true);
    const rows = await landed('1h', filters);
    expect(withoutLoad(rows)).toEqual(expected);
    expect(r1).toMatchObject({
      domains: 2,
      buckets: expected.length,
      inserted: expected.length,
      updated: 0,
      articles: expected.reduce((n, e) => n + e.count, 0),
    });
    expect(new Set(rows.map((r) => r.load_id))).toEqual(new Set([r1.loadId]));

    // every domain as one series, no filters, daily buckets
    const all = await sample({ sampling: '1d', ...window });
    const allExpected = await fromApi('1d', window, null, {});
    expect(withoutLoad(await landed('1d', {}))).toEqual(allExpected);
    expect(all.inserted).toBe(allExpected.length);
    const size = await tableSize();
    expect(size).toBe(expected.length + allExpected.length);

    // the same filters written differently (order, repeats, defaults spelt out) are the same series
    const again = await sample({
      sampling: '1h',
      domains: [...domains].reverse(),
      filters: { languages: ['en', 'en'], categories: ['Politics', 'World'], time_filter: 'pub_date', string_guarantee_op: 'AND' },
      ...window,
    });
    expect(again).toMatchObject({ buckets: expected.length, inserted: 0, updated: 0 });
    expect(await landed('1h', filters)).toEqual(rows); // load id and loaded_at untouched: nothing changed
    expect(await tableSize()).toBe(size);
    const loads = await warehouse.query<{
      load_id: string;
      pipeline: string;
      rows_received: bigint;
      rows_inserted: bigint;
      rows_updated: bigint;
      invariants: string;
    }>(`SELECT * FROM _loads WHERE load_id IN ('${r1.loadId}', '${again.loadId}') ORDER BY started_at`);
    expect(loads.map((l) => [l.load_id, l.pipeline, Number(l.rows_received), Number(l.rows_inserted), Number(l.rows_updated)])).toEqual([
      [r1.loadId, 'index-counts', expected.length, expected.length, 0],
      [again.loadId, 'index-counts', expected.length, 0, 0],
    ]);
    expect(JSON.parse(loads[0]!.invariants)).toMatchObject({ buckets_contiguous: true, same_buckets_per_domain: true, domains: 2, sampling: '1h' });
  });

  it('a bucket that grows as articles arrive is updated in place, not duplicated', async () => {
    // replay a small corpus into the service: one hour of publication time arrives per 5 minutes of its clock
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
    const published = (JSON.parse(fs.readFileSync(fixture, 'utf8')) as { timestamp: number }[]).map((a) => a.timestamp * 1000).sort((a, b) => a - b);
    const news = svc.services.news!;
    const before = news.index.size;
    const releasedBy = (t: number) => published.filter((p) => (p - published[0]!) / 12 <= t - NOW).length;
    const arrive = async () => {
      await waitUntil(() => news.index.size >= before + releasedBy(now), { what: 'the due articles released', timeoutMs: 10_000, intervalMs: 25 });
      expect(news.index.size).toBe(before + releasedBy(now));
    };
    await svc.services.seeder!.seed(fixture, { replay: 12 });
    await arrive();
    const day = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };
    const first = await sample({ sampling: '1d', ...day });
    const rows1 = await landed('1d', {});
    const bucket = (rows: Row[]) => rows.filter((r) => r.start === '2026-01-01T00:00:00.000Z');
    expect(withoutLoad(bucket(rows1))).toEqual(await fromApi('1d', day, null, {}));
    expect(bucket(rows1)[0]!.count).toBe(releasedBy(now));
    expect(first).toMatchObject({ buckets: 1, inserted: 1, updated: 0 });
    const size = await tableSize();

    now += 30 * 60_000; // six more hours of news arrive
    await arrive();
    expect(releasedBy(now)).toBeGreaterThan(bucket(rows1)[0]!.count);
    const second = await sample({ sampling: '1d', ...day });
    expect(second).toMatchObject({ buckets: 1, inserted: 0, updated: 1 });
    const rows2 = await landed('1d', {});
    expect(bucket(rows2)).toHaveLength(1);
    expect(withoutLoad(bucket(rows2))).toEqual(await fromApi('1d', day, null, {}));
    expect(bucket(rows2)[0]).toMatchObject({ count: releasedBy(now), load_id: second.loadId });
    expect(bucket(rows2)[0]!.loaded_at).toBeGreaterThanOrEqual(bucket(rows1)[0]!.loaded_at);
    expect(await tableSize()).toBe(size);

    const third = await sample({ sampling: '1d', ...day });
    expect(third).toMatchObject({ buckets: 1, inserted: 0, updated: 0 });
    expect(await landed('1d', {})).toEqual(rows2);
  });

  it('refuses bad filters and windows without retrying', async () => {
    const rootCause = async (p: Promise<unknown>) => {
      let e = (await p.then(
        () => null,
        (x: unknown) => x,
      )) as { cause?: unknown; message: string } | null;
      expect(e).not.toBeNull();
      while (e!.cause) e = e!.cause as { cause?: unknown; message: string };
      return e!.message;
    };
    expect(await rootCause(sample({ sampling: '1d', filters: { languages: ['xx'] }, from: '2022-07-01T00:00:00Z', to: '2022-07-02T00:00:00Z' }))).toMatch(
      /invalid index-count filters: languages/,
    );
    expect(await rootCause(sample({ sampling: '1d', filters: { sampling: '1h' } }))).toMatch(/filters may not set sampling/);
    expect(await rootCause(sample({ sampling: '1d', lookback: 'a while' }))).toMatch(/lookback "a while" is not a duration/);
  });
});
