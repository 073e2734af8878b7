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

const PAGE = 65_536;
const align16 = (n: number) => (n + 15) & ~15;

export class VectorIndex {
  private data: Float32Array;
  private count = 0;
  private centroids: Float32Array | null = null;
  private lists: number[][] = [];
  private trainedAt = 0;
  /** the WebAssembly instance holding the vectors (from `wasmFrom` vectors on), else null */
  private wasm: DotExports | null = null;
  readonly opts: { ivfThreshold: number; nprobe: number; wasmFrom: number };
  constructor(
    readonly dim: number,
    capacity = 1024,
    opts: Partial<{ ivfThreshold: number; nprobe: number; wasmFrom: number }> = {},
  ) {
    this.opts = { ivfThreshold: 20_000, nprobe: 24, wasmFrom: 2048, ...opts };
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
    if (this.centroids) this.lists[this.nearestCentroid(off)]!.push(i);
    if (!this.wasm && this.count >= this.opts.wasmFrom) this.toWasm();
  }

  dot(i: number, q: ArrayLike<number>): number {
    return dotAt(this.data, i * this.dim, q, this.dim);
  }

  private nearestCentroid(off: number): number {
    const c = this.centroids!;
    const k = c.length / this.dim;
    let best = 0;
    let bestS = -Infinity;
    const v = this.data.subarray(off, off + this.dim);
    for (let j = 0; j < k; j++) {
      const s = dotAt(c, j * this.dim, v, this.dim);
      if (s > bestS) {
        bestS = s;
        best = j;
      }
    }
    return best;
  }

  /** (Re)build IVF lists with spherical k-means, deterministic seeding. */
  train(iterations = 6): void {
    const n = this.count;
    const k = Math.max(8, Math.round(Math.sqrt(n)));
    const dim = this.dim;
    const c = new Float32Array(k * dim);
    for (let j = 0; j < k; j++) c.set(this.data.subarray(Math.floor((j * n) / k) * dim, (Math.floor((j * n) / k) + 1) * dim), j * dim);
    this.centroids = c;
    const assign = new Int32Array(n);
    for (let it = 0; it < iterations; it++) {
      for (let i = 0; i < n; i++) assign[i] = this.nearestCentroid(i * dim);
      c.fill(0);
      const counts = new Int32Array(k);
      for (let i = 0; i < n; i++) {
        const j = assign[i]!;
        counts[j]!++;
        for (let x = 0; x < dim; x++) c[j * dim + x]! += this.data[i * dim + x]!;
      }
      for (let j = 0; j < k; j++) {
        let norm = 0;
        for (let x = 0; x < dim; x++) norm += c[j * dim + x]! ** 2;
        norm = Math.sqrt(norm);
        if (norm === 0) c.set(this.data.subarray(((j * 7919) % n) * dim, (((j * 7919) % n) + 1) * dim), j * dim);
        else for (let x = 0; x < dim; x++) c[j * dim + x]! /= norm;
      }
    }
    for (let i = 0; i < n; i++) assign[i] = this.nearestCentroid(i * dim);
    this.lists = Array.from({ length: k }, () => [] as number[]);
    for (let i = 0; i < n; i++) this.lists[assign[i]!]!.push(i);
    this.trainedAt = n;
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
    if (large && !opts.exact) {
      if (!this.centroids || this.count > this.trainedAt * 2) this.train();
      const c = this.centroids!;
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

/**
 * Dot product of `dim` floats of `a` from `off` with `q`: eight running sums (k mod 8), added as
 * dot.wat's f64x2 lanes add them (((0+2)+(4+6)) + ((1+3)+(5+7)), then the last dim mod 8 one by
 * one), so this loop and the WebAssembly scan give the same double; a sum may differ from the
 * one-by-one sum in its last bits (~1e-15).
 */
export function dotAt(a: Float32Array, off: number, q: ArrayLike<number>, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let s5 = 0;
  let s6 = 0;
  let s7 = 0;
  let k = 0;
  let o = off;
  for (; k + 8 <= dim; k += 8, o += 8) {
    s0 += a[o]! * q[k]!;
    s1 += a[o + 1]! * q[k + 1]!;
    s2 += a[o + 2]! * q[k + 2]!;
    s3 += a[o + 3]! * q[k + 3]!;
    s4 += a[o + 4]! * q[k + 4]!;
    s5 += a[o + 5]! * q[k + 5]!;
    s6 += a[o + 6]! * q[k + 6]!;
    s7 += a[o + 7]! * q[k + 7]!;
  }
  let t = s0 + s2 + (s4 + s6) + (s1 + s3 + (s5 + s7));
  for (; k < dim; k++, o++) t += a[o]! * q[k]!;
  return t;
}
