/** Server-side rate and concurrency limits per key and group. */
import { afterEach, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { waitUntil } from '../helpers/wait-until.js';
import { RateLimiter } from '../../service/limits.js';
import { parseLimits } from '../../spec/index.js';

const utc = (s: string) => Date.parse(`${s}Z`) / 1000;
const hitShare = `/v1/distribution/stats/hit_share?domain_names=acme.com&start_date=${utc('2026-01-01T00:00:00')}&end_date=${utc('2026-01-02T00:00:00')}`;
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

describe('token bucket', () => {
  it('admits the burst, then one token per 1/rate seconds', () => {
    let now = 0;
    const lim = new RateLimiter(parseLimits('distribution=0.2:5:2'), () => now);
    for (let i = 0; i < 5; i++) {
      const a = lim.admit('k', 'distribution');
      expect(a.ok).toBe(true);
      if (a.ok) a.release();
    }
    const over = lim.admit('k', 'distribution');
    expect(over).toMatchObject({ ok: false, code: 429000, retryAfter: 5 });
    now += 4999;
    expect(lim.admit('k', 'distribution').ok).toBe(false);
    now += 1;
    expect(lim.admit('k', 'distribution').ok).toBe(true);
    // another key has its own bucket
    expect(lim.admit('other', 'distribution').ok).toBe(true);
  });
  it('counts concurrency separately from rate', () => {
    const lim = new RateLimiter(parseLimits('distribution=100:100:2'), () => 0);
    const a = lim.admit('k', 'distribution');
    const b = lim.admit('k', 'distribution');
    expect(lim.admit('k', 'distribution')).toMatchObject({ ok: false, code: 429001 });
    if (a.ok) a.release();
    expect(lim.admit('k', 'distribution').ok).toBe(true);
    expect(b.ok).toBe(true);
  });
  it('refuses malformed limit settings with a clear message', () => {
    expect(() => parseLimits('distribution=fast')).toThrow(/GROUP=RATE:BURST:CONCURRENCY/);
    expect(() => parseLimits('nope=1:1:1')).toThrow(/GROUP one of/);
  });
});

describe('limits over HTTP', () => {
  it('answers 429 429000 with Retry-After past the burst, per key', async () => {
    svc = await startTestService({ limitsText: 'distribution=0.2:5:2' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api(svc.url, 'GET', hitShare, svc.keys.org)).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses[5]).toBe(429);
    const r = await api(svc.url, 'GET', hitShare, svc.keys.org);
    expect(r.body).toEqual({ code: 429000, detail: 'Rate Limit Exceeded' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(4);
    expect(r.headers.get('x-ratelimit-limit')).toBe('5');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    // the news group of the same key is not touched
    expect((await api(svc.url, 'GET', '/v1/news/search', svc.keys.org)).status).toBe(200);
  });
  it('answers 429 429001 past the concurrency limit', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inHandler = 0;
    svc = await startTestService({
      limitsText: 'distribution=100:100:2',
      validateResponses: false,
      handlers: {
        domain_hit_share: async () => {
          inHandler++;
          await gate;
          return { data: [], total_share: 0 };
        },
      },
    });
    const held = [api(svc.url, 'GET', hitShare, svc.keys.org), api(svc.url, 'GET', hitShare, svc.keys.org)];
    // both hold their slot (they wait in the handler) before the third asks
    await waitUntil(() => inHandler === 2, { what: 'two requests in the handler' });
    const third = await api(svc.url, 'GET', hitShare, svc.keys.org);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe(429001);
    expect(third.headers.get('x-concurrency-limit')).toBe('2');
    release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await api(svc.url, 'GET', hitShare, svc.keys.org)).status).toBe(200);
  });
  it('reports limit state without consuming it', async () => {
    svc = await startTestService({ limitsText: 'distribution=0.2:5:2' });
    await api(svc.url, 'GET', hitShare, svc.keys.org);
    const states = [];
    for (let i = 0; i < 10; i++) states.push((await api(svc.url, 'GET', '/v1/profiles/me/limits', svc.keys.org)).body);
    for (const s of states) {
      expect(s.groups.distribution).toMatchObject({ request_rate: 0.2, request_rate_capacity: 5, concurrency_limit: 2, concurrency_remaining: 2 });
      expect(s.groups.distribution.request_rate_remaining).toBeGreaterThanOrEqual(4);
      expect(s.groups.distribution.request_rate_remaining).toBeLessThan(4.5);
    }
    expect(states[0]).toHaveProperty('deepnews_concurrency_limit');
    const ok = await api(svc.url, 'GET', '/v1/profiles/me', svc.keys.org);
    expect(ok.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(ok.headers.get('x-ratelimit-remaining')).toBeTruthy();
  });
});
