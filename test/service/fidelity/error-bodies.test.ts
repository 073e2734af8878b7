/**
 * Every error body is `{code, detail}` (spec/errors.ts), including those raised below the routes:
 * the HTTP parser's client errors (431, 400), the router's (bad URL), the body limit (413) and
 * content types (415). Checked on the wire: status, content type and the exact body keys.
 */
import net from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let port: number;
beforeAll(async () => {
  svc = await startTestService({ keys: { org: { org: 'acme', scopes: ['news'], plan: 'enterprise' } } });
  port = Number(new URL(svc.url).port);
});
afterAll(async () => svc?.stop());

interface Wire {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes raw bytes, reads until the server closes (or a complete response arrived). */
function raw(data: string): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(data));
    let got = Buffer.alloc(0);
    const done = () => {
      const text = got.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no response: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) });
    };
    socket.on('data', (b) => {
      got = Buffer.concat([got, b]);
      const text = got.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const len = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
      if (end >= 0 && len && Buffer.byteLength(text.slice(end + 4)) >= Number(len[1])) {
        socket.destroy();
        done();
      }
    });
    socket.on('close', () => (got.length ? done() : reject(new Error('closed without a response'))));
    socket.on('error', () => undefined);
  });
}

function expectErrorBody(r: Wire, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'detail']);
  expect(body.code).toBe(status * 1000);
  expect(typeof body.detail).toBe('string');
  expect(body.detail).not.toMatch(/\n\s+at /); // no stack trace
}

const auth = () => `Authorization: Bearer ${svc.keys.org}\r\n`;

describe('errors raised below the routes are {code, detail}', () => {
  it('a URL over 16 KB is 431 {code, detail}', async () => {
    expectErrorBody(await raw(`GET /v1/news/search?query=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 431);
  });
  it('request headers over 16 KB are 431 {code, detail}', async () => {
    expectErrorBody(await raw(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`), 431);
  });
  it.each([
    ['garbage instead of a request line', 'GARBAGE\r\n\r\n'],
    ['an unknown method token', 'FOO / HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['a request line with a bad version', 'GET / HTTP/9.Z\r\nHost: localhost\r\n\r\n'],
    ['a header line without a colon', 'GET / HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n'],
    [
      'a malformed chunked body',
      `POST /v1/news/graph HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
    ],
  ])('%s is 400 {code, detail}', async (_name, data) => {
    expectErrorBody(await raw(data), 400);
  });
  it.each(['/v1/news/%zz', '/%E0%A4%A', '/v1/chat/alerts/%'])('a URL that is not valid percent-encoding (%s) is 400 {code, detail}', async (url) => {
    expectErrorBody(await raw(`GET ${url} HTTP/1.1\r\nHost: localhost\r\n${auth()}Connection: close\r\n\r\n`), 400);
  });
  it('an over-long path parameter is a 4xx {code, detail}', async () => {
    // the router takes path ids up to 16 KiB: this one reaches validation (422, a list of items)
    const r = await raw(`GET /v1/news/${'a'.repeat(5000)} HTTP/1.1\r\nHost: localhost\r\n${auth()}Connection: close\r\n\r\n`);
    expect(r.status).toBe(422);
    const body = JSON.parse(r.body) as { code: number; detail: { loc: unknown[] }[] };
    expect(Object.keys(body).sort()).toEqual(['code', 'detail']);
    expect(body.code).toBe(422000);
    expect(body.detail[0]!.loc).toEqual(['path', 'article_id']);
  });
  it('a body announced over the 10 MB limit is 413 {code, detail}', async () => {
    const r = await raw(
      `POST /v1/news/graph HTTP/1.1\r\nHost: localhost\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${11 * 1024 * 1024}\r\nConnection: close\r\n\r\n{}`,
    );
    expectErrorBody(r, 413);
  });
  it('a chunked body that grows over the 10 MB limit is 413 {code, detail}', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const body = Readable.from(
      (function* () {
        yield Buffer.from('{"query": "');
        for (let i = 0; i < 11; i++) yield chunk;
        yield Buffer.from('"}');
      })(),
    );
    const res = await request(`${svc.url}/v1/news/graph`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
    }).catch((e: Error) => e);
    if (res instanceof Error) throw res;
    expectErrorBody({ status: res.statusCode, headers: res.headers as Record<string, string>, body: await res.body.text() }, 413);
  });
  it.each(['text/csv', ';;;', 'application/xml'])('a body of content type %s is 415 {code, detail}', async (type) => {
    const r = await raw(
      `POST /v1/news/graph HTTP/1.1\r\nHost: localhost\r\n${auth()}Content-Type: ${type}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab`,
    );
    expectErrorBody(r, 415);
  });
  it('a route error (404, 405, 401) keeps the same shape', async () => {
    expectErrorBody(await raw('GET /v2/nothing HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 404);
    expectErrorBody(await raw('DELETE /v1/news/search HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 405);
    expectErrorBody(await raw('GET /v1/news/search HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 401);
  });
});
