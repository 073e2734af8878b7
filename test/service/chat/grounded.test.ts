/**
 * Grounded chat with the offline extractive writer over the real corpus: 30 questions written by
 * reading the corpus (test/fixtures/chat/questions.json, each with the articles a good answer
 * draws on). Prints the figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { repoRoot } from '../../helpers/paths.js';
import { WATERMARK_RE, articleTexts, chat, citedSentences, idsByUrl, norm, parseAnswer } from '../../helpers/chat.js';
import { frame } from '../../../service/llm/extractive.js';
import { countTokens } from '../../../service/llm/tokens.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

const QUESTIONS = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/chat/questions.json'), 'utf8')) as { question: string; relevant: string[] }[];

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
});
afterAll(async () => svc?.stop());

const ask = (question: string, extra: Record<string, unknown> = {}) => chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: question }], ...extra });

describe('30 questions from the corpus, extractive answers', () => {
  it('cites a judged-relevant article in >= 80% of answers; every sentence is a span of its cited article; citations map one-to-one onto references', async () => {
    expect(QUESTIONS).toHaveLength(30);
    const byUrl = idsByUrl(svc);
    let relevantHit = 0;
    let sentences = 0;
    let spans = 0;
    let citedTotal = 0;
    const misses: string[] = [];
    for (const q of QUESTIONS) {
      const r = await ask(q.question, { journalist_mode: false, inline_citations: 'numbered', asknews_watermark: false });
      expect(r.status, q.question).toBe(200);
      expect(r.body.model).toBe('newsflow-extractive');
      const a = parseAnswer(r.body.choices[0].message.content);
      // one-to-one: the numbers cited are exactly 1..K in order of first appearance, and K references
      const firsts = [...new Set(a.cites)];
      expect(firsts, q.question).toEqual(firsts.map((_, i) => i + 1));
      expect(
        a.refs.map((x) => x.n),
        q.question,
      ).toEqual(firsts);
      const cited = a.refs.map((x) => byUrl.get(x.url)!);
      expect(cited.every(Boolean), q.question).toBe(true);
      citedTotal += cited.length;
      if (cited.some((id) => q.relevant.includes(id))) relevantHit++;
      else misses.push(q.question);
      // every sentence is a span of the article it cites (plain mode: no attribution framing)
      const texts = await articleTexts(svc, cited);
      for (const s of citedSentences(a.body)) {
        sentences++;
        const source = texts.get(cited[s.n - 1]!)!;
        const span = norm(s.text).replace(/[.]$/, '');
        if (source.includes(span)) spans++;
        else console.log(`not a span of [${s.n}]: ${span}`);
      }
    }
    const share = relevantHit / QUESTIONS.length;
    console.log(
      `grounded chat (extractive, 30 questions): ${relevantHit}/30 answers (${(share * 100).toFixed(0)}%) cite a judged-relevant article; ` +
        `${spans}/${sentences} sentences are spans of their cited article; ${citedTotal} citations, ${(citedTotal / 30).toFixed(1)} per answer` +
        (misses.length ? `; missed: ${misses.join(' | ')}` : ''),
    );
    expect(share).toBeGreaterThanOrEqual(0.8);
    expect(sentences).toBeGreaterThan(30);
    expect(spans).toBe(sentences);
  });

  it('journalist mode frames each extracted sentence with its publisher ("..., X reported") and still quotes the article', async () => {
    const r = await ask('Who shot Shinzo Abe and what happened to him?', { inline_citations: 'numbered', asknews_watermark: false });
    const a = parseAnswer(r.body.choices[0].message.content);
    const byUrl = idsByUrl(svc);
    const cited = a.refs.map((x) => byUrl.get(x.url)!);
    const texts = await articleTexts(svc, cited);
    const sents = citedSentences(a.body);
    expect(sents.length).toBeGreaterThan(1);
    for (const s of sents) {
      const id = cited[s.n - 1]!;
      const domain = svc.services.news!.index.get(id)!.domain;
      expect(s.text).toMatch(/ reported$|^[^:]+ reported: /);
      // the framing is exactly frame(span): find the span it was made from
      const m = /^(.*), (.+) reported$/.exec(s.text) ?? /^(.+) reported: (.*)$/.exec(s.text);
      const core = s.text.endsWith(' reported') ? m![1]! : m![2]!;
      expect(texts.get(id)!.includes(norm(core)), core).toBe(true);
      expect(frame(core, domain, true)).toBe(s.text);
    }
  });
});

describe('citation styles, references and watermark', () => {
  const Q = 'What did the Supreme Court decide about Roe v. Wade?';
  it("numbered: [n]; markdown_link: [[n](url)] with the reference's url; none: no markers, references kept", async () => {
    const numbered = parseAnswer((await ask(Q, { inline_citations: 'numbered' })).body.choices[0].message.content);
    const md = (await ask(Q, { inline_citations: 'markdown_link' })).body.choices[0].message.content as string;
    const none = (await ask(Q, { inline_citations: 'none' })).body.choices[0].message.content as string;
    expect(numbered.cites.length).toBeGreaterThan(1);
    expect(numbered.body).toMatch(/ \[1\]/);
    expect(numbered.body).not.toMatch(/\]\(/);
    const links = [...md.split('\n\nReferences:')[0]!.matchAll(/\[\[(\d+)\]\(([^)]+)\)\]/g)];
    expect(links.length).toBe(numbered.cites.length);
    const mdRefs = parseAnswer(md).refs;
    for (const l of links) expect(l[2]).toBe(mdRefs[Number(l[1]) - 1]!.url);
    const noneBody = none.split('\n\nReferences:')[0]!;
    expect(noneBody).not.toMatch(/\[\d+\]/);
    expect(noneBody).not.toMatch(/ \./);
    expect(parseAnswer(none).refs.map((x) => x.url)).toEqual(numbered.refs.map((x) => x.url));
    // the same sentences in all three
    expect(noneBody).toBe(numbered.body.replace(/ \[\d+\]/g, ''));
  });

  it('append_references and asknews_watermark on and off', async () => {
    const both = (await ask(Q, {})).body.choices[0].message.content as string;
    expect(both).toMatch(/\n\nReferences:\n\[1\] /);
    expect(both).toMatch(WATERMARK_RE);
    const neither = (await ask(Q, { append_references: false, asknews_watermark: false })).body.choices[0].message.content as string;
    expect(neither).not.toMatch(/References:/);
    expect(neither).not.toMatch(WATERMARK_RE);
    expect(both.startsWith(neither)).toBe(true);
    const refsOnly = (await ask(Q, { asknews_watermark: false })).body.choices[0].message.content as string;
    expect(refsOnly).toMatch(/References:/);
    expect(refsOnly).not.toMatch(WATERMARK_RE);
  });
});

describe('sampling fields', () => {
  const Q = 'Who won the Wimbledon final between Djokovic and Kyrgios?';
  it('max_tokens cuts the answer at that many tokens with finish_reason length; usage counts them', async () => {
    const full = (await ask(Q)).body;
    expect(full.choices[0].finish_reason).toBe('stop');
    expect(full.usage.completion_tokens).toBe(countTokens(full.choices[0].message.content));
    expect(full.usage.total_tokens).toBe(full.usage.prompt_tokens + full.usage.completion_tokens);
    const cut = (await ask(Q, { max_tokens: 25 })).body;
    expect(cut.choices[0].finish_reason).toBe('length');
    expect(cut.usage.completion_tokens).toBeLessThanOrEqual(25);
    expect(cut.usage.completion_tokens).toBe(countTokens(cut.choices[0].message.content));
    expect(full.choices[0].message.content.startsWith(cut.choices[0].message.content)).toBe(true);
  });

  it('stop ends the answer before the first stop sequence; n gives n choices', async () => {
    const r = (await ask(Q, { stop: [' reported'], n: 2 })).body;
    expect(r.choices).toHaveLength(2);
    for (const c of r.choices) {
      expect(c.message.content).not.toContain(' reported');
      expect(c.finish_reason).toBe('stop');
    }
    expect(r.choices.map((c: { index: number }) => c.index)).toEqual([0, 1]);
    const full = (await ask(Q)).body.choices[0].message.content as string;
    expect(full.startsWith(r.choices[0].message.content)).toBe(true);
  });

  it('filter_params narrow retrieval: every cited article is from the requested domain', async () => {
    const r = await ask('What is happening in Ukraine?', { filter_params: { domain_url: ['aljazeera.com'], n_articles: 5 }, inline_citations: 'numbered' });
    expect(r.status).toBe(200);
    const a = parseAnswer(r.body.choices[0].message.content);
    expect(a.refs.length).toBeGreaterThan(0);
    for (const ref of a.refs) expect(ref.url).toMatch(/aljazeera\.com/);
  });
});

describe('hit events', () => {
  it('records a grounded event per article in the context and a citation event per cited article', async () => {
    const keyId = svc.keyIds.analyst!;
    const r = await chat(svc, svc.keys.analyst!, {
      messages: [{ role: 'user', content: 'How fast are monkeypox cases spreading?' }],
      filter_params: { n_articles: 7 },
    });
    expect(r.status).toBe(200);
    const cited = parseAnswer(r.body.choices[0].message.content).refs.length;
    await svc.services.news!.hits.flush();
    const rows = await svc.services.db.all<{ kind: string; n: bigint }>(
      'SELECT kind, count(*) AS n FROM hit_events WHERE key_id = $1 GROUP BY kind ORDER BY kind',
      [keyId],
    );
    const by = Object.fromEntries(rows.map((x) => [x.kind, Number(x.n)]));
    expect(by.grounded).toBe(7);
    expect(cited).toBeGreaterThan(0);
    expect(by.citation).toBe(cited);
  });
});
