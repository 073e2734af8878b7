/**
 * The IVF thread: k-means training and list assignment (ivf.ts) in one worker thread, started on
 * first use and unref'd (it never keeps the process alive, and SIGTERM is not held up by it). A
 * VectorIndex over `ivfThreshold` vectors trains through it, so no search (and no signal) waits for
 * k-means on the event loop. When no thread starts, the work runs here, in chunks between turns of
 * the event loop.
 */
import { Worker } from 'node:worker_threads';
import { assignAll, kmeans } from './ivf.js';

const WORKER_FILE = new URL('./ivf-worker.mjs', import.meta.url);

interface Pending {
  resolve: (m: { centroids?: Float32Array; lists?: Int32Array }) => void;
  reject: (e: Error) => void;
}

export class IvfThread {
  private worker: Worker | null = null;
  private broken = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private start(): Worker | null {
    if (this.worker || this.broken) return this.worker;
    try {
      const w = new Worker(WORKER_FILE);
      w.unref();
      w.on('message', (m: { id?: number; error?: string; centroids?: Float32Array; lists?: Int32Array }) => {
        if (m.id === undefined) return;
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error !== undefined) p?.reject(new Error(`IVF thread: ${m.error}`));
        else p?.resolve(m);
      });
      const gone = (why: string) => {
        this.worker = null;
        for (const p of this.pending.values()) p.reject(new Error(`the IVF thread ${why}`));
        this.pending.clear();
      };
      w.on('error', (e) => gone(`failed: ${e.message}`));
      w.on('exit', (code) => gone(`exited (${code})`));
      this.worker = w;
    } catch {
      this.broken = true;
    }
    return this.worker;
  }

  private call(msg: Record<string, unknown>, transfer: ArrayBuffer[]): Promise<{ centroids?: Float32Array; lists?: Int32Array }> {
    const w = this.start();
    if (!w) return Promise.reject(new Error('no IVF thread'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ ...msg, id }, transfer);
    });
  }

  /** `k` centroids of `sample` (transferred: the caller gives up the buffer). */
  async train(sample: Float32Array, dim: number, k: number, iterations = 6): Promise<Float32Array> {
    if (!this.start()) return kmeans(sample, dim, k, iterations);
    return (await this.call({ type: 'train', sample, dim, k, iterations }, [sample.buffer as ArrayBuffer])).centroids!;
  }

  /** The list of each vector of `vectors` (transferred) among `centroids` (copied). */
  async assign(vectors: Float32Array, dim: number, centroids: Float32Array): Promise<Int32Array> {
    if (!this.start()) {
      await new Promise<void>((r) => setImmediate(r));
      return assignAll(vectors, dim, centroids);
    }
    return (await this.call({ type: 'assign', vectors, dim, centroids }, [vectors.buffer as ArrayBuffer])).lists!;
  }

  /** Stop the thread (pending work fails). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }
}

/** The process's IVF thread (one is enough: training is rare and the machine's cores are few). */
export const ivfThread = new IvfThread();
