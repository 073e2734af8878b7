/**
 * Sampling reaches the providers that take it, and `n` gives n choices: an OpenAI-compatible
 * server writes them in one call (`n`, its chunks told apart by index), Anthropic and Gemini in
 * one call each; local servers speak each protocol and record what they were sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { chat, sseEvents } from '../../helpers/chat.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/llm-servers.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
let openai: FakeLlm;
let anthropic: FakeLlm;
let gemini: FakeLlm;
const Q = 'Who shot Shinzo Abe and what happened to him?';
const SAMPLING = { temperature: 0.3, top_p: 0.7, presence_penalty: 1, frequency_penalty: 2 };

beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
  openai = await startFakeLlm('openai', ['Abe was shot ', 'in Nara [1].']);
  anthropic = await startFakeLlm('anthropic', ['Abe was shot ', 'in Nara [1].']);
  gemini = await startFakeLlm('gemini', ['Abe was shot ', 'in Nara [1].']);
  svc.services.config.llm = { url: `${openai.url}/v1`, model: 'local-model' };
  svc.services.config.anthropicUrl = anthropic.url;
  svc.services.config.geminiUrl = gemini.url;
  svc.services.config.llmTimeoutMs = 5000;
  await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: 'sk-ant-sampling-0001' });
  await api(svc.url, 'PUT', '/v1/byok/google', svc.keys.org, { api_key: 'AIza-sampling-0002' });
});
afterAll(async () => {
  await openai?.close();
  await anthropic?.close();
  await gemini?.close();
  await svc?.stop();
});

const ask = (extra: Record<string, unknown>) =>
  chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: Q }], inline_citations: 'numbered', asknews_watermark: false, ...extra });

describe('n choices and sampling', () => {
  it('OpenAI-compatible: one call with n, temperature, top_p and both penalties gives n distinct choices, streamed or not', async () => {
    openai.requests.length = 0;
    const plain = await ask({ n: 2, ...SAMPLING });
    expect(plain.status).toBe(200);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]!.body).toMatchObject({ model: 'local-model', n: 2, ...SAMPLING });
    const texts = plain.body.choices.map((c: { message: { content: string } }) => c.message.content.split('\n\nReferences:')[0]);
    expect(texts).toEqual(['Abe was shot in Nara [1].', 'Alt 1: Abe was shot in Nara [1].']);
    expect(plain.body.choices.map((c: { finish_reason: string }) => c.finish_reason)).toEqual(['stop', 'stop']);

    // streamed: the chunks of both choices come interleaved, each under its index; collected they are the plain answers
    openai.requests.length = 0;
    const s = await ask({ n: 2, ...SAMPLING, stream: true });
    expect(openai.requests).toHaveLength(1);
    const chunks = sseEvents(s.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e));
    const order = chunks.filter((c) => c.choices[0].delta.content).map((c) => c.choices[0].index);
    expect(order.indexOf(1)).toBeLessThan(order.lastIndexOf(0));
    for (const i of [0, 1]) {
      const mine = chunks.filter((c) => c.choices[0].index === i);
      expect(mine.map((c) => c.choices[0].delta.content).join('')).toBe(plain.body.choices[i].message.content);
      expect(mine[mine.length - 1].choices[0].finish_reason).toBe('stop');
    }
    // usage counts both choices
    const last = chunks[chunks.length - 1];
    expect(last.usage.completion_tokens).toBe(plain.body.usage.completion_tokens);
  });

  it('Anthropic takes temperature and top_p (no penalties, no n): n calls, each with them', async () => {
    anthropic.requests.length = 0;
    const r = await ask({ model: 'claude-sonnet-4-5', n: 2, ...SAMPLING });
    expect(r.status).toBe(200);
    expect(r.body.choices).toHaveLength(2);
    expect(anthropic.requests).toHaveLength(2);
    for (const req of anthropic.requests) {
      expect(req.body).toMatchObject({ temperature: 0.3, top_p: 0.7 });
      expect(req.body).not.toHaveProperty('presence_penalty');
      expect(req.body).not.toHaveProperty('n');
    }
  });

  it('Gemini takes temperature, topP and both penalties in generationConfig: n calls, each with them', async () => {
    gemini.requests.length = 0;
    const r = await ask({ model: 'gemini-2.5-flash', n: 2, ...SAMPLING });
    expect(r.status).toBe(200);
    expect(r.body.choices).toHaveLength(2);
    expect(gemini.requests).toHaveLength(2);
    for (const req of gemini.requests)
      expect(req.body.generationConfig).toMatchObject({ temperature: 0.3, topP: 0.7, presencePenalty: 1, frequencyPenalty: 2 });
  });
});
