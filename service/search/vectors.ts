/**
 * Cosine search over unit-length embeddings held in one Float32Array. Exact scan for small
 * candidate sets; above `ivfThreshold` vectors an IVF index (k-means lists, `nprobe` lists
 * scanned) keeps nl search fast on 100k articles. Its recall is measured in bench/search.
 *
 * The scan's dot products run in WebAssembly SIMD (dot.wat: f64x2 sums over the float32
 * vectors) once an index holds `wasmFrom` vectors: its vectors then live in the module's memory
 * (one instance per index; smaller indexes stay in a plain Float32Array and do not reserve a
 * WebAssembly memory each). Both ways sum in the same order and give the same doubles.
 */
import { DOT_WASM_BASE64 } from './dot-wasm.js';
import { dotAt } from './dot.js';
import { assignAll, kmeans, listCount, nearest } from './ivf.js';
import { ivfThread } from './ivf-thread.js';

export { dotAt };

interface DotExports {
  memory: WebAssembly.Memory;
  dots(data: number, q: number, n: number, dim: number, out: number): void;
  dotsIdx(data: number, q: number, idx: number, m: number, dim: number, out: number): void;
}

/** The compiled module (null where WebAssembly SIMD is not available: the JS loop then). */
const dotModule: WebAssembly.Module | null = (() => {
  try {
    const bytes = Buffer.from(DOT_WASM_BASE64, 'base64');
    return WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    return null;
  }
})();

export const wasmDotsAvailable = () => dotModule !== null;

export interface VectorIndexOptions {
  /** above this many candidates a search probes IVF lists (below it, an exact scan) */
  ivfThreshold: number;
  /** lists probed per search */
  nprobe: number;
  /** vectors from which the scan runs in WebAssembly */
  wasmFrom: number;
  /** at most this many IVF lists (sqrt(n) below it) */
  maxLists: number;
  /**
   * train in the IVF thread (ivf-thread.ts), never on the event loop: until the first lists are
   * made a search scans exactly, and when the index has doubled it keeps the older lists meanwhile
   */
  background: boolean;
  /** with `background`: k-means runs on an evenly spaced sample of at least this many vectors (40 per list) */
  sample: number;
}

const PAGE = 65_536;
const align16 = (n: number) => (n + 15) & ~15;

export class VectorIndex {
  private data: Float32Array;
  private count = 0;
  private centroids: Float32Array | null = null;
  private lists: number[][] = [];
  private trainedAt = 0;
  /** 1 for each doc set */
  private isSet = new Uint8Array(0);
  /** training under way in the IVF thread (opts.background) */
  private pendingTrain: Promise<void> | null = null;
  /** the WebAssembly instance holding the vectors (from `wasmFrom` vectors on), else null */
  private wasm: DotExports | null = null;
  readonly opts: VectorIndexOptions;
  constructor(
    readonly dim: number,
    capacity = 1024,
    opts: Partial<VectorIndexOptions> = {},
  ) {
    this.opts = { ivfThreshold: 20_000, nprobe: 24, wasmFrom: 2048, maxLists: Infinity, background: false, sample: 20_000, ...opts };
    this.data = new Float32Array(dim * capacity);
  }

  /** True when the dot products run in WebAssembly. */
  get inWasm(): boolean {
    return this.wasm !== null;
  }

  /** Grow the WebAssembly memory to at least `bytes` (the data view is made again: growing detaches it). */
  private wasmReserve(bytes: number): void {
    const mem = this.wasm!.memory;
    const have = mem.buffer.byteLength;
    if (bytes > have) {
      const len = this.data.length; // read before growing: a detached view's length is 0
      mem.grow(Math.ceil((bytes - have) / PAGE));
      this.data = new Float32Array(mem.buffer, 0, len);
    }
  }

  /** Move the vectors into a WebAssembly instance's memory (at offset 0). */
  private toWasm(): void {
    if (!dotModule) return;
    const ex = new WebAssembly.Instance(dotModule).exports as unknown as DotExports;
    const old = this.data;
    this.wasm = ex;
    this.data = new Float32Array(ex.memory.buffer, 0, 0);
    this.wasmReserve(old.byteLength);
    this.data = new Float32Array(ex.memory.buffer, 0, old.length);
    this.data.set(old);
  }

