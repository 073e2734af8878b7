/** Distribution endpoints over a simulated hit history, checked against direct SQL on the store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { api } from '../../helpers/service.js';
import { sql, startCorpusService } from '../../helpers/news.js';
import { DistributionStore } from '../../../service/store/distribution.js';

let svc: TestService;
let key: string;
const jan = { start: Date.UTC(2022, 5, 1) / 1000, end: Date.UTC(2022, 6, 1) / 1000 - 1 }; // June 2022
beforeAll(async () => {
  svc = await startCorpusService();
  await new DistributionStore(svc.services.db).simulate({ months: 2, seed: 1, eventsPerDay: 1500, now: new Date('2022-07-05T00:00:00Z') });
  await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com', 'quiet-paper.com'] });
  key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution'] })).key;
});
afterAll(async () => svc?.stop());

const q = (p: Record<string, string | number | string[]>) =>
  new URLSearchParams(Object.entries(p).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, String(x)]) : [[k, String(v)]]))).toString();
const get = (path: string, p: Record<string, string | number | string[]>) => api(svc.url, 'GET', `/v1/distribution/${path}?${q(p)}`, key);
const base = { start_date: jan.start, end_date: jan.end };
const sqlCount = async (where: string) =>
  Number(
    (await sql<{ n: bigint }>(svc, `SELECT count(*) AS n FROM hit_events WHERE ts >= TIMESTAMP '2022-06-01' AND ts < TIMESTAMP '2022-07-01' AND ${where}`))[0]!
      .n,
  );

describe('distribution endpoints', () => {
  it('stats/metrics counts each event kind once', async () => {
    const r = await get('stats/metrics', { ...base, domain_names: ['reuters.com'] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      surfaces: await sqlCount(`domain = 'reuters.com' AND kind = 'surface'`),
      citations: await sqlCount(`domain = 'reuters.com' AND kind = 'citation'`),
      full_text: await sqlCount(`domain = 'reuters.com' AND kind = 'full_text'`),
      grounded: await sqlCount(`domain = 'reuters.com' AND kind = 'grounded'`),
    });
    expect(r.body.surfaces).toBeGreaterThan(0);
  });
  it('hit_share: a fraction of all publisher hits, total_share the sum, an owned domain without traffic at 0.0', async () => {
    const r = await get('stats/hit_share', { ...base, domain_names: ['reuters.com', 'apnews.com', 'quiet-paper.com'], is_publisher: 'false' });
    expect(r.status).toBe(200);
    const all = await sqlCount('true');
    const reuters = await sqlCount(`domain = 'reuters.com'`);
    expect(r.body.data.find((d: { domain: string }) => d.domain === 'reuters.com').hit_share).toBeCloseTo(reuters / all, 10);
    expect(r.body.data.find((d: { domain: string }) => d.domain === 'quiet-paper.com')).toEqual({ domain: 'quiet-paper.com', hit_share: 0 });
    expect(r.body.total_share).toBeCloseTo(
      r.body.data.reduce((s: number, d: { hit_share: number }) => s + d.hit_share, 0),
      12,
    );
  });
  it('top_n_for_domains pages until next_page is null; total_count sums the page; the last page may be empty', async () => {
    const seen = new Set<string>();
    let page: number | null = 1;
    let pages = 0;
    let sum = 0;
    let last: { data: unknown[] } | null = null;
    while (page !== null) {
      const r = await get('articles/top_n_for_domains', { ...base, domain_names: ['reuters.com', 'not-mine.com'], limit: 25, page });
      expect(r.status).toBe(200);
      expect(r.body.page).toBe(page);
      expect(r.body.total_count).toBe(r.body.data.reduce((s: number, d: { hit_count: number }) => s + d.hit_count, 0));
      for (const d of r.body.data) {
        expect(seen.has(d.article_id)).toBe(false);
        seen.add(d.article_id);
      }
      sum += r.body.total_count;
      expect(r.body.next_page).toBe(r.body.data.length === 25 ? page + 1 : null);
      last = r.body;
      page = r.body.next_page;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(sum).toBe(await sqlCount(`domain = 'reuters.com' AND kind = 'surface'`));
    expect(seen.size).toBe(
      Number(
        (
          await sql<{ n: bigint }>(
            svc,
            `SELECT count(DISTINCT article_id) AS n FROM hit_events WHERE ts >= TIMESTAMP '2022-06-01' AND ts < TIMESTAMP '2022-07-01' AND domain = 'reuters.com' AND kind = 'surface'`,
          )
        )[0]!.n,
      ),
    );
    expect(last!.data.length).toBeLessThan(25);
  });
  it('refuses domains the organization does not own (403000) and personal keys', async () => {
    const r = await get('stats/metrics', { ...base, domain_names: ['nytimes.com'] });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(403000);
    expect((await api(svc.url, 'GET', `/v1/distribution/stats/metrics?${q({ ...base, domain_names: ['reuters.com'] })}`, svc.keys.personal)).status).toBe(403);
  });
  it('caches a response 30 seconds per key and says so', async () => {
    const p = { ...base, domain_names: ['apnews.com'] };
    const a = await get('stats/count', { start_date: base.start_date, end_date: base.end_date, domain_name: 'apnews.com' });
    expect(a.headers.get('x-cache')).toBe('MISS');
    const b = await get('stats/count', { start_date: base.start_date, end_date: base.end_date, domain_name: 'apnews.com' });
    expect(b.headers.get('x-cache')).toBe('HIT');
    expect(b.body).toEqual(a.body);
    expect(a.body.count).toBe(await sqlCount(`domain = 'apnews.com'`));
    expect((await get('stats/metrics_timeseries', p)).body.data.length).toBe(30);
  });
  it('answers the other endpoints in their documented shapes', async () => {
    const month = { year: 2022, month: 6, domain_names: ['reuters.com'] };
    const hs = await get('articles/domain_hits_surface', month);
    expect(hs.body).toEqual({ hits: await sqlCount(`domain = 'reuters.com'`), surfaced: expect.any(Number) });
    const tw = await get('articles/domain_hits_surface_timewindow', month);
    expect(tw.body.total_hits).toBe(hs.body.hits);
    const ts = await get('articles/top_n_for_domain_timeseries', { ...base, domain_name: 'reuters.com', limit: 3 });
    expect(ts.status, JSON.stringify(ts.body)).toBe(200);
    expect(ts.body.data[0].articles.length).toBeLessThanOrEqual(3);
    const dq = await get('articles/domain_queries', { ...base, domain_names: ['reuters.com'], limit: 5 });
    expect(dq.body.data[0].cluster_queries[0]).toMatchObject({ query: expect.any(String), coords: [expect.any(Number), expect.any(Number)] });
    const tn = await get('domains/top_n', { ...base, limit: 5 });
    expect(tn.body.data.map((d: { domain: string }) => d.domain).sort()).toEqual(['apnews.com', 'reuters.com']);
    const doms = await get('domains', {});
    expect(doms.body).toMatchObject({ count: 3, next_page: null, previous_page: null });
    expect((await get('domains/reuters.com', {})).body.name).toBe('reuters.com');
    expect((await get('domains/nope.com', {})).status).toBe(404);
  });
});
