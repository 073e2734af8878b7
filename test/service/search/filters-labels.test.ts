/** Label filters: categories, provocative, reporting_voice, sentiment, entity_guarantee (+op, reverse), string_guarantee (+op, reverse). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { search, startCorpusService } from '../../helpers/news.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());
const all = { historical: true, n_articles: 101 };
const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());

describe('label filters', () => {
  it('categories keep articles classified in any of them; All means no filter', async () => {
    const r = await search(svc, { ...all, categories: ['Sports'] });
    expect(r.dicts.length).toBe(101);
    expect(r.dicts.every((d) => d.classification.includes('Sports'))).toBe(true);
    const two = await search(svc, { ...all, categories: ['Health', 'Science'] });
    expect(two.dicts.every((d) => d.classification.includes('Health') || d.classification.includes('Science'))).toBe(true);
    expect((await search(svc, { ...all, categories: ['All'] })).dicts.map((d) => d.article_id)).toEqual(
      (await search(svc, all)).dicts.map((d) => d.article_id),
    );
  });
  it('provocative picks one level; all means no filter', async () => {
    for (const level of ['low', 'medium', 'high'] as const) {
      const r = await search(svc, { ...all, provocative: level });
      expect(r.dicts.length, level).toBeGreaterThan(0);
      expect(r.dicts.every((d) => d.provocative === level)).toBe(true);
    }
  });
  it('reporting_voice takes one value or a list', async () => {
    const one = await search(svc, { ...all, reporting_voice: 'Explanatory' });
    expect(one.dicts.length).toBeGreaterThan(0);
    expect(one.dicts.every((d) => d.reporting_voice === 'Explanatory')).toBe(true);
    const two = await search(svc, { ...all, reporting_voice: ['Investigative', 'Emotive'] });
    expect(new Set(two.dicts.map((d) => d.reporting_voice))).toEqual(new Set(['Investigative', 'Emotive']));
  });
  it('sentiment splits by sign of the integer score', async () => {
    const neg = await search(svc, { ...all, sentiment: 'negative' });
    const neu = await search(svc, { ...all, sentiment: 'neutral' });
    const pos = await search(svc, { ...all, sentiment: 'positive' });
    expect(neg.dicts.every((d) => d.sentiment < 0)).toBe(true);
    expect(neu.dicts.every((d) => d.sentiment === 0)).toBe(true);
    expect(pos.dicts.every((d) => d.sentiment > 0)).toBe(true);
    expect(Math.min(neg.dicts.length, neu.dicts.length, pos.dicts.length)).toBe(101);
  });
  it('entity_guarantee Location:Ukraine returns only articles with that entity', async () => {
    const r = await search(svc, { ...all, entity_guarantee: ['Location:Ukraine'] });
    expect(r.dicts.length).toBe(101);
    expect(r.dicts.every((d) => lower(d.entities.Location!).includes('ukraine'))).toBe(true);
  });
  it('entity_guarantee_op AND needs all, OR (default) any; reverse excludes', async () => {
    const and = await search(svc, { ...all, entity_guarantee: ['Location:Ukraine', 'Location:Russia'], entity_guarantee_op: 'AND' });
    expect(and.dicts.length).toBeGreaterThan(0);
    expect(and.dicts.every((d) => lower(d.entities.Location!).includes('ukraine') && lower(d.entities.Location!).includes('russia'))).toBe(true);
    const or = await search(svc, { ...all, entity_guarantee: ['Location:Ukraine', 'Person:Biden'] });
    expect(or.dicts.every((d) => lower(d.entities.Location!).includes('ukraine') || lower(d.entities.Person!).includes('biden'))).toBe(true);
    expect(or.dicts.some((d) => !lower(d.entities.Location!).includes('ukraine'))).toBe(true);
    const rev = await search(svc, { ...all, query: 'ukraine', reverse_entity_guarantee: ['Location:Ukraine'] });
    expect(rev.dicts.every((d) => !lower(d.entities.Location!).includes('ukraine'))).toBe(true);
  });
  it('string_guarantee (AND default, OR) and reverse_string_guarantee match the text', async () => {
    const and = await search(svc, { ...all, string_guarantee: ['grain', 'ukrain'] });
    expect(and.dicts.length).toBeGreaterThan(0);
    // the guarantee reads the full text too: check against it
    const full = new Map<string, string>();
    const fetchFull = async (ids: string[]) => {
      for (let i = 0; i < ids.length; i += 100) {
        const res = await fetch(
          `${svc.url}/v1/news?${ids
            .slice(i, i + 100)
            .map((x) => `article_ids=${x}`)
            .join('&')}&full_text=true`,
          { headers: { authorization: `Bearer ${svc.keys.org}` } },
        );
        for (const a of (await res.json()) as { article_id: string; title: string; summary: string; key_points: string[]; full_text: string | null }[]) {
          full.set(a.article_id, [a.title, a.summary, ...a.key_points, a.full_text ?? ''].join('\n').toLowerCase());
        }
      }
    };
    const text = (d: { article_id: string }) => full.get(d.article_id)!;
    await fetchFull(and.dicts.map((d) => d.article_id));
    expect(and.dicts.every((d) => text(d).includes('grain') && text(d).includes('ukrain'))).toBe(true);
    const or = await search(svc, { ...all, string_guarantee: ['wimbledon', 'grand prix'], string_guarantee_op: 'OR' });
    await fetchFull(or.dicts.map((d) => d.article_id));
    expect(or.dicts.every((d) => text(d).includes('wimbledon') || text(d).includes('grand prix'))).toBe(true);
    expect(or.dicts.some((d) => text(d).includes('wimbledon'))).toBe(true);
    const rev = await search(svc, { ...all, query: 'inflation', reverse_string_guarantee: ['fed'] });
    expect(rev.dicts.length).toBeGreaterThan(0);
    await fetchFull(rev.dicts.map((d) => d.article_id));
    expect(rev.dicts.every((d) => !text(d).includes('fed'))).toBe(true);
  });
});
