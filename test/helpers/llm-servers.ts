/**
 * Local HTTP servers on loopback that speak the providers' protocols (OpenAI chat completions,
 * Anthropic Messages, Gemini generateContent), plain and streamed, and fail on demand.
 * They record every request (path, headers, JSON body) so tests can check what the client sent,
 * and how many streamed answers the client closed before their end. OpenAI's `n` is honoured:
 * answer i > 0 is the same pieces with `Alt i: ` before them, chunks of the answers interleaved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Protocol = 'openai' | 'anthropic' | 'gemini';
/**
 * ok; status500; hang (never answers); midstream (one delta, then the connection breaks); badjson;
 * streamerror (an error event); slow (each streamed piece `gapMs` after the last); stall (one delta, then silence)
 */
export type Mode = 'ok' | 'status500' | 'hang' | 'midstream' | 'badjson' | 'streamerror' | 'slow' | 'stall';

export interface Recorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface FakeLlm {
  url: string;
  requests: Recorded[];
  mode: Mode;
  /** the answer's text, sent in these pieces when streaming */
  pieces: string[];
  /** mode status500: the error body */
  errorBody: string;
  /** mode slow: ms between streamed pieces */
  gapMs: number;
  /** the answer's pieces for one request (undefined: `pieces`), e.g. to answer a rewrite call apart from the answer */
  answer?: (body: any, path: string) => string[] | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** streamed answers the client closed before their end */
  aborted: number;
  close(): Promise<void>;
}

function openaiChunk(text: string, index = 0) {
  return { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta: { content: text }, finish_reason: null }] };
}
/** OpenAI answer `index` of `n`: the first is the pieces as they are, the others marked. */
const alt = (pieces: string[], index: number) => (index ? [`Alt ${index}: ${pieces[0] ?? ''}`, ...pieces.slice(1)] : pieces);

export async function startFakeLlm(protocol: Protocol, pieces = ['The model says ', 'hello [1]', ' and more [2].']): Promise<FakeLlm> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeLlm = {
    url: '',
    requests: [],
    mode: 'ok',
    pieces,
    gapMs: 150,
    aborted: 0,
    errorBody: '{"error":{"message":"upstream exploded"}}',
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        /* not JSON */
      }
      fake.requests.push({ path: req.url ?? '', headers: req.headers, body });
      const mode = fake.mode;
      if (mode === 'hang') return; // never answers
      if (mode === 'status500') {
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end(fake.errorBody);
      }
      const b = body as { stream?: boolean } | null;
      const streaming = protocol === 'gemini' ? (req.url ?? '').includes(':streamGenerateContent') : !!b?.stream;
      if (mode === 'badjson' && !streaming) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"choices": [ not json');
      }
      const pieces = fake.answer?.(body, req.url ?? '') ?? fake.pieces;
      const n = protocol === 'openai' ? Math.max(1, Number((body as { n?: number } | null)?.n ?? 1)) : 1;
      const text = pieces.join('');
      if (!streaming) {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (protocol === 'openai')
          return res.end(
            JSON.stringify({
              id: 'x',
              object: 'chat.completion',
              choices: Array.from({ length: n }, (_, index) => ({
                index,
                message: { role: 'assistant', content: alt(pieces, index).join('') },
                finish_reason: 'stop',
              })),
            }),
          );
        if (protocol === 'anthropic')
          return res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn' }));
        return res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }] }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (data: unknown, event?: string) =>
        res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      let ended = false;
      res.on('close', () => {
        if (!ended) fake.aborted++;
      });
      const finish = () => {
        ended = true;
        res.end();
      };
      const delta = (t: string, index = 0) => {
        if (protocol === 'openai') send(openaiChunk(t, index));
        else if (protocol === 'anthropic') send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }, 'content_block_delta');
        else send({ candidates: [{ content: { role: 'model', parts: [{ text: t }] } }] });
      };
      if (protocol === 'anthropic') send({ type: 'message_start', message: { id: 'msg', role: 'assistant' } }, 'message_start');
      if (mode === 'midstream') {
        ended = true;
        delta(pieces[0]!);
        setTimeout(() => res.socket?.destroy(), 30);
        return;
      }
      if (mode === 'streamerror') {
        delta(pieces[0]!);
        if (protocol === 'anthropic') send({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error');
        else send({ error: { message: 'Overloaded', code: 503 } });
        return finish();
      }
      if (mode === 'stall') {
        ended = true;
        delta(pieces[0]!);
        return; // never another byte
      }
      const done = () => {
        if (protocol === 'openai') {
          for (let i = 0; i < n; i++)
            send({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: i, delta: {}, finish_reason: 'stop' }] });
          send('[DONE]');
        }
        if (protocol === 'anthropic') send({ type: 'message_stop' }, 'message_stop');
        finish();
      };
      if (mode === 'slow') {
        void (async () => {
          for (const p of pieces) {
            await new Promise((r) => setTimeout(r, fake.gapMs));
            if (res.destroyed) return;
            delta(p);
          }
          done();
        })();
        return;
      }
      if (mode === 'badjson') {
        res.write('data: {not json\n\n');
        return finish();
      }
      // the answers' pieces interleaved: piece j of every answer, then piece j + 1
      const answers = Array.from({ length: n }, (_, i) => alt(pieces, i));
      for (let j = 0; j < pieces.length; j++) for (let i = 0; i < n; i++) delta(answers[i]![j]!, i);
      done();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return fake;
}
