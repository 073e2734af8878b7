/** The corpus through the API: counts, lookups, and every returned article valid against spec/. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchResponse, SearchResponseDictItem } from '../../../spec/index.js';
import type { TestService } from '../../helpers/service.js';
import { api } from '../../helpers/service.js';
import { search, sql, startCorpusService } from '../../helpers/news.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());

describe('news core on the real corpus', () => {
  it('holds at least 10,000 articles from the shared files', async () => {
    const rows = await sql<{ source: string; n: bigint }>(svc, 'SELECT source, count(*) AS n FROM articles GROUP BY 1 ORDER BY 1');
    const by = Object.fromEntries(rows.map((r) => [r.source, Number(r.n)]));
    expect(by['bbc-2004-2005']).toBe(2225);
    expect(by['headlines-2022']).toBe(9870); // 10,037 rows, 9,870 distinct links
    expect(Object.values(by).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(10_000);
  });

  it('100 random articles fetched through the API validate against spec/', async () => {
    const ids = (await sql<{ id: string }>(svc, 'SELECT article_id::VARCHAR AS id FROM articles USING SAMPLE 100 ROWS (reservoir, 42)')).map((r) => r.id);
    expect(ids.length).toBe(100);
    const r = await api(svc.url, 'GET', `/v1/news?${ids.map((i) => `article_ids=${i}`).join('&')}&full_text=true`, svc.keys.org);
    expect(r.status).toBe(200);
    expect(r.body.map((a: { article_id: string }) => a.article_id)).toEqual(ids);
    for (const a of r.body) {
      const p = SearchResponseDictItem.safeParse(a);
      expect(p.success, JSON.stringify(p.error?.issues?.slice(0, 2))).toBe(true);
      // strict checks beyond the schema: the fields we promise to fill
      expect(a.summary.length).toBeGreaterThan(0);
      expect(a.keywords.length).toBeGreaterThan(0);
      expect(a.classification.length).toBeGreaterThan(0);
      expect(a.markdown_citation).toBe(`[${a.title.replace(/[[\]]/g, '')}](${a.article_url})`);
    }
    expect(r.body.filter((a: { full_text: string | null }) => a.full_text).length).toBeGreaterThan(5); // BBC ones
  });

  it('search responses validate against spec/ for every return type', async () => {
    for (const rt of ['string', 'dicts', 'both']) {
      const r = await search(
        svc,
        { query: 'election results', historical: true, return_type: rt, n_articles: 20, return_graphs: true, return_geo: true },
        svc.keys.analyst,
      );
      expect(SearchResponse.safeParse(r.body).success).toBe(true);
    }
  });

  it('GET /v1/news/{id} returns one article, with full text on request; an unknown id is 404 404000, a malformed one 422', async () => {
    const { id } = (
      await sql<{ id: string }>(svc, `SELECT article_id::VARCHAR AS id FROM articles WHERE source = 'bbc-2004-2005' ORDER BY source_key LIMIT 1`)
    )[0]!;
    const a = await api(svc.url, 'GET', `/v1/news/${id}`, svc.keys.org);
    expect(a.status).toBe(200);
    expect(a.body.article_id).toBe(id);
    expect(a.body.full_text).toBeNull();
    const f = await api(svc.url, 'GET', `/v1/news/${id}?full_text=true`, svc.keys.org);
    expect(f.body.full_text.length).toBeGreaterThan(400);
    const nf = await api(svc.url, 'GET', '/v1/news/00000000-0000-4000-8000-00000000dead', svc.keys.org);
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ code: 404000, detail: expect.any(String) });
    // a malformed id is refused before the store sees it (test/service/fidelity/ids.test.ts)
    const bad = await api(svc.url, 'GET', '/v1/news/not-a-uuid', svc.keys.org);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'article_id']);
  });

  it('GET /v1/news skips unknown ids and keeps the asked order', async () => {
    const ids = (await sql<{ id: string }>(svc, 'SELECT article_id::VARCHAR AS id FROM articles ORDER BY article_id LIMIT 3')).map((r) => r.id);
    const ask = [ids[2]!, '00000000-0000-4000-8000-00000000dead', ids[0]!];
    const r = await api(svc.url, 'GET', `/v1/news?${ask.map((i) => `article_ids=${i}`).join('&')}`, svc.keys.org);
    expect(r.body.map((a: { article_id: string }) => a.article_id)).toEqual([ids[2], ids[0]]);
  });
});
