/**
 * DeepNews with the deterministic planner and the extractive writer over the real corpus: 15
 * research questions written by reading the corpus (test/fixtures/deepnews/questions.json, each
 * with the articles a reader judged relevant, by title). Prints the figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepNewsResponse } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { repoRoot } from '../../helpers/paths.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { citedArticles } from '../../helpers/deepnews.js';

const QUESTIONS = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/deepnews/questions.json'), 'utf8')) as {
  question: string;
  relevant: string[];
}[];

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'deepnews=100000:100000:100' });
});
afterAll(async () => svc?.stop());

const deepnews = (question: string, extra: Record<string, unknown> = {}, key = svc.keys.org!) =>
  api(svc.url, 'POST', '/v1/chat/deepnews', key, { messages: [{ role: 'user', content: question }], ...extra });

/** Inline citation numbers of the report body, in order of appearance. */
const inlineCites = (content: string) => [...content.split('\n\nCited Articles:\n')[0]!.matchAll(/\[\[?(\d+)\]/g)].map((m) => Number(m[1]));

describe('15 research questions from the corpus', () => {
  it('each report cites >= 3 distinct judged-relevant articles, and the returned sources are exactly the cited ones', async () => {
    expect(QUESTIONS).toHaveLength(15);
    const figures: string[] = [];
    let total = 0;
    const misses: string[] = [];
    for (const q of QUESTIONS) {
      const r = await deepnews(q.question);
      expect(r.status, q.question).toBe(200);
      const body = DeepNewsResponse.parse(r.body);
      expect(body.model).toBe('newsflow-extractive');
      const content = body.choices[0]!.message.content;
      const cited = citedArticles(content);
      const news = body.sources.news!;
      // only_cited_sources (default true): the sources are the cited articles, in citation order
      expect(
        news.map((a) => a.article_url),
        q.question,
      ).toEqual(cited.map((c) => c.url));
      expect(body.sources.web).toEqual([]);
      expect(body.sources.charts).toEqual([]);
      const relevant = new Set(news.map((a) => a.article_id).filter((id) => q.relevant.includes(id)));
      figures.push(`${relevant.size}/${news.length} cited relevant: ${q.question}`);
      total += relevant.size;
      if (relevant.size < 3) misses.push(q.question);
      expect(body.usage.tool_usage!.search_news).toBeGreaterThanOrEqual(1);
    }
    console.log(`deepnews research: ${total} judged-relevant citations over ${QUESTIONS.length} reports\n  ${figures.join('\n  ')}`);
    expect(misses).toEqual([]);
  });

  it('start_citation_number 5 makes the first citation 5; cutoff_datetime leaves no source published after it and the report says so (all 15)', async () => {
    let sources = 0;
    for (const q of QUESTIONS) {
      // the cutoff: the third judged-relevant article's publication time (so some remain before it)
      const dates = q.relevant
        .map((id) => svc.services.news!.index.get(id)?.pubDate.getTime())
        .filter((t): t is number => t !== undefined)
        .sort((a, b) => a - b);
      const cutoff = new Date(dates[Math.min(2, dates.length - 1)]!).toISOString();
      const r = await deepnews(q.question, { start_citation_number: 5, cutoff_datetime: cutoff, only_cited_sources: false, inline_citations: 'numbered' });
      expect(r.status, q.question).toBe(200);
      const body = DeepNewsResponse.parse(r.body);
      const content = body.choices[0]!.message.content;
      const cites = inlineCites(content);
      expect(cites[0], q.question).toBe(5);
      expect(citedArticles(content).map((c) => c.n)).toEqual([...new Set(cites)].sort((a, b) => a - b));
      expect(content).toContain(`Knowledge cutoff: ${cutoff}`);
      for (const a of body.sources.news!) expect(Date.parse(a.pub_date), `${a.title} after ${cutoff}`).toBeLessThanOrEqual(Date.parse(cutoff));
      sources += body.sources.news!.length;
    }
    console.log(`deepnews cutoff: ${sources} sources over 15 reports, none published after its cutoff`);
  });

  it('is deterministic: the same question and parameters give the same report byte for byte, whatever max_parallel_tool_calls', async () => {
    const q = QUESTIONS[3]!.question;
    const a = await deepnews(q, { search_depth: 3, sources: ['asknews', 'full_text_discovery'] });
    const b = await deepnews(q, { search_depth: 3, sources: ['asknews', 'full_text_discovery'], max_parallel_tool_calls: 4 });
    expect(a.status).toBe(200);
    expect(b.body.choices[0].message.content).toBe(a.body.choices[0].message.content);
    expect(b.body.sources).toEqual(a.body.sources);
    expect(b.body.usage.tool_usage).toEqual(a.body.usage.tool_usage);
  });

  it('a run of search_depth k is the first k rounds of a deeper run (the durability hook): its tool calls are a prefix', async () => {
    const q = QUESTIONS[0]!.question;
    const streamed = async (depth: number) => {
      const r = await fetch(`${svc.url}/v1/chat/deepnews`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: q }], search_depth: depth, max_depth: 10, stream: true, engine: 'v2.0' }),
      });
      const text = await r.text();
      return text
        .split('\n\n')
        .filter((e) => e.startsWith('data: {'))
        .map((e) => JSON.parse(e.slice(6)))
        .flatMap((e) => e.choices ?? [])
        .map((c) => c.delta)
        .filter((d) => d.type === 'content_block_start' && d.content_block.type === 'tool_use')
        .map((d) => d.content_block.name);
    };
    const one = await streamed(1);
    const three = await streamed(3);
    expect(one.length).toBeGreaterThan(0);
    expect(three.length).toBeGreaterThan(one.length);
    expect(three.slice(0, one.length)).toEqual(one);
  });

  it('every request field is honoured: return_sources false, append_references false, watermark off, include_* on source articles, source pruning, n, max_tokens', async () => {
    const q = QUESTIONS[6]!.question;
    const none = await deepnews(q, { return_sources: false, append_references: false, asknews_watermark: false });
    expect(none.status).toBe(200);
    expect(none.body.sources).toEqual({ news: [], web: [], charts: [] });
    expect(none.body.choices[0].message.content).not.toContain('Cited Articles');
    expect(none.body.choices[0].message.content).not.toMatch(/newsflow \(AskNews-compatible API\)/);

    const rich = await deepnews(q, { only_cited_sources: false, include_graphs: true, include_coordinates: true, include_entities: false });
    const a = rich.body.sources.news[0];
    expect(a.entity_relation_graph).not.toBeNull();
    expect(a.geo_coordinates).not.toBeNull();
    expect(Object.values(a.entities).every((v) => Array.isArray(v) && v.length === 0)).toBe(true);
    expect(rich.body.sources.news.length).toBeGreaterThan(citedArticles(rich.body.choices[0].message.content).length);

    const pruned = await deepnews(q, { only_cited_sources: false, enable_source_pruning: true });
    expect(pruned.body.sources.news.length).toBeLessThanOrEqual(rich.body.sources.news.length);

    const two = await deepnews(q, { n: 2, max_tokens: 40 });
    expect(two.body.choices).toHaveLength(2);
    expect(two.body.choices[0].finish_reason).toBe('length');
  });
});
