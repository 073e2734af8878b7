/** A research round's rows: each source numbered as the report's references number it (a wiki passage may be [1], an article [2]), the references cut from the landed report. */
import { describe, expect, it } from 'vitest';
import { researchRows, roundRequest, splitReferences } from '../../activities/deep-research.js';
import type { DeepNewsResponse } from '../../spec/index.js';

const input = { runId: 'r1', name: null, round: 2, rounds: 2, loadId: 'l1', runAt: '2026-01-01T00:00:00Z', params: { question: 'What is SpiderMonkey?' } };
const article = (id: string, url: string) => ({
  article_id: id,
  article_url: url,
  title: `t ${id}`,
  domain_url: 'example.com',
  pub_date: '2025-12-31T00:00:00Z',
});
const answer = (content: string, news: ReturnType<typeof article>[], web: { url: string; title: string; source: string; published: string | null }[]) =>
  ({ choices: [{ message: { content } }], sources: { news, web }, model: 'm', usage: { total_tokens: 1 } }) as unknown as DeepNewsResponse;

describe('research rows', () => {
  it('asks for numbered citations with the references appended', () => {
    expect(roundRequest({ question: 'q' }, 1, input.runAt)).toMatchObject({ inline_citations: 'numbered', start_citation_number: 1, append_references: true });
  });

  it('numbers each source by its URL in the references, whatever its kind, and cuts them from the report', () => {
    const report =
      'SpiderMonkey is an engine, according to Wikipedia [1]. Firefox ships it [2].\n\nResearch: 2 round(s).\n\nCited Articles:\n[1] SpiderMonkey (Wikipedia) https://en.wikipedia.org/wiki/SpiderMonkey\n[2] Firefox 120 (example.com, 2025-12-31) https://example.com/ff';
    const r = researchRows(
      input,
      answer(
        report,
        [article('a1', 'https://example.com/ff'), article('a2', 'https://example.com/other')],
        [{ url: 'https://en.wikipedia.org/wiki/SpiderMonkey', title: 'SpiderMonkey', source: 'wiki', published: null }],
      ),
    );
    expect(r.sources.map((s) => [s.citation, s.kind, s.url])).toEqual([
      [1, 'web', 'https://en.wikipedia.org/wiki/SpiderMonkey'],
      [2, 'news', 'https://example.com/ff'],
      [3, 'news', 'https://example.com/other'], // found, not cited: after the cited ones
    ]);
    expect(r.run.report).toBe('SpiderMonkey is an engine, according to Wikipedia [1]. Firefox ships it [2].\n\nResearch: 2 round(s).');
    expect(r.roundsRun).toBe(2);
  });

  it('a report without references (an API that does not append them) keeps the order of its sources, news first', () => {
    const { body, numbers } = splitReferences('no references here [1]');
    expect([body, numbers.size]).toEqual(['no references here [1]', 0]);
    const r = researchRows(input, answer('text [1] [2]', [article('a1', 'https://x/1')], [{ url: 'https://y/2', title: 'y', source: 'web', published: null }]));
    expect(r.sources.map((s) => [s.citation, s.kind])).toEqual([
      [1, 'news'],
      [2, 'web'],
    ]);
  });
});
