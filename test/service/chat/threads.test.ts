/** Threads: a request with a known thread_id continues the conversation; an unknown one is 404. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { articleTexts, chat, idsByUrl, parseAnswer } from '../../helpers/chat.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
});
afterAll(async () => svc?.stop());

describe('chat threads', () => {
  it('"What is happening in Ukraine?" then "And how did Russia respond?" in the same thread: the second answer cites Ukraine/Russia articles', async () => {
    const first = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: 'What is happening in Ukraine?' }], inline_citations: 'numbered' });
    expect(first.status).toBe(200);
    const threadId = first.body.thread_id as string;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.headers.get('x-thread-id')).toBe(threadId);
    const second = await chat(svc, svc.keys.org!, {
      messages: [{ role: 'user', content: 'And how did Russia respond?' }],
      thread_id: threadId,
      inline_citations: 'numbered',
    });
    expect(second.status).toBe(200);
    expect(second.body.thread_id).toBe(threadId);
    const refs = parseAnswer(second.body.choices[0].message.content).refs;
    expect(refs.length).toBeGreaterThan(1);
    const byUrl = idsByUrl(svc);
    const texts = await articleTexts(
      svc,
      refs.map((r) => byUrl.get(r.url)!),
    );
    const onTopic = [...texts.values()].filter((t) => /ukrain|russia|kremlin|putin|moscow|kyiv/i.test(t));
    console.log(`thread follow-up: ${onTopic.length}/${texts.size} cited articles are about Ukraine/Russia`);
    expect(onTopic.length).toBe(texts.size);
    // the thread holds both turns and both answers
    const stored = await svc.services.threads.messages(threadId, (await svc.services.keys.resolve(svc.keys.org!))!.userId);
    expect(stored!.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored![2]!.content).toBe('And how did Russia respond?');
    // without the thread, the follow-up alone is less about Ukraine: a smaller share of its cited articles mention it
    const alone = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: 'And how did Russia respond?' }], conversational_awareness: false });
    expect(alone.status).toBe(200);
    const aloneRefs = parseAnswer(alone.body.choices[0].message.content).refs;
    const aloneTexts = await articleTexts(
      svc,
      aloneRefs.map((r) => byUrl.get(r.url)!),
    );
    const ukr = (m: Map<string, string>) => [...m.values()].filter((t) => /ukrain|kyiv|zelensk/i.test(t)).length;
    console.log(`follow-up citing Ukraine: alone ${ukr(aloneTexts)}/${aloneTexts.size}, in the thread ${ukr(texts)}/${texts.size}`);
    expect(aloneTexts.size).toBeGreaterThan(0);
    expect(ukr(aloneTexts) / aloneTexts.size).toBeLessThan(ukr(texts) / texts.size);
  });

  it('an empty thread_id (as some clients send for none) starts a new thread each time, never a 500', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: 'What is happening in Ukraine?' }], thread_id: '' });
      expect(r.status).toBe(200);
      expect(r.body.thread_id).toMatch(/^[0-9a-f-]{36}$/);
      ids.push(r.body.thread_id);
    }
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("an unknown thread_id, or another user's thread, is 404 {code, detail}", async () => {
    const r = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: 'hello' }], thread_id: '00000000-0000-4000-8000-000000000000' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 404000, detail: expect.stringContaining('00000000-0000-4000-8000-000000000000') });
    const mine = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: 'What is happening in Ukraine?' }] });
    const other = await chat(svc, svc.keys.analyst!, { messages: [{ role: 'user', content: 'more' }], thread_id: mine.body.thread_id });
    expect(other.status).toBe(404);
  });
});
