/**
 * A chat or DeepNews request is bounded in work, not only in bytes (spec/chat.ts CHAT_LIMITS):
 * too many messages, or too many characters in all, is a 422 naming `messages` before any
 * per-message work, so it costs no other request anything; within the limits, only the newest
 * turns are worked on and stored. The latencies are printed, never asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_LIMITS } from '../../spec/index.js';
import { HISTORY_TOKENS } from '../../service/chat/completion.js';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'news=1000:1000:100,chat=1000:1000:100,deepnews=1000:1000:100' });
});
afterAll(async () => svc?.stop());

const SEARCH = '/v1/news/search?query=election&n_articles=10&historical=true&method=kw';
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
}
/** `n` one-word messages as JSON text, as the reproduction of the finding wrote them (Python's json.dumps: 100,000 are 3.4 MB). */
const manyMessages = (n: number) => `{"messages": [${Array.from({ length: n }, () => '{"role": "user", "content": "x"}').join(', ')}]}`;

async function postText(p: string, text: string, key = svc.keys.org!) {
  const res = await fetch(`${svc.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: text });
  return { status: res.status, body: (await res.json()) as { code: number; detail: { loc: (string | number)[]; msg: string }[] } };
}

describe('the size of a chat or DeepNews request', () => {
  it('100,000 one-word messages are refused at once with a 422 naming messages, and a search sent right after is not held up', async () => {
    const text = manyMessages(100_000);
    expect(text.length).toBeGreaterThan(3_000_000);
    for (const p of ['/v1/openai/chat/completions', '/v1/chat/deepnews']) {
      await api(svc.url, 'GET', SEARCH, svc.keys.org); // warm
      const [, idle] = await timed(() => api(svc.url, 'GET', SEARCH, svc.keys.org));
      const refused = timed(() => postText(p, text));
      // one search goes out while the big request is being refused, one right after its answer
      const [during, withIt] = await timed(() => api(svc.url, 'GET', SEARCH, svc.keys.org));
      const [r, took] = await refused;
      const [search, after] = await timed(() => api(svc.url, 'GET', SEARCH, svc.keys.org));
      console.log(
        `${p}: 100,000 messages (${(text.length / 1e6).toFixed(1)} MB) answered ${r.status} in ${took.toFixed(0)} ms; ` +
          `a search: ${idle.toFixed(0)} ms idle, ${withIt.toFixed(0)} ms sent with it, ${after.toFixed(0)} ms right after`,
      );
      expect(during.status).toBe(200);
      expect(r.status).toBe(422);
      expect(r.body.detail[0]!.loc).toEqual(['body', 'messages']);
      expect(r.body.detail[0]!.msg).toMatch(`at most ${CHAT_LIMITS.maxMessages}`);
      expect(search.status).toBe(200);
    }
  });

  it(`more than ${CHAT_LIMITS.maxChars} characters in all is a 422 naming messages; ${CHAT_LIMITS.maxMessages} messages within it are answered`, async () => {
    const big = 'word '.repeat(1000);
    const over = Array.from({ length: Math.ceil(CHAT_LIMITS.maxChars / big.length) + 1 }, () => ({ role: 'user', content: big }));
    for (const p of ['/v1/openai/chat/completions', '/v1/chat/deepnews']) {
      const r = await api(svc.url, 'POST', p, svc.keys.org, { messages: over });
      expect(r.status, p).toBe(422);
      expect(r.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'messages'], msg: expect.stringMatching(`more than ${CHAT_LIMITS.maxChars} characters`) }),
      ]);
      const ok = await api(svc.url, 'POST', p, svc.keys.org, {
        messages: Array.from({ length: CHAT_LIMITS.maxMessages }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` })),
      });
      expect(ok.status, p).toBe(200);
    }
  });

  it('of a long conversation only the newest turns are worked on and stored in the thread, the last question kept', async () => {
    const turns = Array.from({ length: CHAT_LIMITS.maxMessages - 2 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `turn ${i} ${'about the news '.repeat(20)}`,
    }));
    const messages = [{ role: 'system', content: 'Answer in one line.' }, ...turns, { role: 'user', content: 'Who won the election?' }];
    const r = await api(svc.url, 'POST', '/v1/openai/chat/completions', svc.keys.org, { messages });
    expect(r.status).toBe(200);
    const stored = (await svc.services.threads.messages(r.body.thread_id, (await svc.services.keys.resolve(svc.keys.org!))!.userId))!;
    // the newest turns of the request within HISTORY_TOKENS, the question last, then the answer
    const kept = stored.slice(0, -1).map((m) => m.content);
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.length).toBeLessThan(messages.length / 4);
    expect(kept).toEqual([...turns.map((t) => t.content), 'Who won the election?'].slice(-kept.length));
    expect(stored[stored.length - 1]!.role).toBe('assistant');
    expect(r.body.usage.prompt_tokens).toBeLessThan(HISTORY_TOKENS * 3);
  });
});
