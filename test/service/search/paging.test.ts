/** n_articles, offset (int and UUID), return_type and delimiters. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { search, startCorpusService } from '../../helpers/news.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());

describe('paging and return types', () => {
  it.each(['kw', 'nl', 'both'])('offset pages of %s never overlap and join into the full ranking', async (method) => {
    const q = { query: 'ukraine war', historical: true, method, similarity_score_threshold: 0.3 };
    const full = await search(svc, { ...q, n_articles: 60 });
    expect(full.dicts.length).toBe(60);
    const seen: string[] = [];
    let offset: number | string = 0;
    for (let page = 0; page < 6; page++) {
      const r = await search(svc, { ...q, n_articles: 10, offset });
      expect(r.dicts.length).toBe(10);
      for (const d of r.dicts) expect(seen).not.toContain(d.article_id);
      seen.push(...r.dicts.map((d) => d.article_id));
      expect(r.body.offset).toBe((page + 1) * 10);
      offset = r.body.offset!;
    }
    expect(seen).toEqual(full.dicts.map((d) => d.article_id));
  });
  it('a UUID offset continues after that article', async () => {
    const first = await search(svc, { query: 'election', historical: true, n_articles: 10 });
    const last = first.dicts[9]!.article_id;
    const next = await search(svc, { query: 'election', historical: true, n_articles: 10, offset: last });
    const byCount = await search(svc, { query: 'election', historical: true, n_articles: 10, offset: 10 });
    expect(next.dicts.map((d) => d.article_id)).toEqual(byCount.dicts.map((d) => d.article_id));
  });
  it('n_articles is the page size (1..101)', async () => {
    for (const n of [1, 7, 101]) expect((await search(svc, { historical: true, n_articles: n })).dicts.length).toBe(n);
  });
  it('return_type string, dicts and both, with the delimiters', async () => {
    const s = await search(svc, {
      query: 'wimbledon',
      historical: true,
      n_articles: 3,
      return_type: 'string',
      doc_start_delimiter: '<<A>>',
      doc_end_delimiter: '<</A>>',
    });
    expect(s.body.as_dicts).toBeNull();
    expect(s.body.as_string?.match(/<<A>>/g)).toHaveLength(3);
    expect(s.body.as_string?.match(/<<\/A>>/g)).toHaveLength(3);
    const d = await search(svc, { query: 'wimbledon', historical: true, n_articles: 3 });
    expect(d.body.as_string).toBeNull();
    const b = await search(svc, { query: 'wimbledon', historical: true, n_articles: 3, return_type: 'both' });
    expect(b.dicts.map((x) => x.title)).toEqual(d.dicts.map((x) => x.title));
    for (const x of b.dicts) expect(b.body.as_string).toContain(x.title);
    expect(b.body.as_string?.startsWith('<doc>')).toBe(true);
  });
});
