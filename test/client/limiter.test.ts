/** The client's proactive limiter against the real service's limiter, both scaled for test speed. */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { NewsClient } from '../../client/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

const utc = (s: string) => Date.parse(`${s}Z`) / 1000;
const q = { domain_names: ['acme.com'], start_date: utc('2026-01-01T00:00:00'), end_date: utc('2026-01-10T00:00:00') };
let svc: TestService | undefined;
let client: NewsClient | undefined;
afterEach(async () => {
  await client?.close();
  await svc?.stop();
  svc = undefined;
  client = undefined;
});

/** Records arrival time, status and in-flight count of every distribution request the server sees. */
function watcher() {
  const w = { arrivals: [] as number[], statuses: [] as number[], inflight: 0, maxInflight: 0 };
  const configure = (app: FastifyInstance) => {
    app.addHook('onRequest', async (req) => {
      if (!req.url.startsWith('/v1/distribution')) return;
      w.arrivals.push(performance.now());
      w.inflight++;
      w.maxInflight = Math.max(w.maxInflight, w.inflight);
    });
    app.addHook('onResponse', async (req, reply) => {
      if (!req.url.startsWith('/v1/distribution')) return;
      w.inflight--;
      w.statuses.push(reply.statusCode);
    });
  };
  return { w, configure };
}

/** Largest excess of requests over what a (rate, burst) bucket allows in any interval of arrivals. */
function worstExcess(arrivals: number[], rate: number, burst: number): number {
  let worst = -Infinity;
  for (let i = 0; i < arrivals.length; i++) {
    for (let j = i; j < arrivals.length; j++) {
      const allowed = burst + ((arrivals[j]! - arrivals[i]!) / 1000) * rate;
      worst = Math.max(worst, j - i + 1 - allowed);
    }
  }
  return worst;
}

describe('client limiter', () => {
  it('20 distribution calls at 20 rps, burst 5, 2 concurrent: 0 responses 429 and spaced as the limit says', async () => {
    const { w, configure } = watcher();
    svc = await startTestService({
      limitsText: 'distribution=20:5:2',
      configure,
      // a handler that takes a little while, so the concurrency cap is exercised
      validateResponses: false,
      handlers: {
        domain_hit_share: async () => (await new Promise((r) => setTimeout(r, 20)), { data: [{ domain: 'acme.com', hit_share: 0 }], total_share: 0 }),
      },
    });
    client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { distribution: { rate: 20, burst: 5, concurrency: 2 } } });
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: 20 }, () => client!.hitShare(q)));
    const elapsed = performance.now() - t0;
    // the server's own limiter (20 rps, burst 5) answers 429 to a request sent early: none is the proof
    // of the spacing; the times are printed (5 at once, then one per 50 ms: about 750 ms in all)
    console.log(
      `20 calls in ${elapsed.toFixed(0)} ms; worst excess over a (20 rps, burst 5) bucket at the server: ${worstExcess(w.arrivals, 20, 5).toFixed(2)} requests`,
    );
    expect(results).toHaveLength(20);
    expect(w.statuses.filter((s) => s === 429)).toEqual([]);
    expect(w.statuses.every((s) => s === 200)).toBe(true);
    expect(w.arrivals).toHaveLength(20); // nothing retried
    expect(w.maxInflight).toBeLessThanOrEqual(2);
  });

  it('without the client limiter the same burst meets 429s (the server limit is real)', async () => {
    const { w, configure } = watcher();
    svc = await startTestService({
      limitsText: 'distribution=20:5:2',
      configure,
      validateResponses: false,
      handlers: { domain_hit_share: async () => ({ data: [], total_share: 0 }) },
    });
    client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { distribution: false }, retry: { max: 10, baseDelayMs: 20 } });
    await Promise.all(Array.from({ length: 20 }, () => client!.hitShare(q)));
    expect(w.statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(w.statuses.filter((s) => s === 200)).toHaveLength(20); // and retries got every call through
  });

  it('a 429 with Retry-After: 2 is retried after the 2 s it names, and then admitted', async () => {
    const { w, configure } = watcher();
    // 0.5 rps, burst 1: the second call in a row is told to wait 2 s
    svc = await startTestService({
      limitsText: 'distribution=0.5:1:2',
      configure,
      validateResponses: false,
      handlers: { domain_hit_share: async () => ({ data: [], total_share: 0 }) },
    });
    const events: { type: string; status?: number | null; delayMs?: number }[] = [];
    client = new NewsClient({
      baseUrl: svc.url,
      apiKey: svc.keys.org,
      limits: { distribution: false },
      retry: { baseDelayMs: 10 },
      onEvent: (e) => events.push(e),
    });
    await client.hitShare(q);
    await client.hitShare(q);
    // one retry, which the server's limiter admitted: a retry sent before the 2 s would have met a second 429
    expect(w.statuses).toEqual([200, 429, 200]);
    const retry = events.find((e) => e.type === 'retry')!;
    expect(retry.status).toBe(429);
    expect(retry.delayMs).toBeGreaterThanOrEqual(2000);
    console.log(`retry ${(w.arrivals[2]! - w.arrivals[1]!).toFixed(0)} ms after the 429 (Retry-After: 2)`);
  });
});
