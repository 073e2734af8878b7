/** SSE chat completions (spec/chat.ts `SSE`): the same answer as the plain response, chunk by chunk. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { chat, sseEvents } from '../../helpers/chat.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/llm-servers.js';
import { NewsClient, ApiError } from '../../../client/index.js';
import { countTokens, tokenizerWork } from '../../../service/llm/tokens.js';
import { HISTORY_TOKENS } from '../../../service/chat/completion.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { waitUntil } from '../../helpers/wait-until.js';

let svc: TestService;
let fake: FakeLlm;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
  fake = await startFakeLlm('openai', ['Abe was shot ', 'at a campaign ', 'event [1]', ' in Nara [2].']);
});
afterAll(async () => {
  await fake?.close();
  await svc?.stop();
});

const body = (extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user' as const, content: 'Who shot Shinzo Abe and what happened to him?' }],
  ...extra,
});

describe('streamed extractive answers', () => {
  it('concatenated deltas equal the non-stream answer; [DONE] is last; usage, delta.role and delta.content on every chunk', async () => {
    for (const style of ['markdown_link', 'numbered', 'none']) {
      const plain = await chat(svc, svc.keys.org!, body({ inline_citations: style }));
      const s = await chat(svc, svc.keys.org!, body({ inline_citations: style, stream: true }));
      expect(s.status).toBe(200);
      expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = sseEvents(s.text);
      expect(events[events.length - 1]).toBe('[DONE]');
      expect(events.filter((e) => e === '[DONE]')).toHaveLength(1);
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
      expect(chunks.length).toBeGreaterThan(2);
      let last = 0;
      for (const c of chunks) {
        expect(c.object).toBe('chat.completion.chunk');
        expect(c.model).toBe('newsflow-extractive');
        expect(c.usage).toEqual({
          prompt_tokens: expect.any(Number),
          completion_tokens: expect.any(Number),
          total_tokens: c.usage.prompt_tokens + c.usage.completion_tokens,
        });
        expect(c.usage.completion_tokens).toBeGreaterThanOrEqual(last);
        last = c.usage.completion_tokens;
        expect(c.choices[0].delta.role).toBe('assistant');
        expect(typeof c.choices[0].delta.content).toBe('string');
      }
      const text = chunks.map((c) => c.choices[0].delta.content).join('');
      expect(text, style).toBe(plain.body.choices[0].message.content);
      expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
      expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
      expect(last).toBe(plain.body.usage.completion_tokens);
      expect(chunks[0].usage.prompt_tokens).toBe(plain.body.usage.prompt_tokens);
    }
  });

  it('the client iterates the chunks of a stream', async () => {
    const client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org!, validate: 'strict' });
    let text = '';
    let n = 0;
    for await (const c of client.streamChatCompletions({ messages: [{ role: 'user', content: 'What did the Supreme Court decide about Roe v. Wade?' }] })) {
      n++;
      text += c.choices[0]!.delta.content ?? '';
    }
    const plain = await client.chatCompletions({ messages: [{ role: 'user', content: 'What did the Supreme Court decide about Roe v. Wade?' }] });
    expect(n).toBeGreaterThan(2);
    expect(text).toBe(plain.choices[0]!.message.content);
    const models = await client.listModels();
    expect(models.data.map((m) => m.id)).toContain('newsflow-extractive');
    await client.close();
  });
});

describe('a model provider behind the stream', () => {
  const useFake = (timeoutMs = 5000) => {
    svc.services.config.llm = { url: `${fake.url}/v1`, model: 'local-model' };
    svc.services.config.llmTimeoutMs = timeoutMs;
  };
  const offline = () => {
    svc.services.config.llm = null;
    fake.mode = 'ok';
  };

  it("streams the provider's deltas with citations rewritten; the response names the model that wrote it", async () => {
    useFake();
    try {
      fake.mode = 'ok';
      fake.requests.length = 0;
      const s = await chat(
        svc,
        svc.keys.org!,
        body({
          stream: true,
          inline_citations: 'numbered',
          asknews_watermark: false,
          temperature: 0.1,
          top_p: 0.8,
          stop: ['END'],
          presence_penalty: 1,
          user: 'u-7',
        }),
      );
      // what the OpenAI-compatible server received: the model, the news context, sampling, stop, stream
      const sent = fake.requests[0]!;
      expect(sent.path).toBe('/v1/chat/completions');
      expect(sent.body).toMatchObject({ model: 'local-model', temperature: 0.1, top_p: 0.8, stop: ['END'], presence_penalty: 1, user: 'u-7', stream: true });
      expect(sent.body.messages[0].role).toBe('system');
      expect(sent.body.messages[0].content).toMatch(/News articles:\n\n\[1\] .*Abe/);
      expect(sent.body.messages[1]).toEqual({ role: 'user', content: 'Who shot Shinzo Abe and what happened to him?' });
      const chunks = sseEvents(s.text)
        .slice(0, -1)
        .map((e) => JSON.parse(e));
      expect(chunks.every((c) => c.model === 'local-model')).toBe(true);
      const text = chunks.map((c) => c.choices[0].delta.content).join('');
      expect(text.split('\n\nReferences:')[0]).toBe('Abe was shot at a campaign event [1] in Nara [2].');
      expect(text).toMatch(/\n\nReferences:\n\[1\] .+\n\[2\] /);
      const plain = await chat(svc, svc.keys.org!, body({ inline_citations: 'numbered', asknews_watermark: false }));
      expect(plain.body.model).toBe('local-model');
      expect(plain.body.choices[0].message.content).toBe(text);
    } finally {
      offline();
    }
  });

  it('3,000 small deltas: usage is the full encode of the answer, and counting them encodes a linear amount of text', async () => {
    useFake();
    const pieces = fake.pieces;
    try {
      fake.mode = 'ok';
      const words = ['Abe ', 'was ', 'shot, ', 'the ', 'police ', 'said; ', "Nara's ", 'crowd ', 'fled ', '42 ', 'times. ', 'Über ', '“quoted” ', '\n'];
      fake.pieces = Array.from({ length: 3000 }, (_, i) => words[(i * 7) % words.length]!);
      const work = tokenizerWork.chars;
      const s = await chat(
        svc,
        svc.keys.org!,
        body({ stream: true, inline_citations: 'none', append_references: false, asknews_watermark: false, max_tokens: 100000 }),
      );
      const chunks = sseEvents(s.text)
        .slice(0, -1)
        .map((e) => JSON.parse(e));
      const text = chunks.map((c) => c.choices[0].delta.content).join('');
      expect(text).toBe(fake.pieces.join(''));
      const last = chunks[chunks.length - 1];
      expect(last.choices[0].finish_reason).toBe('stop');
      expect(last.usage.completion_tokens).toBe(countTokens(text));
      // re-encoding the whole answer per delta would be ~3,000 × half the answer
      expect(tokenizerWork.chars - work).toBeLessThan(40 * text.length);
    } finally {
      fake.pieces = pieces;
      offline();
    }
  });

  it("a failing provider's URL and upstream body stay on the server: the 502 and the SSE error event name only the provider and the kind", async () => {
    const PATH = 'internal-llm-gw-7f3a9c';
    const MARKER = 'UPSTREAM-SECRET-MARKER-51b2';
    svc.services.config.llm = { url: `${fake.url}/${PATH}/v1`, model: 'local-model' };
    svc.services.config.llmTimeoutMs = 5000;
    const errorBody = fake.errorBody;
    try {
      fake.mode = 'status500';
      fake.errorBody = JSON.stringify({ error: { message: `${MARKER} at ${fake.url}` } });
      for (const stream of [false, true]) {
        const r = await chat(svc, svc.keys.org!, body({ stream }));
        expect(r.status).toBe(502);
        expect(r.body).toEqual({ code: 502000, detail: 'openai provider failed: HTTP 500' });
      }
      for (const mode of ['midstream', 'streamerror'] as const) {
        fake.mode = mode;
        const s = await chat(svc, svc.keys.org!, body({ stream: true }));
        expect(s.status).toBe(200);
        const events = sseEvents(s.text);
        const last = JSON.parse(events[events.length - 1]!);
        expect(last.error.message).toBe('openai provider failed: stream broke');
        for (const leak of [PATH, MARKER, 'Overloaded', '127.0.0.1']) expect(s.text, mode).not.toContain(leak);
      }
    } finally {
      fake.errorBody = errorBody;
      offline();
    }
  });

  it('a provider failing before the first event leaves no thread behind (stream or not)', async () => {
    useFake();
    try {
      fake.mode = 'status500';
      const count = async () => Number((await svc.services.db.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM chat_threads'))!.n);
      const before = await count();
      for (const stream of [false, true]) {
        const r = await chat(svc, svc.keys.org!, body({ stream }));
        expect(r.status).toBe(502);
        expect(r.headers.get('x-thread-id')).toBeNull();
      }
      expect(await count()).toBe(before);
      fake.mode = 'ok';
      expect((await chat(svc, svc.keys.org!, body())).status).toBe(200);
      expect(await count()).toBe(before + 1);
    } finally {
      offline();
    }
  });

  it('a long thread replays only its newest turns within HISTORY_TOKENS to the provider', async () => {
    useFake();
    try {
      fake.mode = 'ok';
      const first = await chat(svc, svc.keys.org!, body());
      const threadId = first.body.thread_id as string;
      const filler = 'The ministry said the talks would continue next week in Geneva. '.repeat(25);
      const turns = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `turn-${i} ${filler}` }));
      await svc.services.threads.append(threadId, turns);
      fake.requests.length = 0;
      const r = await chat(svc, svc.keys.org!, body({ thread_id: threadId, messages: [{ role: 'user', content: 'And what did Kyiv say?' }] }));
      expect(r.status).toBe(200);
      // the answer's request (a thread's follow-up is first rewritten by the model in a short plain call)
      const sent = fake.requests.find((x) => x.body.stream)!.body.messages as { role: string; content: string }[];
      const replayed = sent.slice(1, -1);
      expect(replayed.some((m) => m.content.startsWith('turn-39 '))).toBe(true);
      expect(replayed.some((m) => m.content.startsWith('turn-0 '))).toBe(false);
      expect(replayed.some((m) => m.content === 'Who shot Shinzo Abe and what happened to him?')).toBe(false);
      expect(replayed.reduce((n, m) => n + countTokens(m.content) + 4, 0)).toBeLessThanOrEqual(HISTORY_TOKENS);
      expect(sent[sent.length - 1]!.content).toBe('And what did Kyiv say?');
    } finally {
      offline();
    }
  });

  it('a provider failing mid-stream gives an error event (code 502000, naming the provider) and a closed stream', async () => {
    useFake();
    try {
      fake.mode = 'midstream';
      const s = await chat(svc, svc.keys.org!, body({ stream: true }));
      expect(s.status).toBe(200);
      const events = sseEvents(s.text);
      const lastEvent = JSON.parse(events[events.length - 1]!);
      expect(lastEvent.error.code).toBe(502000);
      expect(lastEvent.error.message).toMatch(/^openai provider failed/);
      expect(events).not.toContain('[DONE]');
      expect(JSON.parse(events[0]!).choices[0].delta.content).toBe('Abe was shot ');
      // the client raises on it
      const client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org!, retry: { max: 0 } });
      const got: string[] = [];
      const err = await (async () => {
        for await (const c of client.streamChatCompletions(body())) got.push(c.choices[0]!.delta.content ?? '');
      })().catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe(502000);
      expect(got).toEqual(['Abe was shot ']);
      await client.close();
    } finally {
      offline();
    }
  });

  it("a client that goes away mid-answer aborts the provider's request (its stream is closed before its last piece)", async () => {
    useFake();
    const pieces = fake.pieces;
    try {
      fake.mode = 'slow';
      fake.gapMs = 200;
      fake.pieces = ['Abe ', 'was ', 'shot ', 'at ', 'a ', 'campaign ', 'event ', 'in ', 'Nara [1].'];
      const before = fake.aborted;
      const ac = new AbortController();
      const res = await fetch(`${svc.url}/v1/openai/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
        body: JSON.stringify(body({ stream: true })),
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      // read until the first delta, then go away
      const reader = res.body!.getReader();
      let read = '';
      while (!read.includes('"content":"Abe ')) read += new TextDecoder().decode((await reader.read()).value);
      ac.abort();
      await waitUntil(() => fake.aborted > before, { what: "the provider's stream closed by the service" });
      expect(fake.aborted).toBe(before + 1);
    } finally {
      fake.pieces = pieces;
      fake.gapMs = 150;
      offline();
    }
  });

  it('a provider failing before the first delta (500, timeout, bad JSON) is a 502 {code, detail} naming it, stream or not', async () => {
    useFake(400);
    try {
      for (const mode of ['status500', 'hang', 'badjson'] as const) {
        fake.mode = mode;
        for (const stream of [false, true]) {
          const r = await chat(svc, svc.keys.org!, body({ stream }));
          expect(r.status, `${mode} stream=${stream}`).toBe(502);
          expect(r.body.code).toBe(502000);
          expect(r.body.detail).toMatch(/^openai provider failed: /);
          if (mode === 'hang') expect(r.body.detail).toMatch(/timeout/);
        }
      }
    } finally {
      offline();
    }
  });

  it('the OpenAPI document lists the statuses chat really answers: 502 (provider failed) and 404 (unknown thread)', async () => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const responses = doc.paths['/v1/openai/chat/completions']!.post!.responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '404', '422', '502']));
    expect(Object.keys(responses)).not.toContain('501');
  });
});
