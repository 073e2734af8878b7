/**
 * MiniLM off the event loop. onnxruntime-node's `session.run` computes on the calling thread (a
 * query's 15-30 ms hold every other request meanwhile), so the model runs in a worker thread
 * (embed-worker.mjs). Texts that arrive while the thread is busy wait in a queue and go to it
 * together as one batch of up to `maxBatch` texts when it is free (one session run for many
 * queries: about half the cost per query, and the same vectors: the attention mask keeps padding
 * out); large calls are cut into such batches, so queries interleave with a bulk embedding.
 * A query (a one-text call) not answered within `timeoutMs`, queued or running, fails with a 503;
 * a thread that fails or exits fails its texts with a 503 and is replaced on the next call; a
 * model that does not load fails every call with that 503. A busy thread is never terminated
 * (ending a thread inside onnxruntime's run aborts the whole process): a late answer is dropped.
 */
import { Worker } from 'node:worker_threads';
import { ERROR_CODES } from '../../spec/index.js';
import { HttpError } from '../errors/index.js';
import type { Embedder } from './embedder.js';
import { defaultMiniLmDir, uncasedKey } from './minilm-embedder.js';

interface Part {
  texts: string[];
  resolve: (vs: Float32Array[]) => void;
  reject: (e: Error) => void;
  settled: boolean;
}
interface Job {
  id: number;
  parts: Part[];
}

export interface ThreadEmbedderOptions {
  modelDir?: string;
  /** onnxruntime's intra-op threads in the embedding thread */
  threads?: number;
  /** most texts in one session run */
  maxBatch?: number;
  /** a query (one-text call) not answered in this time fails with a 503; loading waits */
  timeoutMs?: number;
  /** the thread's script (tests substitute a failing one) */
  workerFile?: URL;
}

const WORKER_FILE = new URL('./embed-worker.mjs', import.meta.url);

export const unavailable = (why: string) => new HttpError(503, ERROR_CODES.unavailable, `query embedding unavailable: ${why}`);

export class ThreadEmbedder implements Embedder {
  model = 'all-MiniLM-L6-v2-int8';
  dim = 384;
  relevantCosine = 0.3;
  readonly queryKey = uncasedKey;
  /** session runs so far and the texts they embedded (batching shows as texts > runs) */
  readonly stats = { runs: 0, texts: 0 };
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private up = false;
  private job: Job | null = null;
  private queue: Part[] = [];
  private nextId = 1;
  private fatal: string | null = null;
  private closed = false;
  private readonly opts: Required<ThreadEmbedderOptions>;

  constructor(opts: ThreadEmbedderOptions = {}) {
    this.opts = {
      modelDir: opts.modelDir ?? defaultMiniLmDir(),
      threads: opts.threads ?? 2,
      maxBatch: opts.maxBatch ?? 32,
      timeoutMs: opts.timeoutMs ?? 30_000,
      workerFile: opts.workerFile ?? WORKER_FILE,
    };
  }

