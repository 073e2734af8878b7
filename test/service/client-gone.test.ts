/**
 * A client that leaves: a streamed chat or DeepNews answer it hangs up on ends quietly (no warning
 * or error line, only debug), its concurrency slot comes back, and the work done for it stops
 * where it can (the model provider's request is closed).
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';
import { waitUntil } from '../helpers/wait-until.js';

interface LogLine {
  level: number;
  msg: string;
  err?: { code?: string; message?: string };
}
const WARN = 40;

/** A model server that takes requests and never answers; it counts the requests whose connection closed. */
async function silentModel(): Promise<{ url: string; received: number; closed: number; close(): Promise<void> }> {
  const state = { url: '', received: 0, closed: 0, close: async (): Promise<void> => undefined };
  const server = http.createServer((req, res) => {
    state.received++;
    req.resume();
    res.on('close', () => state.closed++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

/**
 * POST `body` on a raw socket; the client leaves (the socket is destroyed) once `leaveWhen(data so
 * far)` says so, or when `leave()` is called. `answer` resolves with what arrived.
 */
function post(url: string, key: string, p: string, body: unknown, leaveWhen: (received: string) => boolean = () => false) {
  const u = new URL(url);
  const text = JSON.stringify(body);
  let got = '';
  const s = net.connect(Number(u.port), u.hostname, () => {
    s.write(
      `POST ${p} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  });
  const answer = new Promise<string>((resolve, reject) => {
    s.on('data', (d) => {
      got += String(d);
      if (leaveWhen(got)) s.destroy();
    });
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
  return { answer, leave: () => s.destroy() };
}

let svc: TestService;
const lines: LogLine[] = [];
beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as LogLine);
      cb();
    },
  });
  svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    limitsText: 'chat=1000:1000:2,deepnews=1000:1000:2',
    logger: { level: 'debug', stream },
  });
});
afterAll(async () => svc?.stop());

/** Both concurrency slots of chat and DeepNews are free again. */
async function slotsBack(): Promise<void> {
  await waitUntil(
    async () => {
      const g = (await api(svc.url, 'GET', '/v1/profiles/me/limits', svc.keys.org)).body.groups;
      return g.chat.concurrency_remaining === 2 && g.deepnews.concurrency_remaining === 2;
    },
    { what: 'the chat and DeepNews slots to come back' },
  );
}

describe('a client that leaves', () => {
  it('hanging up on a streamed chat or DeepNews answer after its first bytes leaves no warning or error line; the slot comes back', async () => {
    const question = { messages: [{ role: 'user', content: 'war in ukraine' }], stream: true, n: 8 };
    for (const p of ['/v1/openai/chat/completions', '/v1/chat/deepnews']) {
      const from = lines.length;
      const got = await post(svc.url, svc.keys.org!, p, question, (r) => r.includes('data: ')).answer;
      expect(got, p).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(got, p).not.toContain('data: [DONE]');
      await slotsBack();
      // the request's last line is written once the server is done with it
      await waitUntil(() => lines.slice(from).some((l) => /closed the stream|request completed/.test(l.msg)), { what: `the end of ${p} in the log` });
      const loud = lines.slice(from).filter((l) => l.level >= WARN);
      expect(loud, `${p}: ${JSON.stringify(loud)}`).toEqual([]);
      expect(lines.slice(from).some((l) => l.level === 20 && /closed the stream/.test(l.msg))).toBe(true);
    }
  });

  it('stops the model provider call it was waiting on: the provider sees its request closed (chat plain and streamed, DeepNews), no error line', async () => {
    const model = await silentModel();
    svc.services.config.llm = { url: `${model.url}/v1`, model: 'local-model' };
    svc.services.config.llmTimeoutMs = 60_000;
    try {
      const from = lines.length;
      const asks: [string, Record<string, unknown>][] = [
        ['/v1/openai/chat/completions', {}],
        ['/v1/openai/chat/completions', { stream: true }],
        ['/v1/chat/deepnews', {}],
      ];
      for (const [p, extra] of asks) {
        const before = model.received;
        const request = post(svc.url, svc.keys.org!, p, { messages: [{ role: 'user', content: 'war in ukraine' }], ...extra });
        // the request reached the model (the provider call is under way), then the client leaves
        await waitUntil(() => model.received > before, { what: `${p} to call the model` });
        request.leave();
        await request.answer;
        await waitUntil(() => model.closed === model.received, { what: `the model call of ${p} to be closed` });
      }
      expect(model.received).toBe(3);
      await slotsBack();
      const loud = lines.slice(from).filter((l) => l.level >= WARN);
      expect(loud, JSON.stringify(loud)).toEqual([]);
    } finally {
      svc.services.config.llm = null;
      await model.close();
    }
  });
});
