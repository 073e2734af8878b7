/** try_cache, publisher restriction, and the hit events search and lookup record. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { search, sql, startCorpusService } from '../../helpers/news.js';

let svc: TestService;
let publisherKey: string;
beforeAll(async () => {
  svc = await startCorpusService();
  await svc.services.keys.createOrg({ name: 'guardian', domains: ['theguardian.com'], publisher: true });
  publisherKey = (await svc.services.keys.createKey({ name: 'g', org: 'guardian', scopes: ['news', 'distribution'] })).key;
});
afterAll(async () => svc?.stop());

describe('try_cache', () => {
  it('answers a repeat from the cache at 0.25 of the credits', async () => {
    const q = { query: 'heatwave europe', historical: true, method: 'both', try_cache: '1h', similarity_score_threshold: 0.3 };
    const a = await search(svc, q);
    expect(a.headers.get('x-cache')).toBe('MISS');
    expect(a.body.usage?.credits).toBe(3);
    const b = await search(svc, q);
    expect(b.headers.get('x-cache')).toBe('HIT');
    expect(b.body.usage?.credits).toBe(0.75);
    expect(b.dicts).toEqual(a.dicts);
    const other = await search(svc, { ...q, n_articles: 5 });
    expect(other.headers.get('x-cache')).toBe('MISS');
    const noCache = await search(svc, { query: 'heatwave europe', historical: true });
    expect(noCache.headers.get('x-cache')).toBeNull();
  });
});

describe('publisher organizations', () => {
  it('only ever see their own domains, in search and lookup', async () => {
    const r = await search(svc, { query: 'ukraine', historical: true, n_articles: 50 }, publisherKey);
    expect(r.dicts.length).toBeGreaterThan(10);
    expect(new Set(r.dicts.map((d) => d.domain_url))).toEqual(new Set(['theguardian.com']));
    const other = await search(svc, { query: 'ukraine', historical: true, n_articles: 5, domain_url: 'reuters.com' }, publisherKey);
    expect(other.dicts).toEqual([]);
    const reuters = (await search(svc, { historical: true, n_articles: 1, domain_url: 'reuters.com' })).dicts[0]!;
    const look = await fetch(`${svc.url}/v1/news/${reuters.article_id}`, { headers: { authorization: `Bearer ${publisherKey}` } });
    expect(look.status).toBe(404);
  });
});

describe('hit events', () => {
  it('record one surface event per returned article, and full_text on lookups with full text', async () => {
    const { id: keyId, key } = await svc.services.keys.createKey({ name: 'hits', org: 'acme', scopes: ['news'] });
    const r = await search(svc, { query: 'wimbledon', historical: true, n_articles: 7 }, key);
    const ids = r.dicts.map((d) => d.article_id);
    const lookup = await fetch(
      `${svc.url}/v1/news?${ids
        .slice(0, 3)
        .map((i) => `article_ids=${i}`)
        .join('&')}&full_text=true`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(lookup.status).toBe(200);
    await svc.services.news!.hits.flush();
    const rows = await sql<{ kind: string; article_id: string; domain: string; key_id: string; org_id: string; query: string | null }>(
      svc,
      `SELECT kind, article_id::VARCHAR AS article_id, domain, key_id, org_id, query FROM hit_events WHERE key_id = $1`,
      [keyId],
    );
    const surface = rows.filter((x) => x.kind === 'surface');
    expect(surface.map((x) => x.article_id).sort()).toEqual([...ids].sort());
    expect(surface.every((x) => x.query === 'wimbledon' && x.org_id)).toBe(true);
    expect(surface.map((x) => x.domain).sort()).toEqual(r.dicts.map((d) => d.domain_url).sort());
    expect(
      rows
        .filter((x) => x.kind === 'full_text')
        .map((x) => x.article_id)
        .sort(),
    ).toEqual(ids.slice(0, 3).sort());
  });
});
