/**
 * Relevance on a judged set (test/fixtures/relevance.json: 26 queries written by reading the
 * corpus, graded 2 = on topic, 1 = partly). nDCG@10 for kw, nl and both is printed and checked
 * against floors; paraphrase queries must show nl finding what kw cannot.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { search, startCorpusService } from '../../helpers/news.js';
import { stableUuid } from '../../../service/corpus/read.js';

interface Judged {
  query: string;
  kind: 'keyword' | 'paraphrase';
  relevant: { key: string; grade: number; title: string }[];
}
const judged = JSON.parse(fs.readFileSync(new URL('../../fixtures/relevance.json', import.meta.url), 'utf8')) as Judged[];
const idOf = (key: string) => stableUuid(/^https?:/.test(key) ? `headlines-2022:${key}` : `bbc-2004-2005:${key}`);

export function ndcgAt10(ranked: string[], grades: Map<string, number>): number {
  const dcg = ranked.slice(0, 10).reduce((s, id, i) => s + (2 ** (grades.get(id) ?? 0) - 1) / Math.log2(i + 2), 0);
  const ideal = [...grades.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}

let svc: TestService;
const results: Record<string, Record<string, string[]>> = { kw: {}, nl: {}, both: {} };
beforeAll(async () => {
  svc = await startCorpusService();
  for (const method of ['kw', 'nl', 'both']) {
    for (const j of judged) {
      const r = await search(svc, { query: j.query, method, historical: true, n_articles: 10, similarity_score_threshold: 0 });
      results[method]![j.query] = r.dicts.map((d) => d.article_id);
    }
  }
});
afterAll(async () => svc?.stop());

describe('relevance on the judged set', () => {
  it('has at least 20 judged queries whose keys are in the store', async () => {
    expect(judged.length).toBeGreaterThanOrEqual(20);
    const ids = judged.flatMap((j) => j.relevant.map((r) => idOf(r.key)));
    const found = (await fetch(
      `${svc.url}/v1/news?${ids
        .slice(0, 100)
        .map((i) => `article_ids=${i}`)
        .join('&')}`,
      { headers: { authorization: `Bearer ${svc.keys.org}` } },
    ).then((r) => r.json())) as unknown[];
    expect(found.length).toBe(new Set(ids.slice(0, 100)).size);
  });

  it('reports nDCG@10 for kw, nl and both', () => {
    const table: Record<string, Record<string, number>> = {};
    for (const method of ['kw', 'nl', 'both']) {
      const per = judged.map((j) => ndcgAt10(results[method]![j.query]!, new Map(j.relevant.map((r) => [idOf(r.key), r.grade]))));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const kinds = (k: string) => judged.map((j, i) => (j.kind === k ? per[i]! : NaN)).filter((x) => !Number.isNaN(x));
      table[method] = { all: mean(per), keyword: mean(kinds('keyword')), paraphrase: mean(kinds('paraphrase')) };
    }
    console.log(
      'nDCG@10',
      JSON.stringify(
        Object.fromEntries(Object.entries(table).map(([m, v]) => [m, Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Number(x.toFixed(3))]))])),
      ),
    );
    // floors well under what we measure, so a broken ranker fails and noise does not
    expect(table.kw!.keyword).toBeGreaterThan(0.5);
    expect(table.nl!.paraphrase).toBeGreaterThan(table.kw!.paraphrase!);
    expect(table.both!.all).toBeGreaterThanOrEqual(Math.min(table.kw!.all!, table.nl!.all!));
  });

  it('nl finds a paraphrase that kw misses', () => {
    const wins = judged
      .filter((j) => j.kind === 'paraphrase')
      .flatMap((j) => {
        const rel = new Set(j.relevant.map((r) => idOf(r.key)));
        const kw = new Set(results.kw![j.query]!);
        return results
          .nl![j.query]!.filter((id) => rel.has(id) && !kw.has(id))
          .map((id) => ({ query: j.query, title: j.relevant.find((r) => idOf(r.key) === id)!.title }));
      });
    console.log('nl-only finds (first 5):', JSON.stringify(wins.slice(0, 5)));
    expect(wins.length).toBeGreaterThan(0);
  });
});