  /** Start the thread and wait for the model (throws when it does not load). */
  static async start(opts: ThreadEmbedderOptions = {}): Promise<ThreadEmbedder> {
    const e = new ThreadEmbedder(opts);
    await e.spawn();
    return e;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return Promise.resolve([]);
    if (this.fatal !== null) return Promise.reject(unavailable(this.fatal));
    if (this.closed) return Promise.reject(unavailable('the embedder is closed'));
    const parts: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += this.opts.maxBatch) {
      const chunk = texts.slice(i, i + this.opts.maxBatch);
      parts.push(
        new Promise((resolve, reject) => {
          const part: Part = { texts: chunk, settled: false, resolve: (vs) => settle(() => resolve(vs)), reject: (e) => settle(() => reject(e)) };
          let timer: NodeJS.Timeout | null = null;
          const settle = (f: () => void) => {
            if (part.settled) return;
            part.settled = true;
            if (timer) clearTimeout(timer);
            f();
          };
          if (texts.length === 1) {
            timer = setTimeout(() => part.reject(unavailable(`no answer within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
            timer.unref();
          }
          this.queue.push(part);
        }),
      );
    }
    if (!this.worker) void this.spawn().catch(() => undefined);
    else this.pump();
    return Promise.all(parts).then((vs) => vs.flat());
  }

  private spawn(): Promise<void> {
    if (this.ready) return this.ready;
    let worker: Worker;
    try {
      worker = new Worker(this.opts.workerFile, { workerData: { modelDir: this.opts.modelDir, threads: this.opts.threads } });
    } catch (e) {
      return Promise.reject(this.fail(`the thread did not start: ${(e as Error).message}`));
    }
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on(
        'message',
        (m: { ready?: boolean; model?: string; dim?: number; relevantCosine?: number; fatal?: string; id?: number; flat?: Float32Array; error?: string }) => {
          if (m.ready) {
            this.model = m.model ?? this.model;
            this.dim = m.dim ?? this.dim;
            this.relevantCosine = m.relevantCosine ?? this.relevantCosine;
            this.up = true;
            resolve();
            this.pump();
          } else if (m.fatal !== undefined) {
            reject(this.fail(`the model did not load: ${m.fatal}`));
            void worker.terminate();
          } else if (this.job && m.id === this.job.id) {
            const job = this.job;
            this.job = null;
            if (m.error !== undefined) for (const p of job.parts) p.reject(unavailable(m.error));
            else {
              let at = 0;
              for (const p of job.parts) {
                p.resolve(p.texts.map((_, i) => m.flat!.slice((at + i) * this.dim, (at + i + 1) * this.dim)));
                at += p.texts.length;
              }
            }
            this.pump();
          }
        },
      );
      const gone = (why: string) => {
        if (this.worker !== worker) return;
        this.worker = null;
        this.ready = null;
        this.up = false;
        reject(unavailable(`the thread ${why}`));
        if (this.job) {
          for (const p of this.job.parts) p.reject(unavailable(`the thread ${why}`));
          this.job = null;
        }
        // queued texts get a new thread (a model that does not load has already failed them)
        if (this.queue.length && this.fatal === null && !this.closed) void this.spawn().catch(() => undefined);
      };
      worker.on('error', (e) => gone(`failed: ${e.message}`));
      worker.on('exit', (code) => gone(`exited (${code})`));
    });
    return this.ready;
  }

  /** A model that cannot load: every waiting and later call fails with the reason. */
  private fail(why: string): HttpError {
    this.fatal = why;
    for (const p of this.queue.splice(0)) p.reject(unavailable(why));
    return unavailable(why);
  }

  private pump(): void {
    const w = this.worker;
    while (this.queue.length && this.queue[0]!.settled) this.queue.shift(); // timed out while queued
    if (!w || !this.up || this.job || !this.queue.length) {
      if (w && !this.job) w.unref();
      return;
    }
    const parts: Part[] = [this.queue.shift()!];
    let n = parts[0]!.texts.length;
    while (this.queue.length && n + this.queue[0]!.texts.length <= this.opts.maxBatch) {
      const p = this.queue.shift()!;
      if (p.settled) continue;
      parts.push(p);
      n += p.texts.length;
    }
    const id = this.nextId++;
    this.job = { id, parts };
    this.stats.runs++;
    this.stats.texts += n;
    w.ref(); // a pending embedding keeps the process alive; an idle thread does not
    w.postMessage({ id, texts: parts.flatMap((p) => p.texts) });
  }

  /** Fail what waits, let a running batch finish (ending a thread inside a run aborts the process), end the thread. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(unavailable('the embedder is closed'));
    const deadline = Date.now() + this.opts.timeoutMs;
    while (this.job && this.worker && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    this.up = false;
    await w?.terminate();
  }
}
