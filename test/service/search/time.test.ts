/** Time parameters: historical, time_filter, start/end timestamps, hours_back, strategies. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { NOW, search, startCorpusService } from '../../helpers/news.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());
const H = 3_600_000;
const ms = (d: { crawl_date: string | null; pub_date: string }, f: 'crawl' | 'pub' = 'crawl') => Date.parse(f === 'crawl' ? d.crawl_date! : d.pub_date);

describe('time window', () => {
  it('historical=false searches only the last 48 hours', async () => {
    const r = await search(svc, { n_articles: 101 });
    expect(r.dicts.length).toBeGreaterThan(20);
    expect(r.dicts.every((d) => ms(d) >= NOW - 48 * H && ms(d) <= NOW)).toBe(true);
    const hist = await search(svc, { n_articles: 101, historical: true, query: 'covid vaccine' });
    expect(hist.dicts.some((d) => ms(d) < NOW - 48 * H)).toBe(true);
  });
  it('start_timestamp and end_timestamp bound the window (time_filter pub_date)', async () => {
    const start = Date.parse('2021-12-01T00:00:00Z') / 1000;
    const end = Date.parse('2021-12-08T00:00:00Z') / 1000;
    const r = await search(svc, { historical: true, n_articles: 101, start_timestamp: start, end_timestamp: end, time_filter: 'pub_date' });
    expect(r.dicts.length).toBe(101);
    expect(r.dicts.every((d) => ms(d, 'pub') >= start * 1000 && ms(d, 'pub') <= end * 1000)).toBe(true);
    // newest first when there is no query
    const times = r.dicts.map((d) => ms(d, 'pub'));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });
  it('hours_back, when given, sets the start of the window', async () => {
    const r = await search(svc, { n_articles: 101, hours_back: 12 });
    expect(r.dicts.length).toBeGreaterThan(0);
    expect(r.dicts.every((d) => ms(d) >= NOW - 12 * H)).toBe(true);
    const wider = await search(svc, { n_articles: 101, hours_back: 40 });
    expect(wider.dicts.length).toBeGreaterThan(r.dicts.length);
  });
  it('strategy "latest news" is nl over the past 24 hours', async () => {
    const r = await search(svc, { query: 'heat wave', strategy: 'latest news', historical: true, n_articles: 50, similarity_score_threshold: 0.3 });
    expect(r.dicts.every((d) => ms(d) >= NOW - 24 * H)).toBe(true);
    expect(r.body.usage?.credits).toBe(2); // nl
  });
  it('strategy "news knowledge" is kw over the past 60 days, historical', async () => {
    const r = await search(svc, { query: 'inflation', strategy: 'news knowledge', n_articles: 101 });
    expect(r.dicts.length).toBeGreaterThan(10);
    expect(r.dicts.every((d) => ms(d) >= NOW - 60 * 24 * H)).toBe(true);
    expect(r.dicts.some((d) => ms(d) < NOW - 48 * H)).toBe(true);
    expect(r.body.usage?.credits).toBe(1); // kw
  });
});