  get size(): number {
    return this.count;
  }

  /** A copy of doc `i`'s vector (the index's own storage may move when it grows). */
  vector(i: number): Float32Array {
    return this.data.slice(i * this.dim, (i + 1) * this.dim);
  }

  /** Set vector of doc `i` (docs are dense ids added in order). The vector is normalised. */
  set(i: number, v: ArrayLike<number>): void {
    if (v.length !== this.dim) throw new Error(`embedding has ${v.length} dimensions, index has ${this.dim}`);
    while ((i + 1) * this.dim > this.data.length) {
      if (this.wasm) {
        // the data is at offset 0 of the memory: growing keeps it in place
        const len = this.data.length * 2;
        this.wasmReserve(len * 4);
        this.data = new Float32Array(this.wasm.memory.buffer, 0, len);
      } else {
        const next = new Float32Array(this.data.length * 2);
        next.set(this.data);
        this.data = next;
      }
    }
    let n = 0;
    for (let k = 0; k < this.dim; k++) n += v[k]! * v[k]!;
    n = Math.sqrt(n) || 1;
    const off = i * this.dim;
    for (let k = 0; k < this.dim; k++) this.data[off + k] = v[k]! / n;
    if (i >= this.count) this.count = i + 1;
    if (this.isSet.length < this.count) {
      const next = new Uint8Array(Math.max(this.count, this.isSet.length * 2, 1024));
      next.set(this.isSet);
      this.isSet = next;
    }
    this.isSet[i] = 1;
    if (this.centroids) this.lists[this.nearestCentroid(off)]!.push(i);
    if (!this.wasm && this.count >= this.opts.wasmFrom) this.toWasm();
  }

  /**
   * What a saved index writes (./index-file.ts), docs renumbered by `remap` (-1: left out):
   * the vectors of the kept docs (zeros where none was set), which were set, and the IVF lists
   * with their centroids (null before the first were made).
   */
  freeze(
    remap: Int32Array,
    kept: number,
  ): {
    vectors: Float32Array;
    isSet: Uint8Array;
    ivf: { centroids: Float32Array; off: Uint32Array; ids: Int32Array; trainedAt: number } | null;
  } {
    const dim = this.dim;
    const vectors = new Float32Array(kept * dim);
    const isSet = new Uint8Array(kept);
    const n = Math.min(remap.length, this.count);
    for (let i = 0; i < n; i++) {
      const to = remap[i]!;
      if (to < 0 || this.isSet[i] !== 1) continue;
      vectors.set(this.data.subarray(i * dim, (i + 1) * dim), to * dim);
      isSet[to] = 1;
    }
    let ivf = null;
    if (this.centroids) {
      const off = new Uint32Array(this.lists.length + 1);
      const ids: number[] = [];
      this.lists.forEach((list, j) => {
        for (const i of list) if (i < remap.length && remap[i]! >= 0) ids.push(remap[i]!);
        off[j + 1] = ids.length;
      });
      let trainedAt = 0;
      for (let i = 0; i < Math.min(this.trainedAt, remap.length); i++) if (remap[i]! >= 0) trainedAt++;
      ivf = { centroids: this.centroids.slice(), off, ids: Int32Array.from(ids), trainedAt };
    }
    return { vectors, isSet, ivf };
  }

