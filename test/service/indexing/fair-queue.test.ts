/** The round-robin queue of URL indexing (service/indexing/fair-queue.ts), with tasks the test finishes by hand. */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../../service/indexing/fair-queue.js';

/** A queue whose tasks record their start and wait until the test finishes them. */
function harness(concurrency: number) {
  const q = new FairQueue(concurrency);
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const add = (owner: string, name: string) =>
    void q.add(
      owner,
      () =>
        new Promise<void>((resolve) => {
          started.push(name);
          finish.set(name, resolve);
        }),
    );
  /** finish a running task and let the queue hand out its slot */
  const done = async (name: string) => {
    finish.get(name)!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { q, started, add, done };
}

describe('FairQueue', () => {
  it("a newcomer's task takes the first slot that frees, ahead of the backlog of an owner already served", async () => {
    const h = harness(2);
    for (let i = 0; i < 100; i++) h.add('A', `a${i}`);
    expect(h.started).toEqual(['a0', 'a1']);
    h.add('B', 'b0');
    await h.done('a0');
    expect(h.started).toEqual(['a0', 'a1', 'b0']);
    await h.done('a1');
    expect(h.started.at(-1)).toBe('a2');
  });

  it('owners with work waiting alternate, each in its own order', async () => {
    const h = harness(1);
    for (let i = 0; i < 3; i++) h.add('A', `a${i}`);
    for (let i = 0; i < 3; i++) h.add('B', `b${i}`);
    h.add('C', 'c0');
    for (const name of ['a0', 'b0', 'c0', 'a1', 'b1', 'a2']) await h.done(name);
    expect(h.started).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'b2']);
    expect(h.q.size).toBe(0);
    expect(h.q.running).toBe(1);
  });

  it('runs at most `concurrency` tasks; onIdle resolves when all have run; clear drops what waits', async () => {
    const h = harness(3);
    for (let i = 0; i < 5; i++) h.add('A', `a${i}`);
    expect(h.q.running).toBe(3);
    expect(h.q.size).toBe(2);
    h.q.clear();
    expect(h.q.size).toBe(0);
    const idle = h.q.onIdle();
    for (const name of ['a0', 'a1', 'a2']) await h.done(name);
    await idle;
    expect(h.started).toEqual(['a0', 'a1', 'a2']);
  });
});
