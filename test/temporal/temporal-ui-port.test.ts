import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TEMPORAL_UI_PORT, preferredPort } from '../../temporal/index.js';

const held: net.Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});
function hold(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => {
      held.push(s);
      resolve(true);
    });
  });
}

describe('the Temporal UI port newsflow picks', () => {
  it('is 8233, the Temporal CLI default', () => {
    expect(TEMPORAL_UI_PORT).toBe(8233);
  });

  it('is the preferred port when it is free', async () => {
    // a port range nothing else of the suite uses
    expect(await preferredPort(18533)).toBe(18533);
  });

  it('is the next free one when the preferred port is taken', async () => {
    expect(await hold(18543)).toBe(true);
    expect(await hold(18544)).toBe(true);
    expect(await preferredPort(18543)).toBe(18545);
  });

  it('is some free port when the whole range is taken', async () => {
    for (let p = 18553; p < 18556; p++) expect(await hold(p)).toBe(true);
    const p = await preferredPort(18553, 3);
    expect(p < 18553 || p >= 18556).toBe(true);
    expect(await hold(p)).toBe(true);
  });
});
