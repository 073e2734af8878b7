/**
 * The model layer's HTTP providers against local servers speaking the OpenAI, Anthropic and
 * Gemini protocols: what they send (model, messages, sampling, stop, stream, key) and how
 * failures come back (ProviderError naming the provider; timeouts, 5xx, bad JSON, in-stream errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm, type Protocol } from '../../helpers/llm-servers.js';
import { OpenAiProvider } from '../../../service/llm/openai.js';
import { AnthropicProvider } from '../../../service/llm/anthropic.js';
import { GeminiProvider } from '../../../service/llm/gemini.js';
import { ModelLayer, ProviderError, complete, type LlmProvider, type LlmRequest } from '../../../service/llm/index.js';
import { serviceConfig } from '../../../service/config.js';

const fakes = {} as Record<Protocol, FakeLlm>;
beforeAll(async () => {
  for (const p of ['openai', 'anthropic', 'gemini'] as const) fakes[p] = await startFakeLlm(p);
});
afterAll(async () => {
  for (const f of Object.values(fakes)) await f.close();
});

const req = (over: Partial<LlmRequest> = {}): LlmRequest => ({
  model: 'x',
  messages: [
    { role: 'system', content: 'News articles:\n[1] Abe shot at rally' },
    { role: 'user', content: 'What happened to Abe?' },
  ],
  temperature: 0.3,
  top_p: 0.9,
  stop: ['\n\nEND'],
  max_tokens: 300,
  ...over,
});

function make(p: Protocol, timeoutMs = 2000): LlmProvider {
  const f = fakes[p];
  if (p === 'openai') return new OpenAiProvider({ url: `${f.url}/v1`, model: 'local-model', key: 'sk-local-1234', timeoutMs });
  if (p === 'anthropic') return new AnthropicProvider({ url: f.url, model: 'claude-sonnet-4-5', key: 'sk-ant-byok-key-1', timeoutMs });
  return new GeminiProvider({ url: f.url, model: 'gemini-2.5-flash', key: 'AIza-byok-key-2', timeoutMs });
}

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of it) out.push(d);
  return out;
}

describe('what each provider sends', () => {
  it('openai: POST /v1/chat/completions with model, messages, temperature, top_p, stop, max_tokens, stream and the bearer key', async () => {
    const f = fakes.openai;
    f.mode = 'ok';
    f.requests.length = 0;
    expect(await complete(make('openai'), req({ stream: true }))).toBe('The model says hello [1] and more [2].');
    expect(await complete(make('openai'), req({ stream: false }))).toBe('The model says hello [1] and more [2].');
    const [s, p] = f.requests;
    expect(s!.path).toBe('/v1/chat/completions');
    expect(s!.headers.authorization).toBe('Bearer sk-local-1234');
    expect(s!.body).toMatchObject({ model: 'local-model', temperature: 0.3, top_p: 0.9, stop: ['\n\nEND'], max_tokens: 300, stream: true });
    expect(s!.body.messages).toEqual(req().messages);
    expect(p!.body.stream).toBe(false);
  });

  it('anthropic: POST /v1/messages with x-api-key, anthropic-version, system apart, stop_sequences, stream', async () => {
    const f = fakes.anthropic;
    f.mode = 'ok';
    f.requests.length = 0;
    const pieces = await collect(make('anthropic').stream(req({ stream: true, temperature: 1.4, user: 'user-42' })));
    expect(pieces).toEqual(['The model says ', 'hello [1]', ' and more [2].']);
    const r = f.requests[0]!;
    expect(r.path).toBe('/v1/messages');
    expect(r.headers['x-api-key']).toBe('sk-ant-byok-key-1');
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(r.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      system: 'News articles:\n[1] Abe shot at rally',
      stop_sequences: ['\n\nEND'],
      max_tokens: 300,
      stream: true,
      top_p: 0.9,
      metadata: { user_id: 'user-42' },
    });
    // Anthropic's temperature range is [0, 1]
    expect(r.body.temperature).toBe(1);
    expect(r.body.messages).toEqual([{ role: 'user', content: 'What happened to Abe?' }]);
    expect(await complete(make('anthropic'), req())).toBe('The model says hello [1] and more [2].');
    expect(f.requests[1]!.body.stream).toBe(false);
  });

  it('gemini: generateContent / streamGenerateContent?alt=sse with x-goog-api-key, systemInstruction and generationConfig', async () => {
    const f = fakes.gemini;
    f.mode = 'ok';
    f.requests.length = 0;
    expect(await complete(make('gemini'), req({ stream: true }))).toBe('The model says hello [1] and more [2].');
    expect(await complete(make('gemini'), req())).toBe('The model says hello [1] and more [2].');
    const [s, p] = f.requests;
    expect(s!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(p!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(s!.headers['x-goog-api-key']).toBe('AIza-byok-key-2');
    expect(s!.body.systemInstruction).toEqual({ parts: [{ text: 'News articles:\n[1] Abe shot at rally' }] });
    expect(s!.body.contents).toEqual([{ role: 'user', parts: [{ text: 'What happened to Abe?' }] }]);
    expect(s!.body.generationConfig).toMatchObject({ temperature: 0.3, topP: 0.9, maxOutputTokens: 300, stopSequences: ['\n\nEND'] });
  });
});

describe('provider failures are ProviderErrors naming the provider, never a hang', () => {
  const cases: [Protocol, string][] = [
    ['openai', 'openai'],
    ['anthropic', 'anthropic'],
    ['gemini', 'google'],
  ];
  it.each(cases)('%s: HTTP 500 fails with the status', async (p, name) => {
    fakes[p].mode = 'status500';
    const e = await complete(make(p), req({ stream: true })).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.provider).toBe(name);
    expect(e.status).toBe(500);
    expect(e.message).toMatch(new RegExp(`^${name} provider failed: .*HTTP 500`));
  });

  it.each(cases)('%s: no answer within the timeout fails as a timeout', async (p, name) => {
    fakes[p].mode = 'hang';
    const e = await complete(make(p, 300), req()).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.provider).toBe(name);
    expect(e.message).toMatch(/timeout/);
  });

  it.each(cases)('%s: a stream longer than the timeout whose chunks keep coming completes (the timeout is idle, not total)', async (p) => {
    const f = fakes[p];
    const pieces = f.pieces;
    try {
      f.mode = 'slow';
      f.gapMs = 150;
      f.pieces = Array.from({ length: 8 }, (_, i) => `piece ${i}. `);
      expect(await complete(make(p, 400), req({ stream: true }))).toBe(f.pieces.join(''));
    } finally {
      f.pieces = pieces;
    }
  });

  it.each(cases)('%s: a stream that stalls mid-answer longer than the timeout fails as a timeout after the first delta', async (p, name) => {
    fakes[p].mode = 'stall';
    const got: string[] = [];
    const e = await (async () => {
      for await (const d of make(p, 400).stream(req({ stream: true }))) got.push(d);
    })().catch((x) => x);
    expect(got).toEqual(['The model says ']);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.provider).toBe(name);
    expect(e.message).toMatch(/timeout/);
  });

  it.each(cases)('%s: a connection broken mid-stream fails after the first delta', async (p, name) => {
    fakes[p].mode = 'midstream';
    const got: string[] = [];
    const e = await (async () => {
      for await (const d of make(p).stream(req({ stream: true }))) got.push(d);
    })().catch((x) => x);
    expect(got).toEqual(['The model says ']);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.provider).toBe(name);
  });

  it.each(cases)('%s: an error event in the stream fails (the upstream message in the detail, not the message)', async (p, name) => {
    fakes[p].mode = 'streamerror';
    const e = await complete(make(p), req({ stream: true })).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toBe(`${name} provider failed: stream broke`);
    expect(e.detail).toMatch(/Overloaded/);
  });

  it.each(cases)('%s: a body that is not JSON fails', async (p) => {
    fakes[p].mode = 'badjson';
    const plain = await complete(make(p), req()).catch((x) => x);
    expect(plain).toBeInstanceOf(ProviderError);
    expect(plain.message).toMatch(/JSON/);
    const streamed = await complete(make(p), req({ stream: true })).catch((x) => x);
    expect(streamed).toBeInstanceOf(ProviderError);
    expect(streamed.message).toMatch(/JSON/);
  });
});

describe('routing by model and keys', () => {
  const layer = (env: Record<string, string>) => new ModelLayer(serviceConfig({}, env), null);
  it('claude-* and gemini-* go to their provider only with a BYOK key; the rest to NEWSFLOW_LLM_URL, else extractive', () => {
    const withUrl = layer({ NEWSFLOW_LLM_URL: 'http://127.0.0.1:1/v1', NEWSFLOW_LLM_MODEL: 'qwen2.5,llama3' });
    expect(withUrl.provider('claude-sonnet-4-5', { anthropic: 'k' }).name).toBe('anthropic');
    expect(withUrl.provider('gemini-2.5-pro', { google: 'k' }).name).toBe('google');
    expect(withUrl.provider('claude-sonnet-4-5').name).toBe('openai');
    expect(withUrl.provider('llama3').model).toBe('llama3');
    expect(withUrl.provider('gpt-4o-mini').model).toBe('qwen2.5');
    expect(withUrl.provider('newsflow-extractive').name).toBe('extractive');
    const offline = layer({});
    expect(offline.provider('gpt-4o-mini').name).toBe('extractive');
    expect(offline.provider('gpt-4o-mini').model).toBe('newsflow-extractive');
    expect(offline.models().map((m) => m.id)).toEqual(['newsflow-extractive']);
    expect(withUrl.models({ anthropic: 'k' }).map((m) => m.id)).toEqual([
      'newsflow-extractive',
      'qwen2.5',
      'llama3',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'claude-opus-4-1',
    ]);
  });
});
