/**
 * Webhook POSTs under the fetch policy, against real loopback listeners that count what reaches
 * them: loopback, metadata and a public-looking name resolving to loopback are refused before any
 * connection; a redirect from an allowed receiver is not followed; the transport headers are the
 * delivery's, whatever the webhook's `headers` say.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefused } from '../../lib/fetch/fetcher.js';
import { parseFetchAllow, urlHostRefusal } from '../../lib/fetch/policy.js';
import { postWebhook, WEBHOOK_REFUSALS, type WebhookOptions, type WebhookRequest } from '../../activities/webhook.js';
import { redirect, startPageServer, type PageServer } from '../helpers/page-server.js';

let receiver: PageServer;
/** a listener on another loopback address, never allowed: nothing may reach it */
let inside: PageServer;
const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  receiver = await startPageServer('127.0.0.1');
  inside = await startPageServer('127.0.0.2');
  receiver.routes.set('/hook', (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  inside.routes.set('/hook', (_req, res) => res.writeHead(200).end('reached'));
});
afterAll(async () => {
  await receiver.close();
  await inside.close();
});

const post = (url: string, opts: WebhookOptions, extra: Partial<WebhookRequest> = {}) =>
  postWebhook({ url, body: '{"alert":true}', idempotencyKey: 'log-1.0.abc', ...extra }, { timeoutMs: 5_000, ...opts });

async function refusal(p: Promise<unknown>): Promise<FetchRefused> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchRefused);
  return err as FetchRefused;
}

describe('webhook POSTs under the fetch policy', () => {
  it('refuses a loopback receiver the allow list does not cover, and the receiver sees no connection', async () => {
    const before = receiver.connections;
    const err = await refusal(post(`${receiver.origin}/hook`, { policy: parseFetchAllow('') }));
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toMatch(/loopback/);
    expect(WEBHOOK_REFUSALS.has(err.reason)).toBe(true);
    expect(receiver.connections).toBe(before);
  });

  it('refuses the cloud metadata address without connecting', async () => {
    const err = await refusal(post('http://169.254.169.254/latest/meta-data/', { policy: parseFetchAllow('') }));
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toMatch(/metadata/);
  });

  it('refuses a public-looking name that resolves to loopback, and the listener there sees no connection', async () => {
    const before = inside.connections;
    const err = await refusal(
      post(`http://hooks.public-receiver.com:${inside.port}/hook`, {
        policy: parseFetchAllow('127.0.0.1'),
        lookup: async () => [{ address: '127.0.0.2', family: 4 }],
      }),
    );
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toContain('127.0.0.2 (loopback)');
    expect(inside.connections).toBe(before);
  });

  it('does not follow a redirect from an allowed receiver to a loopback address', async () => {
    receiver.routes.set('/bounce', redirect(`${inside.origin}/hook`, 307));
    const before = inside.connections;
    const err = await refusal(post(`${receiver.origin}/bounce`, { policy: parseFetchAllow('127.0.0.0/8') }));
    expect(err.reason).toBe('redirect');
    expect(err.status).toBe(307);
    expect(err.message).toContain(`${inside.origin}/hook`);
    expect(WEBHOOK_REFUSALS.has(err.reason)).toBe(true);
    // allowed as it is (127.0.0.0/8), the inside listener was still never asked
    expect(inside.connections).toBe(before);
  });

  it('POSTs to an allowed receiver with the delivery own transport headers, whatever the webhook headers say', async () => {
    seen.length = 0;
    const r = await post(
      `${receiver.origin}/hook`,
      { policy: parseFetchAllow('127.0.0.1') },
      {
        headers: {
          'X-Team': 'weather',
          Host: 'metadata.google.internal',
          'Content-Length': '1',
          'Transfer-Encoding': 'chunked',
          Connection: 'upgrade',
          'Idempotency-Key': 'forged',
        },
      },
    );
    expect(r.status).toBe(200);
    expect(seen).toHaveLength(1);
    const h = seen[0]!.headers;
    expect(seen[0]!.body).toBe('{"alert":true}');
    expect(h['x-team']).toBe('weather');
    expect(h.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(h['content-length']).toBe(String('{"alert":true}'.length));
    expect(h['transfer-encoding']).toBeUndefined();
    expect(h.connection).not.toBe('upgrade');
    expect(h['idempotency-key']).toBe('log-1.0.abc');
    expect(h['content-type']).toBe('application/json');
  });

  it('refuses a header value with CR/LF before connecting', async () => {
    const before = receiver.connections;
    const err = await refusal(post(`${receiver.origin}/hook`, { policy: parseFetchAllow('127.0.0.1') }, { headers: { 'x-a': 'b\r\nX-Injected: 1' } }));
    expect(err.reason).toBe('invalid_header');
    expect(receiver.connections).toBe(before);
  });

  it('an error status is a failure that may pass (not a refusal)', async () => {
    receiver.routes.set('/down', (_req, res) => res.writeHead(503).end());
    const err = await refusal(post(`${receiver.origin}/down`, { policy: parseFetchAllow('127.0.0.1') }));
    expect(err.reason).toBe('http_status');
    expect(err.status).toBe(503);
    expect(WEBHOOK_REFUSALS.has(err.reason)).toBe(false);
  });
});

describe('urlHostRefusal (what alert creation refuses)', () => {
  it.each([
    ['http://127.0.0.1:9/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://169.254.169.254/', 'metadata'],
    ['http://2130706433/', 'loopback'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://localhost:8080/', 'loopback'],
    ['http://api.localhost/', 'loopback'],
  ])('refuses %s as %s', (url, kind) => {
    expect(urlHostRefusal(parseFetchAllow(''), new URL(url))).toBe(kind);
  });

  it('leaves names to DNS and lifts the refusal for what the allow list covers', () => {
    expect(urlHostRefusal(parseFetchAllow(''), new URL('https://hooks.example.com/x'))).toBeNull();
    expect(urlHostRefusal(parseFetchAllow(''), new URL('http://93.184.216.34/'))).toBeNull();
    expect(urlHostRefusal(parseFetchAllow('127.0.0.1'), new URL('http://127.0.0.1:9/'))).toBeNull();
    expect(urlHostRefusal(parseFetchAllow('127.0.0.1'), new URL('http://localhost/'))).toBeNull();
    expect(urlHostRefusal(parseFetchAllow('127.0.0.1'), new URL('http://169.254.169.254/'))).toBe('metadata');
  });
});
