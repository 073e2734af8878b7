import { describe, expect, it } from 'vitest';
import { waitUntil } from './wait-until.js';

describe('waitUntil', () => {
  it('returns the first truthy value check gives, after retrying', async () => {
    let calls = 0;
    const v = await waitUntil(() => (++calls >= 3 ? { calls } : undefined), { intervalMs: 1 });
    expect(v).toEqual({ calls: 3 });
  });

  it('retries a check that throws, and names what it waited for and the last error when it gives up', async () => {
    const err = await waitUntil(
      () => {
        throw new Error('not yet');
      },
      { what: 'the worker', timeoutMs: 20, intervalMs: 1 },
    ).catch((e: Error) => e);
    expect((err as Error).message).toBe('waitUntil: the worker not met within 20 ms; last error: not yet');
  });

  it('treats 0 and an empty string as values', async () => {
    expect(await waitUntil(() => 0)).toBe(0);
    expect(await waitUntil(() => '')).toBe('');
  });
});
