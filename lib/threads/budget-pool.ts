/**
 * CPU work of one request off the event loop, with a time budget: a pool of worker threads (one
 * file, its `run` the work), started on first use and unref'd (they never keep the process alive).
 * Jobs queue in order; each has its budget from when a worker takes it: past it the job fails with
 * `BudgetExceeded`, and its worker, which may be stuck in the job for good, is terminated and
 * replaced; the jobs behind it go on. A worker that dies is replaced and its job fails with the
 * reason; when threads cannot start at all, jobs run in this thread (`here`), without a budget.
 *
 * The worker file (plain JS, `serveJobs` of ./serve.mjs) answers `{ id, input }` with `{ id,
 * output }` or `{ id, error }`, and says `{ ready: true }` once it has loaded its module.
 */
import { Worker } from 'node:worker_threads';

interface Job<I, O> {
  id: number;
  input: I;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  resolve: (o: O) => void;
  reject: (e: Error) => void;
}
interface Slot<I, O> {
  worker: Worker;
  ready: boolean;
  dead: boolean;
  job: Job<I, O> | null;
}

/** A job past its time budget (its worker was terminated and replaced). */
export class BudgetExceeded extends Error {
  override readonly name = 'BudgetExceeded';
  readonly reason = 'timeout';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} took longer than its budget of ${timeoutMs} ms`);
  }
}

export interface BudgetPoolOptions<I, O> {
  /** the worker file */
  file: URL;
  /** what a job is, for messages ("building the graph") */
  what: string;
  /** threads (0: every job runs here) */
  size: number;
  /** the budget of a job that names none */
  timeoutMs: number;
  /** the work in this thread, when no thread starts */
  here: (input: I) => O;
}

export class BudgetPool<I, O> {
  private slots: Slot<I, O>[] = [];
  private queue: Job<I, O>[] = [];
  private nextId = 1;
  private broken = false;

  constructor(private readonly o: BudgetPoolOptions<I, O>) {}

  /** Thread ids of the live workers (a timed-out one is gone at once). */
  get threads(): number[] {
    return this.slots.map((s) => s.worker.threadId);
  }

  /** Run a job in a worker thread within `timeoutMs` (default: the pool's) from when a worker takes it; past it, `BudgetExceeded`. */
  run(input: I, opts: { timeoutMs?: number } = {}): Promise<O> {
    if (this.o.size === 0 || this.broken) return Promise.resolve().then(() => this.o.here(input));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, timeoutMs: opts.timeoutMs ?? this.o.timeoutMs, resolve, reject });
      if (this.slots.length < this.o.size && this.slots.every((s) => s.job || !s.ready)) this.spawn();
      this.pump();
    });
  }

  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(this.o.file);
    } catch {
      this.runAllHere();
      return;
    }
    worker.unref();
    const slot: Slot<I, O> = { worker, ready: false, dead: false, job: null };
    this.slots.push(slot);
    worker.on('message', (m: { ready?: boolean; id?: number; output?: O; error?: string }) => {
      if (m.ready) slot.ready = true;
      else if (slot.job && m.id === slot.job.id) {
        const job = slot.job;
        clearTimeout(job.timer);
        slot.job = null;
        if (m.error !== undefined) job.reject(new Error(m.error));
        else job.resolve(m.output as O);
      }
      this.pump();
    });
    const gone = (why: string) => {
      if (slot.dead) return;
      slot.dead = true;
      this.slots = this.slots.filter((s) => s !== slot);
      if (slot.job) {
        clearTimeout(slot.job.timer);
        slot.job.reject(new Error(`the thread ${this.o.what} ${why}`));
      }
      slot.job = null;
      if (!slot.ready && this.slots.length === 0) return this.runAllHere();
      if (this.queue.length) this.spawn();
    };
    worker.on('error', (e) => gone(`failed: ${e.message}`));
    worker.on('exit', (code) => gone(`exited (${code})`));
  }

  /** Threads cannot start here: every job from now on runs in this thread. */
  private runAllHere(): void {
    this.broken = true;
    for (const j of this.queue.splice(0)) {
      try {
        j.resolve(this.o.here(j.input));
      } catch (e) {
        j.reject(e as Error);
      }
    }
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      job.timer = setTimeout(() => this.expire(slot, job), job.timeoutMs);
      job.timer.unref();
      slot.worker.postMessage({ id: job.id, input: job.input });
    }
  }

  /** A job past its budget: it fails, its worker is terminated (it may never come back) and replaced. */
  private expire(slot: Slot<I, O>, job: Job<I, O>): void {
    if (slot.job !== job || slot.dead) return;
    slot.dead = true;
    slot.job = null;
    this.slots = this.slots.filter((s) => s !== slot);
    job.reject(new BudgetExceeded(this.o.what, job.timeoutMs));
    slot.worker.terminate().catch(() => undefined);
    if (this.queue.length) this.spawn();
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
