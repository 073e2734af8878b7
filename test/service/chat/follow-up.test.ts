/**
 * A follow-up in a thread is made self-standing before retrieval: "and what did Russia say?"
 * after a question about Brittney Griner's trial retrieves articles about her trial, judged so in
 * test/fixtures/relevance.json ("Brittney Griner trial in Russia"), without a model (the thread's
 * subject carried into the query) and with one (a local OpenAI-compatible server rewrites it in
 * one short call). The same words sent alone retrieve none of them. What was retrieved is read
 * from the grounded hit events the service records for each article placed in the context, with
 * the query it searched for.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { chat } from '../../helpers/chat.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/llm-servers.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { stableUuid } from '../../../service/corpus/read.js';

interface Judged {
  query: string;
  relevant: { key: string; grade: number; title: string }[];
}
const judged = (JSON.parse(fs.readFileSync(new URL('../../fixtures/relevance.json', import.meta.url), 'utf8')) as Judged[]).find(
  (j) => j.query === 'Brittney Griner trial in Russia',
)!;
const idOf = (key: string) => stableUuid(/^https?:/.test(key) ? `headlines-2022:${key}` : `bbc-2004-2005:${key}`);
const GRINER = new Set(judged.relevant.map((r) => idOf(r.key)));

const FIRST = "What is happening in Brittney Griner's trial?";
const FOLLOW = 'and what did Russia say?';

let svc: TestService;
let fake: FakeLlm;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
  fake = await startFakeLlm('openai', ['Griner appeared in court [1].']);
  svc.services.config.llmTimeoutMs = 5000;
});
afterAll(async () => {
  await fake?.close();
  await svc?.stop();
});

/** The articles retrieved for each query the analyst key's requests searched (grounded hit events), in retrieval order. */
async function retrieved(): Promise<Map<string, string[]>> {
  await svc.services.news!.hits.flush();
  const rows = await svc.services.db.all<{ query: string; article_id: string }>(
    "SELECT query, article_id FROM hit_events WHERE kind = 'grounded' AND key_id = $1 ORDER BY ts",
    [svc.keyIds.analyst!],
  );
  const by = new Map<string, string[]>();
  for (const r of rows) by.set(r.query, [...(by.get(r.query) ?? []), r.article_id]);
  return by;
}
const judgedShare = (ids: string[]) => ids.filter((id) => GRINER.has(id)).length;

async function thread(model?: string) {
  const key = svc.keys.analyst!;
  const first = await chat(svc, key, { messages: [{ role: 'user', content: FIRST }], ...(model ? { model } : {}) });
  expect(first.status).toBe(200);
  const second = await chat(svc, key, { messages: [{ role: 'user', content: FOLLOW }], thread_id: first.body.thread_id, ...(model ? { model } : {}) });
  expect(second.status).toBe(200);
  const alone = await chat(svc, key, { messages: [{ role: 'user', content: FOLLOW }], ...(model ? { model } : {}) });
  expect(alone.status).toBe(200);
  return second;
}

describe('a follow-up in a thread', () => {
  it("without a model: the thread's subject is carried into the query, which retrieves judged Griner articles; the follow-up alone retrieves none", async () => {
    svc.services.config.llm = null;
    await thread();
    const by = await retrieved();
    const carried = [...by.keys()].find((q) => q.startsWith(FOLLOW) && q !== FOLLOW)!;
    expect(carried).toMatch(/Brittney Griner/);
    const inThread = by.get(carried)!;
    const alone = by.get(FOLLOW)!;
    console.log(
      `follow-up without a model: "${carried}" retrieves ${judgedShare(inThread)}/${inThread.length} judged Griner articles; alone ${judgedShare(alone)}/${alone.length}`,
    );
    expect(judgedShare(inThread)).toBeGreaterThanOrEqual(5);
    expect(judgedShare(alone)).toBe(0);
  });

  it('with a model: one short call rewrites the follow-up from the transcript; the rewritten query retrieves judged Griner articles', async () => {
    svc.services.config.llm = { url: `${fake.url}/v1`, model: 'local-model' };
    const REWRITTEN = "Russia's statements on Brittney Griner's drug smuggling trial";
    try {
      fake.requests.length = 0;
      // the rewrite call is the one plain (not streamed) request; it is answered with a query
      fake.answer = (body) => (body.stream ? undefined : [`"${REWRITTEN}"\n`]);
      const second = await thread('local-model');
      const rewrites = fake.requests.filter((r) => !r.body.stream);
      // one for the follow-up in the thread; the first message and the follow-up alone are self-standing
      expect(rewrites).toHaveLength(1);
      expect(rewrites[0]!.body).toMatchObject({ model: 'local-model', temperature: 0, max_tokens: 48, stream: false });
      const transcript = rewrites[0]!.body.messages[1].content as string;
      expect(transcript).toContain(`User: ${FIRST}`);
      expect(transcript).toContain('Assistant: Griner appeared in court');
      expect(transcript).toContain(`Last message: ${FOLLOW}`);
      // the answer's context holds what the rewritten query found; its usage counts the rewrite call
      const by = await retrieved();
      const inThread = by.get(REWRITTEN)!;
      console.log(`follow-up with a model: "${REWRITTEN}" retrieves ${judgedShare(inThread)}/${inThread.length} judged Griner articles`);
      expect(judgedShare(inThread)).toBeGreaterThanOrEqual(5);
      expect(judgedShare(by.get(FOLLOW)!)).toBe(0);
      const answer = fake.requests.filter((r) => r.body.stream).at(-2)!.body;
      expect(answer.messages[answer.messages.length - 1].content).toBe(FOLLOW);
      expect(second.body.usage.prompt_tokens).toBeGreaterThan(0);
    } finally {
      fake.answer = undefined;
      svc.services.config.llm = null;
    }
  });
});
