/** The deterministic planner: sub-queries of a question, the first round, widening, stopping. */
import { describe, expect, it } from 'vitest';
import { firstRound, nextRound, questionParts } from '../../../service/agent/planner.js';
import type { NewsArticle } from '../../../service/article/model.js';

const all = () => true;

describe('questionParts', () => {
  it('splits a question into named entities, key phrases and time windows', () => {
    const p = questionParts('What did Boris Johnson say about the energy price cap in July 2022?');
    expect(p.entities).toContain('Boris Johnson');
    expect(p.phrases).toContain('energy price cap');
    expect(p.windows).toEqual([{ label: 'July 2022', start: Date.UTC(2022, 6, 1) / 1000, end: Date.UTC(2022, 7, 1) / 1000 - 1 }]);
    expect(p.core).not.toMatch(/\b(What|did|about|July|2022)\b/);
  });

  it('a bare year is a window of that year; no date, no window', () => {
    expect(questionParts('Inflation in 2021').windows).toEqual([{ label: '2021', start: Date.UTC(2021, 0, 1) / 1000, end: Date.UTC(2022, 0, 1) / 1000 - 1 }]);
    expect(questionParts('Why is inflation high?').windows).toEqual([]);
  });
});

describe('rounds', () => {
  it('round 1: the whole question first (weighted most), entity and phrase searches, stories; sources decide the tools', () => {
    const p = questionParts('What did Boris Johnson say about the energy price cap?');
    const calls = firstRound(p, new Set(['asknews', 'podcasts', 'wiki']), all);
    expect(calls[0]).toEqual({ tool: 'search_news', input: { query: p.full, n_articles: 20 }, weight: 2 });
    expect(calls.map((c) => c.tool)).toEqual(['search_news', 'search_news', 'search_news', 'search_stories', 'search_podcasts', 'search_wiki']);
    // an unusable tool is not planned
    expect(firstRound(p, new Set(['asknews', 'wiki']), (t) => t !== 'search_wiki').some((c) => c.tool === 'search_wiki')).toBe(false);
  });

  it('later rounds widen with entities the best articles share (not asked, not in the question) and their story; nothing left: no calls', () => {
    const p = questionParts('Why did Sri Lanka fall into crisis?');
    const art = (id: string, people: string[]): NewsArticle =>
      ({ articleId: id, entities: { Person: people, Organization: [], Location: ['Sri Lanka'], Event: [] } }) as unknown as NewsArticle;
    const ranked = [
      art('a', ['Gotabaya Rajapaksa', 'Ranil Wickremesinghe']),
      art('b', ['Gotabaya Rajapaksa']),
      art('c', ['Ranil Wickremesinghe', 'Someone Once']),
    ];
    const asked = new Set<string>();
    const calls = nextRound(p, new Set(['asknews']), all, { ranked, storyOf: (id) => (id === 'b' ? 'story-1' : null), asked });
    expect(calls).toEqual([
      { tool: 'search_news', input: { query: `${p.core} Gotabaya Rajapaksa`, method: 'kw' }, weight: 0.5, keys: ['q:gotabaya rajapaksa'] },
      { tool: 'search_news', input: { query: `${p.core} Ranil Wickremesinghe`, method: 'kw' }, weight: 0.5, keys: ['q:ranil wickremesinghe'] },
      { tool: 'search_stories', input: { story_id: 'story-1' }, weight: 0.5 },
    ]);
    for (const k of ['q:gotabaya rajapaksa', 'q:ranil wickremesinghe', 's:story-1']) asked.add(k);
    expect(nextRound(p, new Set(['asknews']), all, { ranked, storyOf: (id) => (id === 'b' ? 'story-1' : null), asked })).toEqual([]);
  });
});
