/**
 * A concurrency slot is freed on every path a request can end by: response sent, connection
 * closed before authentication completed, while the handler runs (once the handler ends) or right
 * after the response started, a handler error, a handler throwing after the connection closed. A
 * client that gives up must not leave its key without slots (429001 for good), and hanging up must
 * not free a slot while the work it asked for still runs.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitUntil } from '../../helpers/wait-until.js';
import type { Principal } from '../../../service/auth/principal.js';

const LIMIT = 3;
const SEARCH = '/v1/news/search?query=slots';

class Deferred {
  resolve!: () => void;
  readonly promise = new Promise<void>((r) => (this.resolve = r));
}
interface Probe {
  handlerEntered: Deferred;
  socketClosed: Deferred;
  finish: Deferred;
}
const probes = new Map<string, Probe>();
const probe = (id: string): Probe => {
  let p = probes.get(id);
  if (!p) probes.set(id, (p = { handlerEntered: new Deferred(), socketClosed: new Deferred(), finish: new Deferred() }));
  return p;
};
let seq = 0;
const nextId = () => `p${++seq}`;

/** While set, authentication waits for it (a slow key store); authEntered counts the waiters. */
let authGate: Deferred | null = null;
let authEntered = 0;
/** Admissions asked of the limiter (granted or not): a request past authentication. */
let admissions = 0;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    limitsText: `news=1000:1000:${LIMIT}`,
    validateResponses: false,
    keys: { k: { org: 'acme', scopes: ['news', 'profile'], plan: 'enterprise' } },
    configure: (app) => {
      app.addHook('onRequest', async (req) => {
        const id = req.headers['x-probe'];
        if (typeof id === 'string') req.raw.socket.once('close', () => probe(id).socketClosed.resolve());
      });
    },
    handlers: {
      search_news: async ({ req, reply }) => {
        const p = probe(String(req.headers['x-probe'] ?? 'none'));
        p.handlerEntered.resolve();
        switch (req.headers['x-mode']) {
          case 'slow':
            await p.finish.promise;
            return { as_string: null, as_dicts: [], offset: 0 };
          case 'throw':
            throw new Error('handler failed');
          case 'throw-after-close':
            await p.socketClosed.promise;
            throw new Error('handler failed after the client left');
          case 'stream':
            reply.hijack();
            reply.raw.writeHead(200, { 'content-type': 'text/plain' });
            reply.raw.write('partial');
            await p.socketClosed.promise;
            reply.raw.end();
            return reply;
          default:
            return { as_string: null, as_dicts: [], offset: 0 };
        }
      },
    },
  });
  const keys = svc.services.keys;
  const resolve = keys.resolve.bind(keys);
  keys.resolve = async (cred: string): Promise<Principal | null> => {
    const gate = authGate;
    if (gate) {
      authEntered++;
      await gate.promise;
    }
    return resolve(cred);
  };
  const limiter = svc.services.limiter;
  const admit = limiter.admit.bind(limiter);
  limiter.admit = (...args: Parameters<typeof admit>) => {
    admissions++;
    return admit(...args);
  };
});

/** Waits (bounded) until n more requests have asked the limiter for a slot. */
async function admitted(from: number, n: number): Promise<void> {
  await waitUntil(() => admissions - from >= n, { what: `${n} admissions`, timeoutMs: 5_000, intervalMs: 10 });
  expect(admissions - from).toBe(n);
}
afterAll(async () => svc?.stop());
afterEach(() => {
  authGate?.resolve();
  authGate = null;
  authEntered = 0;
});

