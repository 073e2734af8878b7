/** The client's GCRA limiter on a hand-driven clock. */
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../client/limiter.js';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}
/** take() resolves at once when allowed; otherwise it would sleep on real timers. */
async function allowedNow(b: TokenBucket): Promise<boolean> {
  const r = await Promise.race([b.take().then(() => true), new Promise<boolean>((res) => setTimeout(() => res(false), 30))]);
  return r;
}

describe('TokenBucket (GCRA)', () => {
  it('allows the burst at once, then one request per interval', async () => {
    const c = clock();
    const b = new TokenBucket(1, 3, c.now);
    for (let i = 0; i < 3; i++) expect(await allowedNow(b)).toBe(true);
    expect(await allowedNow(b)).toBe(false);
    c.advance(1e9); // let the pending take finish
  });
  it('re-stamps a request at its response time', async () => {
    const c = clock();
    const b = new TokenBucket(1, 2, c.now);
    const t1 = await b.take(); // sent at 0
    c.advance(5000); // the answer comes 5 s later: the server may have metered it just now
    b.settle(t1);
    expect(await allowedNow(b)).toBe(true); // the burst's second slot
    expect(await allowedNow(b)).toBe(false); // not a fresh burst of 2 as a send-time bucket would allow
    c.advance(1e9);
  });
  it('pauses for Retry-After, then allows one request', async () => {
    const c = clock();
    const b = new TokenBucket(10, 5, c.now);
    b.pauseFor(2000);
    expect(await allowedNow(b)).toBe(false);
    c.advance(1e9);
  });
});
