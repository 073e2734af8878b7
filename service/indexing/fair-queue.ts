/**
 * A task queue shared round-robin between owners: `concurrency` tasks run at once; each owner's
 * tasks run in the order they were added; a freed slot goes to the owner with a task waiting that
 * got a slot least recently (an owner that never got one first, in the order they arrived). So an
 * owner that adds one task while another has a thousand waiting gets the next free slot: it waits
 * for at most the task under way in each slot, never for the other owner's backlog.
 */
export class FairQueue {
  /** owner -> its waiting tasks, in order */
  private readonly waiting = new Map<string, (() => Promise<void>)[]>();
  /** owner -> when it last got a slot (a counter; -1: never), arrival order breaks ties, its tasks running */
  private readonly served = new Map<string, { at: number; arrived: number; running: number }>();
  private ticks = 0;
  private arrivals = 0;
  private active = 0;
  private idle: (() => void)[] = [];

  constructor(readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, not ${concurrency}`);
  }

  /** Tasks waiting, over all owners. */
  get size(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  /** Tasks running. */
  get running(): number {
    return this.active;
  }

  /** Queue a task of `owner`; settles with the task. */
  add(owner: string, task: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let q = this.waiting.get(owner);
      if (!q) this.waiting.set(owner, (q = []));
      if (!this.served.has(owner)) this.served.set(owner, { at: -1, arrived: this.arrivals++, running: 0 });
      q.push(() => task().then(resolve, reject));
      this.pump();
    });
  }

  /** Drop every waiting task (they never run, their promises stay pending); running ones go on. */
  clear(): void {
    this.waiting.clear();
    for (const [owner, s] of this.served) if (s.running === 0) this.served.delete(owner);
    this.settleIdle();
  }

  /** Resolves when nothing runs and nothing waits. */
  onIdle(): Promise<void> {
    if (this.active === 0 && this.size === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /** The owner whose turn it is: a task waiting, a slot least recently got. */
  private next(): string | null {
    let best: string | null = null;
    let bestServed = { at: Infinity, arrived: Infinity };
    for (const [owner, q] of this.waiting) {
      if (q.length === 0) continue;
      const s = this.served.get(owner)!;
      if (s.at < bestServed.at || (s.at === bestServed.at && s.arrived < bestServed.arrived)) [best, bestServed] = [owner, s];
    }
    return best;
  }

  private pump(): void {
    while (this.active < this.concurrency) {
      const owner = this.next();
      if (owner === null) break;
      const q = this.waiting.get(owner)!;
      const run = q.shift()!;
      if (q.length === 0) this.waiting.delete(owner);
      const s = this.served.get(owner)!;
      s.at = this.ticks++;
      s.running++;
      this.active++;
      void run().finally(() => {
        this.active--;
        // an owner with nothing waiting or running is forgotten: coming back later, it is a newcomer again
        if (--s.running === 0 && !this.waiting.has(owner) && this.served.get(owner) === s) this.served.delete(owner);
        this.pump();
        this.settleIdle();
      });
    }
  }

  private settleIdle(): void {
    if (this.active !== 0 || this.size !== 0) return;
    const waiters = this.idle.splice(0);
    for (const r of waiters) r();
  }
}
