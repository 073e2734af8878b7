/** Source filters: domain_url, bad_domain_url, countries, countries_blacklist, continents, page_rank, premium, podcasts, languages, authors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { search, sql, startCorpusService } from '../../helpers/news.js';
import { PODCAST_URL } from '../../../service/enrich/publishers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());

/** Filters only (no query): the newest matching articles, compared with the store by SQL. */
async function newestIds(where: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    svc,
    `SELECT article_id::VARCHAR AS id FROM articles WHERE crawl_date IS NOT NULL AND ${where} ORDER BY crawl_date DESC, article_id LIMIT 101`,
  );
  return rows.map((r) => r.id);
}
const all = { historical: true, n_articles: 101 };

describe('source filters', () => {
  it('domain_url keeps only those domains (and their subdomains)', async () => {
    const r = await search(svc, { ...all, domain_url: 'reuters.com' });
    expect(r.dicts.length).toBe(101);
    expect(new Set(r.dicts.map((d) => d.domain_url))).toEqual(new Set(['reuters.com']));
    expect(r.dicts.map((d) => d.article_id)).toEqual(await newestIds(`domain_url = 'reuters.com'`));
    const two = await search(svc, { ...all, domain_url: ['apnews.com', 'cnn.com'] });
    expect(two.dicts.every((d) => d.domain_url === 'apnews.com' || d.domain_url === 'cnn.com' || d.domain_url.endsWith('.cnn.com'))).toBe(true);
    expect(two.dicts.some((d) => d.domain_url.endsWith('.cnn.com'))).toBe(true);
  });
  it('bad_domain_url drops those domains', async () => {
    const r = await search(svc, { ...all, query: 'ukraine', bad_domain_url: ['reuters.com', 'theguardian.com'] });
    expect(r.dicts.length).toBeGreaterThan(50);
    expect(r.dicts.some((d) => ['reuters.com', 'theguardian.com'].includes(d.domain_url))).toBe(false);
    const withThem = await search(svc, { ...all, query: 'ukraine' });
    expect(withThem.dicts.some((d) => ['reuters.com', 'theguardian.com'].includes(d.domain_url))).toBe(true);
  });
  it('countries and countries_blacklist filter on the publisher country', async () => {
    const gb = await search(svc, { ...all, countries: ['GB'] });
    expect(gb.dicts.length).toBe(101);
    expect(gb.dicts.every((d) => d.country === 'GB')).toBe(true);
    expect(gb.dicts.map((d) => d.article_id)).toEqual(await newestIds(`country = 'GB' AND NOT is_premium`));
    const notUs = await search(svc, { ...all, countries_blacklist: ['US'] });
    expect(notUs.dicts.every((d) => d.country !== 'US')).toBe(true);
  });
  it('continents filter on the publisher continent', async () => {
    const r = await search(svc, { ...all, continents: ['Europe'] });
    expect(r.dicts.length).toBeGreaterThan(0);
    expect(r.dicts.every((d) => d.continent === 'Europe')).toBe(true);
    const me = await search(svc, { ...all, continents: ['Middle East'] });
    expect(me.dicts.every((d) => d.continent === 'Middle East')).toBe(true);
    expect(me.dicts.map((d) => d.domain_url)).toContain('aljazeera.com');
  });
  it('page_rank is a maximum', async () => {
    const r = await search(svc, { ...all, page_rank: 3 });
    expect(r.dicts.length).toBe(101);
    expect(Math.max(...r.dicts.map((d) => d.page_rank))).toBeLessThanOrEqual(3);
    expect(r.dicts.map((d) => d.article_id)).toEqual(await newestIds('page_rank <= 3 AND NOT is_premium'));
  });
  it('premium sources appear only with premium=true', async () => {
    const off = await search(svc, { ...all, domain_url: 'nytimes.com' });
    expect(off.dicts).toEqual([]);
    const on = await search(svc, { ...all, domain_url: 'nytimes.com', premium: true });
    expect(on.dicts.length).toBeGreaterThan(10);
  });
  it('podcasts include, only and none', async () => {
    const { n } = (await sql<{ n: bigint }>(svc, 'SELECT count(*) AS n FROM articles WHERE is_podcast AND NOT is_premium'))[0]!;
    const only = await search(svc, { ...all, podcasts: 'only' });
    expect(only.dicts.length).toBe(Math.min(101, Number(n)));
    expect(Number(n)).toBeGreaterThan(0);
    expect(only.dicts.every((d) => PODCAST_URL.test(String(d.article_url)))).toBe(true);
    const none = await search(svc, { ...all, podcasts: 'none' });
    expect(none.dicts.length).toBe(101);
    expect(none.dicts.some((d) => PODCAST_URL.test(String(d.article_url)))).toBe(false);
    const pod = only.dicts[0]!;
    const include = await search(svc, { ...all, domain_url: pod.domain_url });
    expect(include.dicts.map((d) => d.article_id)).toContain(pod.article_id);
    const excluded = await search(svc, { ...all, domain_url: pod.domain_url, podcasts: 'none' });
    expect(excluded.dicts.map((d) => d.article_id)).not.toContain(pod.article_id);
  });
  it('languages filter on the detected language', async () => {
    const en = await search(svc, { ...all, languages: ['en'] });
    expect(en.dicts.every((d) => d.language === 'en')).toBe(true);
    const { lang } = (
      await sql<{ lang: string }>(
        svc,
        `SELECT language AS lang FROM articles WHERE language NOT IN ('en', 'unknown') GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
      )
    )[0]!;
    const other = await search(svc, { ...all, languages: [lang] });
    expect(other.dicts.length).toBeGreaterThan(0);
    expect(other.dicts.every((d) => d.language === lang)).toBe(true);
  });
  it('authors matches no article when none has authors', async () => {
    const r = await search(svc, { ...all, authors: ['Jane Doe'] });
    expect(r.dicts).toEqual([]);
  });
  it('diversify_sources spreads the head of the list over publishers and countries', async () => {
    const plain = await search(svc, { historical: true, n_articles: 20, query: 'ukraine russia war' });
    const div = await search(svc, { historical: true, n_articles: 20, query: 'ukraine russia war', diversify_sources: true });
    const distinct = (ds: { domain_url: string }[]) => new Set(ds.map((d) => d.domain_url)).size;
    expect(distinct(div.dicts)).toBeGreaterThan(distinct(plain.dicts));
    const maxShare = (ds: { domain_url: string }[]) =>
      Math.max(...[...ds.reduce((m, d) => m.set(d.domain_url, (m.get(d.domain_url) ?? 0) + 1), new Map<string, number>()).values()]);
    expect(maxShare(div.dicts)).toBeLessThanOrEqual(maxShare(plain.dicts));
  });
});
