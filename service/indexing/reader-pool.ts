/**
 * Page reading off the event loop. Reading a page (Readability on linkedom, page.ts) costs tens of
 * milliseconds of CPU, seconds on a large page; done in the service's thread it would stall every
 * request meanwhile and use one core. The pool runs it in worker threads, one per core by default
 * (`NEWSFLOW_PAGE_READERS`, at most 8), started on first use and unref'd (they never keep the
 * process alive). Pages queue in order; a worker that dies is replaced and its page fails with the
 * reason; when threads cannot start at all, pages are read in this thread.
 *
 * Each page has a time budget once a worker takes it (`NEWSFLOW_PAGE_READ_TIMEOUT_MS`, default
 * 20 s): past it the page fails with `PageReadTimeout` (reason `timeout`), and its worker, which
 * may be stuck in the page for good, is terminated and replaced; the pages behind it go on. (A
 * pool of size 0, or one whose threads cannot start, reads in this thread without a budget.)
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { readPage, type ReadPage } from './page.js';

interface Job {
  id: number;
  html: string;
  url: string;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  resolve: (p: ReadPage) => void;
  reject: (e: Error) => void;
}
interface Slot {
  worker: Worker;
  ready: boolean;
  dead: boolean;
  job: Job | null;
}

const WORKER_FILE = new URL('./reader-worker.mjs', import.meta.url);

export function readerCount(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.NEWSFLOW_PAGE_READERS);
  if (Number.isInteger(n) && n >= 0) return Math.min(n, 8);
  return Math.min(8, Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
}

export const READ_DEFAULTS = { timeoutMs: 20_000 } as const;

/** The per-page budget: `NEWSFLOW_PAGE_READ_TIMEOUT_MS` (a positive integer of ms), else READ_DEFAULTS.timeoutMs. */
export function readTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.NEWSFLOW_PAGE_READ_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : READ_DEFAULTS.timeoutMs;
}

/** A page whose reading passed its time budget (its worker was terminated and replaced). */
export class PageReadTimeout extends Error {
  override readonly name = 'PageReadTimeout';
  readonly reason = 'timeout';
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`reading the page took longer than its budget of ${timeoutMs} ms`);
  }
}

export class ReaderPool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  private broken = false;
  private readonly timeoutMs: number;

  constructor(
    private readonly size = readerCount(),
    opts: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? readTimeoutMs();
  }

  /** Thread ids of the live workers (a timed-out one is gone at once). */
  get threads(): number[] {
    return this.slots.map((s) => s.worker.threadId);
  }

  /**
   * Read a page in a worker thread (in this thread when the pool has size 0 or no thread starts),
   * within `timeoutMs` (default: the pool's) from when a worker takes it; past it, `PageReadTimeout`.
   */
  read(html: string, url: string, o: { timeoutMs?: number } = {}): Promise<ReadPage> {
    if (this.size === 0 || this.broken) return Promise.resolve().then(() => readPage(html, url));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, html, url, timeoutMs: o.timeoutMs ?? this.timeoutMs, resolve, reject });
      if (this.slots.length < this.size && this.slots.every((s) => s.job || !s.ready)) this.spawn();
      this.pump();
    });
  }

  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_FILE);
    } catch {
      this.broken = true;
      for (const j of this.queue.splice(0)) this.readHere(j);
      return;
    }
    worker.unref();
    const slot: Slot = { worker, ready: false, dead: false, job: null };
    this.slots.push(slot);
    worker.on('message', (m: { ready?: boolean; id?: number; page?: ReadPage; error?: string }) => {
      if (m.ready) {
        slot.ready = true;
      } else if (slot.job && m.id === slot.job.id) {
        const job = slot.job;
        clearTimeout(job.timer);
        slot.job = null;
        if (m.error !== undefined) job.reject(new Error(m.error));
        else job.resolve(m.page!);
      }
      this.pump();
    });
    const gone = (why: string) => {
      if (slot.dead) return;
      slot.dead = true;
      this.slots = this.slots.filter((s) => s !== slot);
      if (slot.job) {
        clearTimeout(slot.job.timer);
        slot.job.reject(new Error(`the page reader thread ${why}`));
      }
      slot.job = null;
      if (!slot.ready && this.slots.length === 0) {
        // threads cannot start here: read in this thread from now on
        this.broken = true;
        for (const j of this.queue.splice(0)) this.readHere(j);
        return;
      }
      if (this.queue.length) this.spawn();
    };
    worker.on('error', (e) => gone(`failed: ${e.message}`));
    worker.on('exit', (code) => gone(`exited (${code})`));
  }

  private readHere(j: Job): void {
    try {
      j.resolve(readPage(j.html, j.url));
    } catch (e) {
      j.reject(e as Error);
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
      slot.worker.postMessage({ id: job.id, html: job.html, url: job.url });
    }
  }

  /** A page past its budget: it fails, its worker is terminated (it may never come back) and replaced. */
  private expire(slot: Slot, job: Job): void {
    if (slot.job !== job || slot.dead) return;
    slot.dead = true;
    slot.job = null;
    this.slots = this.slots.filter((s) => s !== slot);
    job.reject(new PageReadTimeout(job.url, job.timeoutMs));
    slot.worker.terminate().catch(() => undefined);
    if (this.queue.length) this.spawn();
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

let shared: ReaderPool | null = null;
/** The process's page readers (URL indexing and web search share them). */
export const readerPool = (): ReaderPool => (shared ??= new ReaderPool());
