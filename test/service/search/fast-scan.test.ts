/**
 * The fast paths of search (four-sum dot product, filter fields on the document views, bounded
 * top-k heap) give the same results as a brute-force reference on the real corpus's vectors:
 * every cosine one by one, every filter read from the article record, every match sorted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchParams, type SearchParamsParsed } from '../../../spec/index.js';
import type { TestService } from '../../helpers/service.js';
import { startCorpusService } from '../../helpers/news.js';
import type { NewsIndex } from '../../../service/search/engine.js';
import { calibrated, cosineFor } from '../../../service/search/embedder.js';
import { terms } from '../../../service/text/tokenize.js';
import type { NewsArticle } from '../../../service/article/model.js';

let svc: TestService;
let index: NewsIndex;
beforeAll(async () => {
  svc = await startCorpusService();
  index = svc.services.news!.index;
});
afterAll(async () => svc?.stop());

const DAY = 86_400_000;
const QUERIES = ['ukraine war', 'interest rates inflation', 'football transfer', 'climate summit', 'election results'];

/** Filters read straight from the article record (no view fields, no compiled predicate). */
function referenceAccept(p: SearchParamsParsed, from: number | null, to: number | null) {
  return (a: NewsArticle) => {
    const t = (p.time_filter === 'pub_date' ? a.pubDate : a.crawlDate!).getTime();
    if (from !== null && t < from) return false;
    if (to !== null && t > to) return false;
    if (!p.premium && a.isPremium) return false;
    if (p.countries?.length && !p.countries.map((c) => c.toUpperCase()).includes(a.country)) return false;
    if (p.languages?.length && !p.languages.includes(a.language as never)) return false;
    return true;
  };
}

function naiveCosine(v: Float32Array, q: Float32Array): number {
  let s = 0;
  for (let k = 0; k < v.length; k++) s += v[k]! * q[k]!;
  return s;
}

/** Every accepted match, sorted by score then article id (the ranking the engine promises). */
function referenceRanking(scored: { a: NewsArticle; score: number }[]) {
  return scored.sort((x, y) => y.score - x.score || (x.a.articleId < y.a.articleId ? -1 : x.a.articleId > y.a.articleId ? 1 : 0));
}

function filterCases(newest: number): { params: Record<string, unknown>; from: number | null; to: number | null }[] {
  const from = newest - 60 * DAY;
  const to = newest - 5 * DAY;
  return [
    { params: { historical: true }, from: null, to: null },
    {
      params: { historical: true, start_timestamp: Math.floor(from / 1000), end_timestamp: Math.floor(to / 1000) },
      from: Math.floor(from / 1000) * 1000,
      to: Math.floor(to / 1000) * 1000,
    },
    { params: { historical: true, countries: ['GB', 'US'], premium: true }, from: null, to: null },
    {
      params: { historical: true, languages: ['en'], time_filter: 'pub_date', start_timestamp: Math.floor(from / 1000) },
      from: Math.floor(from / 1000) * 1000,
      to: null,
    },
  ];
}

describe('fast search paths against brute force on the corpus vectors', () => {
  it('nl: the same articles in the same order as every cosine computed one by one, with filters', async () => {
    const newest = Math.max(...index.views.map((v) => v.a.crawlDate!.getTime()));
    const r = index.embedder!.relevantCosine;
    let compared = 0;
    for (const query of QUERIES) {
      const q = (await index.embedQuery(query))!;
      for (const c of filterCases(newest)) {
        for (const n of [10, 60]) {
          const p = SearchParams.parse({ query, method: 'nl', n_articles: n, similarity_score_threshold: 0.4, ...c.params });
          const got = await index.search(p, { now: newest + DAY, given: new Set(Object.keys(c.params)), onlyDomains: null });
          const accept = referenceAccept(p, c.from, c.to);
          const min = cosineFor(0.4, r);
          const scored: { a: NewsArticle; score: number }[] = [];
          index.views.forEach((v, i) => {
            if (!accept(v.a)) return;
            const cos = naiveCosine(index.vectors!.vector(i), q);
            if (cos >= min) scored.push({ a: v.a, score: calibrated(cos, r) });
          });
          const want = referenceRanking(scored).slice(0, n);
          expect(got.docs.map((a) => a.articleId)).toEqual(want.map((x) => x.a.articleId));
          got.scores.forEach((s, i) => expect(Math.abs(s - want[i]!.score)).toBeLessThan(1e-9));
          compared += want.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('kw: the page is the head of every match sorted, with filters', async () => {
    const newest = Math.max(...index.views.map((v) => v.a.crawlDate!.getTime()));
    let compared = 0;
    for (const query of QUERIES) {
      for (const c of filterCases(newest)) {
        const p = SearchParams.parse({ query, method: 'kw', n_articles: 10, ...c.params });
        const got = await index.search(p, { now: newest + DAY, given: new Set(Object.keys(c.params)), onlyDomains: null });
        const accept = referenceAccept(p, c.from, c.to);
        const all = index.bm25.score(terms(query, 'en'));
        const scored = Array.from(all.docs, (d, i) => ({ a: index.views[d]!.a, score: all.scores[i]! })).filter((x) => accept(x.a));
        const want = referenceRanking(scored).slice(0, 10);
        expect(got.docs.map((a) => a.articleId)).toEqual(want.map((x) => x.a.articleId));
        expect(got.scores).toEqual(want.map((x) => x.score));
        compared += want.length;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('the vector scan, exact and over IVF lists, keeps only the candidates it is given', async () => {
    const q = (await index.embedQuery('central bank'))!;
    const v = index.vectors!;
    const candidates = Int32Array.from({ length: Math.floor(v.size / 3) }, (_, i) => i * 3);
    const exact = v.search(q, { candidates, threshold: -1, exact: true });
    expect(exact.docs.length).toBe(candidates.length);
    exact.docs.forEach((d, i) => {
      expect(d % 3).toBe(0);
      expect(Math.abs(exact.scores[i]! - naiveCosine(v.vector(d), q))).toBeLessThan(1e-12);
    });
    const { VectorIndex } = await import('../../../service/search/vectors.js');
    const small = new VectorIndex(v.dim, 1024, { ivfThreshold: 100, nprobe: 4 });
    for (let i = 0; i < 2000; i++) small.set(i, v.vector(i));
    const few = Int32Array.from({ length: 400 }, (_, i) => i * 5);
    const approx = small.search(q, { candidates: few, threshold: -1 });
    expect(approx.docs.length).toBeGreaterThan(0);
    for (const d of approx.docs) expect(d % 5).toBe(0);
  });
});
