/**
 * lib/threads/budget-pool.ts: jobs run in worker threads; a job stuck past its budget fails with
 * BudgetExceeded, its thread is terminated and replaced, and the job queued behind it is answered
 * by the new thread; a job that throws fails with its message; with no threads, jobs run here.
 */
import { threadId } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExceeded, BudgetPool } from '../../../lib/threads/budget-pool.js';

type In = { n?: number; spin?: boolean; fail?: string };
type Out = { threadId: number; input: In };
const pools: BudgetPool<In, Out>[] = [];
const pool = (size: number) => {
  const p = new BudgetPool<In, Out>({
    file: new URL('../../fixtures/workers/job-worker.mjs', import.meta.url),
    what: 'the test job',
    size,
    timeoutMs: 10_000,
    here: (input) => ({ threadId, input }),
  });
  pools.push(p);
  return p;
};
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

describe('a pool of threads with a time budget', () => {
  it('answers a job from a worker thread', async () => {
    const r = await pool(1).run({ n: 1 });
    expect(r.input).toEqual({ n: 1 });
    expect(r.threadId).not.toBe(threadId);
  });

  it('a stuck job fails past its budget; its thread is replaced and the job behind it answered by the new one', async () => {
    const p = pool(1);
    const first = (await p.run({ n: 0 })).threadId;
    const stuck = p.run({ spin: true }, { timeoutMs: 200 });
    const behind = p.run({ n: 2 });
    const err = await stuck.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BudgetExceeded);
    expect((err as Error).message).toBe('the test job took longer than its budget of 200 ms');
    const next = await behind;
    expect(next.input).toEqual({ n: 2 });
    expect(next.threadId).not.toBe(first);
    expect(p.threads).not.toContain(first);
  });

  it('a job that throws fails with its message, and the thread goes on', async () => {
    const p = pool(1);
    await expect(p.run({ fail: 'no such thing' })).rejects.toThrow('no such thing');
    expect((await p.run({ n: 3 })).input).toEqual({ n: 3 });
  });

  it('with no threads, jobs run in this thread', async () => {
    expect((await pool(0).run({ n: 4 })).threadId).toBe(threadId);
  });
});