  /**
   * Take what `freeze` wrote: `fill` writes the vectors' bytes (count * dim floats) into the
   * index's storage (read from a file in chunks, never held twice).
   */
  thaw(
    count: number,
    fill: (into: Uint8Array) => void,
    isSet: Uint8Array,
    ivf: { centroids: Float32Array; off: Uint32Array; ids: Int32Array; trainedAt: number } | null,
  ): void {
    const dim = this.dim;
    const cap = Math.max(this.data.length / dim, count + (count >> 2), 1024);
    if (dotModule && count >= this.opts.wasmFrom) {
      const ex = new WebAssembly.Instance(dotModule).exports as unknown as DotExports;
      this.wasm = ex;
      this.data = new Float32Array(ex.memory.buffer, 0, 0);
      this.wasmReserve(cap * dim * 4);
      this.data = new Float32Array(ex.memory.buffer, 0, cap * dim);
    } else {
      this.wasm = null;
      this.data = new Float32Array(cap * dim);
    }
    fill(new Uint8Array(this.data.buffer, this.data.byteOffset, count * dim * 4));
    this.count = count;
    this.isSet = new Uint8Array(Math.max(count, 1024));
    this.isSet.set(isSet.subarray(0, count));
    if (ivf) {
      const lists: number[][] = [];
      for (let j = 0; j + 1 < ivf.off.length; j++) lists.push(Array.from(ivf.ids.subarray(ivf.off[j]!, ivf.off[j + 1]!)));
      this.centroids = ivf.centroids;
      this.lists = lists;
      this.trainedAt = ivf.trainedAt;
    }
  }

  /** Whether doc `i` was set. */
  has(i: number): boolean {
    return i < this.count && this.isSet[i] === 1;
  }

  dot(i: number, q: ArrayLike<number>): number {
    return dotAt(this.data, i * this.dim, q, this.dim);
  }

  private nearestCentroid(off: number): number {
    return nearest(this.centroids!, this.data, off, this.dim);
  }

  /** (Re)build IVF lists with spherical k-means, deterministic seeding, in this thread. */
  train(iterations = 6): void {
    const n = this.count;
    const data = this.data.subarray(0, n * this.dim);
    const c = kmeans(data, this.dim, listCount(n, this.opts.maxLists), iterations);
    this.useLists(c, assignAll(data, this.dim, c), n);
  }

  private useLists(c: Float32Array, assign: Int32Array, n: number): void {
    const lists = Array.from({ length: c.length / this.dim }, () => [] as number[]);
    for (let i = 0; i < n; i++) lists[assign[i]!]!.push(i);
    // vectors set while the lists were made elsewhere (background training)
    for (let i = n; i < this.count; i++) lists[nearest(c, this.data, i * this.dim, this.dim)]!.push(i);
    this.centroids = c;
    this.lists = lists;
    this.trainedAt = n;
  }

  /** Whether IVF lists are being made in the IVF thread (searches scan exactly meanwhile, or use the older lists). */
  get training(): boolean {
    return this.pendingTrain !== null;
  }

  /** The IVF lists as they are when `training` ends (resolves at once when none is under way). */
  trained(): Promise<void> {
    return this.pendingTrain ?? Promise.resolve();
  }

  /**
   * Train in the IVF thread (ivf-thread.ts): k-means on an evenly spaced sample of at most
   * `sample` vectors, then every vector assigned to its list in chunks (each chunk a copy: the
   * index's own storage may move as it grows), the lists swapped in when done.
   */
  private trainInThread(): void {
    if (this.pendingTrain) return;
    const n = this.count;
    const dim = this.dim;
    const k = listCount(n, this.opts.maxLists);
    const m = Math.min(n, Math.max(this.opts.sample, 40 * k));
    const sample = new Float32Array(m * dim);
    for (let j = 0; j < m; j++) {
      const i = Math.floor((j * n) / m);
      sample.set(this.data.subarray(i * dim, (i + 1) * dim), j * dim);
    }
    this.pendingTrain = (async () => {
      const c = await ivfThread.train(sample, dim, k);
      const assign = new Int32Array(n);
      const step = 16_384;
      for (let from = 0; from < n; from += step) {
        const to = Math.min(n, from + step);
        assign.set(await ivfThread.assign(this.data.slice(from * dim, to * dim), dim, c), from);
      }
      this.useLists(c, assign, n);
    })()
      .catch((e: unknown) => process.emitWarning(`IVF training: ${(e as Error).message}; searches scan exactly`))
      .finally(() => (this.pendingTrain = null));
  }

