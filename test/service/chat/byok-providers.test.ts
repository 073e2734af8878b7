/**
 * Chat through BYOK providers against local servers speaking the Anthropic and Gemini protocols:
 * the stored key is the one sent, the body carries the model, the news context, temperature,
 * stop and stream; a failing provider is a 502 naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, api, startTestService, type TestService } from '../../helpers/service.js';
import { chat, sseEvents } from '../../helpers/chat.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlm, type FakeLlm } from '../../helpers/llm-servers.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
let anthropic: FakeLlm;
let gemini: FakeLlm;
const ANTHROPIC_KEY = 'sk-ant-byok-test-0001';
const GOOGLE_KEY = 'AIza-byok-test-0002';

beforeAll(async () => {
  svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    limitsText: 'chat=100000:100000:100',
    // a free-plan key of the same organization as `org` (which stores the BYOK keys)
    keys: { ...DEFAULT_KEYS, orgFree: { org: 'acme', scopes: ['news', 'stories', 'chat', 'profile'], plan: 'free' } },
  });
  anthropic = await startFakeLlm('anthropic', ['Abe was shot ', 'in Nara [1].']);
  gemini = await startFakeLlm('gemini', ['Abe was shot ', 'in Nara [2].']);
  svc.services.config.anthropicUrl = anthropic.url;
  svc.services.config.geminiUrl = gemini.url;
  svc.services.config.llmTimeoutMs = 2000;
  await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: ANTHROPIC_KEY });
  await api(svc.url, 'PUT', '/v1/byok/google', svc.keys.org, { api_key: GOOGLE_KEY });
});
afterAll(async () => {
  await anthropic?.close();
  await gemini?.close();
  await svc?.stop();
});

const Q = 'Who shot Shinzo Abe and what happened to him?';

describe('BYOK providers in chat', () => {
  it('claude-*: the stored key goes to the Messages API with the model, the news context, temperature, stop and stream', async () => {
    anthropic.requests.length = 0;
    const r = await chat(svc, svc.keys.org!, {
      messages: [{ role: 'user', content: Q }],
      model: 'claude-sonnet-4-5',
      temperature: 0.2,
      stop: ['END'],
      stream: true,
      inline_citations: 'numbered',
    });
    expect(r.status).toBe(200);
    const chunks = sseEvents(r.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e));
    expect(chunks[0].model).toBe('claude-sonnet-4-5');
    expect(chunks.map((c) => c.choices[0].delta.content).join('')).toMatch(/^Abe was shot in Nara \[1\]\.\n\nReferences:\n\[1\] /);
    const sent = anthropic.requests[0]!;
    expect(sent.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5', temperature: 0.2, stop_sequences: ['END'], stream: true });
    expect(sent.body.system).toMatch(/News articles:\n\n\[1\] .*Abe/);
    expect(sent.body.messages).toEqual([{ role: 'user', content: Q }]);
  });

  it('gemini-*: the stored key goes to generateContent with the news context; plain (non-stream) call', async () => {
    gemini.requests.length = 0;
    const r = await chat(svc, svc.keys.org!, {
      messages: [{ role: 'user', content: Q }],
      model: 'gemini-2.5-flash',
      temperature: 0.4,
      stop: 'END',
      journalist_mode: false,
    });
    expect(r.status).toBe(200);
    expect(r.body.model).toBe('gemini-2.5-flash');
    const sent = gemini.requests[0]!;
    expect(sent.headers['x-goog-api-key']).toBe(GOOGLE_KEY);
    // the model layer always streams from the provider; the answer is collected for a plain response
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(sent.body.generationConfig).toMatchObject({ temperature: 0.4, stopSequences: ['END'] });
    // plain mode: the news is placed before the question
    expect(sent.body.contents[0].parts[0].text).toMatch(/^News articles:\n\n\[1\] [\s\S]*\n\nQuestion: Who shot Shinzo Abe/);
  });

  it('a caller without a stored key is answered by the extractive writer, and the response says so', async () => {
    const r = await chat(svc, svc.keys.analyst!, { messages: [{ role: 'user', content: Q }], model: 'claude-sonnet-4-5' });
    expect(r.status).toBe(200);
    expect(r.body.model).toBe('newsflow-extractive');
  });

  it("a free-plan key of the same organization is answered by the fallback, not its organization's BYOK key, and lists no BYOK models", async () => {
    anthropic.requests.length = 0;
    gemini.requests.length = 0;
    for (const model of ['claude-sonnet-4-5', 'gemini-2.5-flash']) {
      const r = await chat(svc, svc.keys.orgFree!, { messages: [{ role: 'user', content: Q }], model });
      expect(r.status).toBe(200);
      expect(r.body.model).toBe('newsflow-extractive');
    }
    expect(anthropic.requests).toHaveLength(0);
    expect(gemini.requests).toHaveLength(0);
    const models = await api(svc.url, 'GET', '/v1/openai/models', svc.keys.orgFree);
    expect(models.status).toBe(200);
    expect(models.body.data.map((m: { id: string }) => m.id)).toEqual(['newsflow-extractive']);
  });

  it('stored keys that cannot be opened (another master key) are treated as absent: the fallback answers, no 500', async () => {
    const rows = await svc.services.db.all<{ o: string; p: string; s: string }>('SELECT owner AS o, provider AS p, secret AS s FROM byok_keys');
    try {
      await svc.services.db.run("UPDATE byok_keys SET secret = 'v1:deadbeef:' || secret[13:]");
      anthropic.requests.length = 0;
      const r = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: Q }], model: 'claude-sonnet-4-5' });
      expect(r.status).toBe(200);
      expect(r.body.model).toBe('newsflow-extractive');
      expect(anthropic.requests).toHaveLength(0);
    } finally {
      for (const x of rows) await svc.services.db.run('UPDATE byok_keys SET secret = $1 WHERE owner = $2 AND provider = $3', [x.s, x.o, x.p]);
    }
  });

  it('a provider answering with a redirect is a 502; the key never reaches the redirect target', async () => {
    const elsewhere = await startFakeLlm('anthropic');
    const redirector = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { location: `${elsewhere.url}/v1/messages` }).end());
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    const url = svc.services.config.anthropicUrl;
    try {
      svc.services.config.anthropicUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
      for (const stream of [false, true]) {
        const r = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: Q }], model: 'claude-sonnet-4-5', stream });
        expect(r.status).toBe(502);
        expect(r.body.detail).toMatch(/^anthropic provider failed: /);
      }
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      svc.services.config.anthropicUrl = url;
      await new Promise((r) => redirector.close(r));
      await elsewhere.close();
    }
  });

  it('the models list shows the BYOK families of a caller with keys', async () => {
    const withKeys = await api(svc.url, 'GET', '/v1/openai/models', svc.keys.org);
    expect(withKeys.status).toBe(200);
    expect(withKeys.body.object).toBe('list');
    const ids = withKeys.body.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['newsflow-extractive', 'claude-sonnet-4-5', 'gemini-2.5-flash']));
    for (const m of withKeys.body.data)
      expect(m).toEqual({ id: expect.any(String), object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
    const without = await api(svc.url, 'GET', '/v1/openai/models', svc.keys.analyst);
    expect(without.body.data.map((m: { id: string }) => m.id)).toEqual(['newsflow-extractive']);
  });

  it('anthropic answering 500, or not at all, is a 502 naming it; mid-stream an error event', async () => {
    try {
      anthropic.mode = 'status500';
      const r = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: Q }], model: 'claude-haiku-4-5' });
      expect(r.status).toBe(502);
      expect(r.body).toEqual({ code: 502000, detail: expect.stringMatching(/^anthropic provider failed: .*HTTP 500/) });
      anthropic.mode = 'hang';
      svc.services.config.llmTimeoutMs = 300;
      const t = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: Q }], model: 'claude-haiku-4-5', stream: true });
      expect(t.status).toBe(502);
      expect(t.body.detail).toMatch(/timeout/);
      svc.services.config.llmTimeoutMs = 2000;
      gemini.mode = 'streamerror';
      const s = await chat(svc, svc.keys.org!, { messages: [{ role: 'user', content: Q }], model: 'gemini-2.5-pro', stream: true });
      const events = sseEvents(s.text);
      expect(JSON.parse(events[events.length - 1]!)).toEqual({ error: { message: 'google provider failed: stream broke', code: 502000 } });
    } finally {
      anthropic.mode = 'ok';
      gemini.mode = 'ok';
      svc.services.config.llmTimeoutMs = 2000;
    }
  });
});
