/** lib/feeds/host-gate.ts: one request at a time per host, a delay between them, a back-off that refuses until it ends. */
import { describe, expect, it } from 'vitest';
import { HostBackedOff, HostGate } from '../../../lib/feeds/host-gate.js';

describe('the host gate', () => {
  it('runs the requests of one host one at a time, the delay apart, and other hosts alongside', async () => {
    let now = 0;
    const slept: number[] = [];
    const gate = new HostGate({ delayMs: 1000, now: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) });
    let running = 0;
    let most = 0;
    const req = (host: string, ms: number) =>
      gate.run(host, async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r)); // a turn of the event loop: a second request of the host would start now if the gate let it
        now += ms;
        running--;
      });
    await Promise.all([req('a.example', 100), req('a.example', 100), req('a.example', 100)]);
    expect(most).toBe(1);
    expect(slept).toEqual([1000, 1000]);
    // another host does not wait for a.example
    running = 0;
    most = 0;
    await Promise.all([req('b.example', 100), req('c.example', 100)]);
    expect(most).toBe(2);
  });

  it('waits a Crawl-delay longer than the default delay', async () => {
    let now = 0;
    const slept: number[] = [];
    const gate = new HostGate({ delayMs: 1000, now: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) });
    gate.setCrawlDelay('a.example', 5000);
    await gate.run('a.example', async () => undefined);
    await gate.run('a.example', async () => undefined);
    expect(slept).toEqual([5000]);
  });

  it('refuses a backed-off host until the back-off ends, without running the request', async () => {
    let now = 0;
    const gate = new HostGate({ delayMs: 0, now: () => now });
    gate.backOff('a.example', 60_000);
    let ran = false;
    await expect(gate.run('a.example', async () => void (ran = true))).rejects.toBeInstanceOf(HostBackedOff);
    expect(ran).toBe(false);
    expect(gate.backedOffUntil('a.example')).toBe(60_000);
    now = 60_001;
    await gate.run('a.example', async () => void (ran = true));
    expect(ran).toBe(true);
  });
});

describe('the host gate is bounded', () => {
  it('forgets the least recently used idle hosts beyond maxHosts, never a busy or backed-off one', async () => {
    let now = 1_000_000;
    const gate = new HostGate({ delayMs: 10, maxHosts: 100, now: () => now, sleep: async (ms) => void (now += ms) });
    gate.backOff('held.example', now + 3_600_000);
    let release!: () => void;
    const busy = gate.run('busy.example', () => new Promise<void>((r) => (release = r)));
    for (let i = 0; i < 1000; i++) {
      await gate.run(`h${i}.example`, async () => undefined);
      now += 20;
    }
    console.log(`hosts remembered after 1,002 hosts with maxHosts 100: ${gate.size}`);
    expect(gate.size).toBeLessThanOrEqual(100);
    expect(gate.backedOffUntil('held.example')).not.toBeNull();
    release();
    await busy;
  });
});