  /**
   * Docs with cosine >= threshold, best first, among `candidates` (all docs when null).
   * Uses the IVF lists when the candidate set is large, else scans exactly.
   */
  search(
    q: Float32Array,
    opts: { candidates: Int32Array | null; accept?: (doc: number) => boolean; threshold: number; exact?: boolean },
  ): { docs: Int32Array; scores: Float64Array } {
    const dim = this.dim;
    // the query in doubles: the products are the same, without a float32 -> double per element
    const qd = Float64Array.from(q);
    const { accept, threshold } = opts;
    // the docs to score, told by the filters before any dot product (null: all docs, in order)
    let ids: Int32Array | null = null;
    const large = (opts.candidates?.length ?? this.count) > this.opts.ivfThreshold;
    const stale = !this.centroids || this.count > this.trainedAt * 2;
    if (large && !opts.exact && stale) {
      if (!this.opts.background) this.train();
      else this.trainInThread();
    }
    if (large && !opts.exact && this.centroids) {
      const c = this.centroids;
      const k = c.length / dim;
      const cs: [number, number][] = [];
      for (let j = 0; j < k; j++) cs.push([dotAt(c, j * dim, qd, dim), j]);
      cs.sort((a, b) => b[0] - a[0]);
      let allowed: Uint8Array | null = null;
      if (opts.candidates) {
        allowed = new Uint8Array(this.count);
        for (const i of opts.candidates) if (i >= 0 && i < this.count) allowed[i] = 1;
      }
      const probed = cs.slice(0, this.opts.nprobe).map(([, j]) => this.lists[j]!);
      ids = new Int32Array(probed.reduce((n, l) => n + l.length, 0));
      let m = 0;
      for (const list of probed) {
        for (const i of list) {
          if (allowed && allowed[i] !== 1) continue;
          if (accept && !accept(i)) continue;
          ids[m++] = i;
        }
      }
      ids = ids.subarray(0, m);
    } else if (opts.candidates || accept) {
      const from = opts.candidates;
      const n = from ? from.length : this.count;
      ids = new Int32Array(n);
      let m = 0;
      for (let x = 0; x < n; x++) {
        const i = from ? from[x]! : x;
        if (accept && !accept(i)) continue;
        ids[m++] = i;
      }
      ids = ids.subarray(0, m);
    }
    const n = ids ? ids.length : this.count;
    const scores = this.dots(qd, ids);
    const docs: number[] = [];
    const kept: number[] = [];
    for (let x = 0; x < n; x++) {
      const s = scores[x]!;
      if (s >= threshold) {
        docs.push(ids ? ids[x]! : x);
        kept.push(s);
      }
    }
    return { docs: Int32Array.from(docs), scores: Float64Array.from(kept) };
  }

  /**
   * The dot products of `qd` with the docs `ids` (all docs in order when null), in WebAssembly
   * when the vectors live there, else in the JS loop (the same doubles either way).
   */
  private dots(qd: Float64Array, ids: Int32Array | null): Float64Array {
    const dim = this.dim;
    const n = ids ? ids.length : this.count;
    if (!this.wasm) {
      const out = new Float64Array(n);
      for (let x = 0; x < n; x++) out[x] = dotAt(this.data, (ids ? ids[x]! : x) * dim, qd, dim);
      return out;
    }
    // scratch after the data: the query, the ids, the scores
    const qOff = align16(this.data.byteLength);
    const idxOff = align16(qOff + dim * 8);
    const outOff = align16(idxOff + (ids ? n * 4 : 0));
    this.wasmReserve(outOff + n * 8);
    const buf = this.wasm.memory.buffer;
    new Float64Array(buf, qOff, dim).set(qd);
    if (ids) {
      new Int32Array(buf, idxOff, n).set(ids);
      this.wasm.dotsIdx(0, qOff, idxOff, n, dim, outOff);
    } else {
      this.wasm.dots(0, qOff, n, dim, outOff);
    }
    return new Float64Array(buf, outOff, n).slice();
  }
}