/** A raw request whose connection the test closes when it likes; resolves once it is written. */
function rawRequest(id: string, mode: string): Promise<{ socket: net.Socket; head: Promise<string> }> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${SEARCH} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${svc.keys.k}\r\nX-Probe: ${id}\r\nX-Mode: ${mode}\r\n\r\n`);
      let got = '';
      const head = new Promise<string>((res) => {
        socket.on('data', (b) => {
          got += b.toString('latin1');
          if (got.includes('\r\n\r\n')) res(got);
        });
      });
      resolve({ socket, head });
    });
    socket.on('error', reject);
  });
}

/** Free news slots of the key, polled briefly until all are free (a release may lag a tick). */
async function freeSlots(): Promise<number> {
  let free = -1;
  const read = async () => {
    const res = await fetch(`${svc.url}/v1/profiles/me/limits`, { headers: { authorization: `Bearer ${svc.keys.k}` } });
    expect(res.status).toBe(200);
    free = ((await res.json()) as { groups: { news: { concurrency_remaining: number } } }).groups.news.concurrency_remaining;
    return free === LIMIT;
  };
  // the last count read when they are not all free
  return waitUntil(read, { what: 'every slot free', timeoutMs: 2_000, intervalMs: 20 }).then(
    () => free,
    () => free,
  );
}

const search = (mode: string, id = nextId(), signal?: AbortSignal) =>
  fetch(`${svc.url}${SEARCH}`, { headers: { authorization: `Bearer ${svc.keys.k}`, 'x-probe': id, 'x-mode': mode }, signal });

/** LIMIT requests at once all get in: no slot is held by a request that is over. */
async function allSlotsUsable(): Promise<void> {
  const ids = Array.from({ length: LIMIT }, nextId);
  const pending = ids.map((id) => search('slow', id));
  await Promise.all(ids.map((id) => probe(id).handlerEntered.promise));
  for (const id of ids) probe(id).finish.resolve();
  expect((await Promise.all(pending)).map((r) => r.status)).toEqual(ids.map(() => 200));
}

describe('concurrency slots are released on every path', () => {
  it('a response sent frees the slot', async () => {
    for (let i = 0; i < LIMIT + 2; i++) expect((await search('ok')).status).toBe(200);
    expect(await freeSlots()).toBe(LIMIT);
  });

  it('connections closed before authentication completed free their slots', async () => {
    authGate = new Deferred();
    const reqs = await Promise.all(Array.from({ length: LIMIT + 2 }, () => nextId()).map(async (id) => ({ id, ...(await rawRequest(id, 'ok')) })));
    await waitUntil(() => authEntered >= reqs.length, { what: 'every request in authentication', intervalMs: 5 });
    for (const r of reqs) r.socket.destroy();
    await Promise.all(reqs.map((r) => probe(r.id).socketClosed.promise));
    const before = admissions;
    authGate.resolve();
    await admitted(before, reqs.length);
    expect(await freeSlots()).toBe(LIMIT);
    await allSlotsUsable();
  });

  it('ten parallel searches the client abandons while authentication is slow leave every slot free', async () => {
    authGate = new Deferred();
    const ids = Array.from({ length: 10 }, nextId);
    const client = new AbortController();
    const pending = Promise.allSettled(ids.map((id) => search('ok', id, client.signal)));
    await waitUntil(() => authEntered >= ids.length, { what: 'every request in authentication', intervalMs: 5 });
    client.abort();
    const outcomes = await pending;
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    await Promise.all(ids.map((id) => probe(id).socketClosed.promise));
    const before = admissions;
    authGate.resolve();
    await admitted(before, ids.length);
    expect(await freeSlots()).toBe(LIMIT);
    await allSlotsUsable();
  });

  it('connections closed while the handler runs keep their slots until the handler ends (hanging up cannot run more than the limit), then free them', async () => {
    const ids = Array.from({ length: LIMIT }, nextId);
    const reqs = await Promise.all(ids.map((id) => rawRequest(id, 'slow')));
    await Promise.all(ids.map((id) => probe(id).handlerEntered.promise));
    const busy = async () => {
      const r = await fetch(`${svc.url}${SEARCH}`, { headers: { authorization: `Bearer ${svc.keys.k}` } });
      expect(r.status).toBe(429);
      expect(((await r.json()) as { code: number }).code).toBe(429001);
    };
    await busy();
    for (const r of reqs) r.socket.destroy();
    await Promise.all(ids.map((id) => probe(id).socketClosed.promise));
    // the work of the clients that hung up still runs: their slots are still taken
    await busy();
    for (const id of ids) probe(id).finish.resolve();
    expect(await freeSlots()).toBe(LIMIT);
    await allSlotsUsable();
  });

  it('a request whose client left before it was admitted runs no handler', async () => {
    authGate = new Deferred();
    const id = nextId();
    const r = await rawRequest(id, 'slow');
    await waitUntil(() => authEntered >= 1, { what: 'the request in authentication', intervalMs: 5 });
    r.socket.destroy();
    await probe(id).socketClosed.promise;
    const before = admissions;
    authGate.resolve();
    await admitted(before, 1);
    expect(await freeSlots()).toBe(LIMIT);
    let entered = false;
    void probe(id).handlerEntered.promise.then(() => (entered = true));
    // a request admitted after it has been answered: had the first been handed to a handler, it would have been by now
    expect((await search('ok')).status).toBe(200);
    expect(entered).toBe(false);
  });

  it('connections closed right after the response started free their slots', async () => {
    const ids = Array.from({ length: LIMIT + 1 }, nextId);
    for (const id of ids) {
      const r = await rawRequest(id, 'stream');
      expect(await r.head).toMatch(/^HTTP\/1\.1 200/);
      r.socket.destroy();
      await probe(id).socketClosed.promise;
    }
    expect(await freeSlots()).toBe(LIMIT);
    await allSlotsUsable();
  });

  it('handler errors free their slots and answer 500 {code, detail}', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await search('throw');
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ code: 500000, detail: 'Internal Server Error' });
    }
    expect(await freeSlots()).toBe(LIMIT);
    await allSlotsUsable();
  });

  it('handlers throwing after the connection closed free their slots', async () => {
    const ids = Array.from({ length: LIMIT + 1 }, nextId);
    const reqs = await Promise.all(ids.slice(0, LIMIT).map((id) => rawRequest(id, 'throw-after-close')));
    await Promise.all(ids.slice(0, LIMIT).map((id) => probe(id).handlerEntered.promise));
    for (const r of reqs) r.socket.destroy();
    await Promise.all(ids.slice(0, LIMIT).map((id) => probe(id).socketClosed.promise));
    expect(await freeSlots()).toBe(LIMIT);
    await allSlotsUsable();
  });
});
