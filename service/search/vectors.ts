/**
 * Cosine search over unit-length embeddings held in one Float32Array. Exact scan for small
 * candidate sets; above `ivfThreshold` vectors an IVF index (k-means lists, `nprobe` lists
 * scanned) keeps nl search fast on 100k articles. Its recall is measured in bench/search.
 */
export class VectorIndex {
  private data: Float32Array;
  private count = 0;
  private centroids: Float32Array | null = null;
  private lists: number[][] = [];
  private trainedAt = 0;
  constructor(
    readonly dim: number,
    capacity = 1024,
    readonly opts = { ivfThreshold: 20_000, nprobe: 24 },
  ) {
    this.data = new Float32Array(dim * capacity);
  }

  get size(): number {
    return this.count;
  }

  vector(i: number): Float32Array {
    return this.data.subarray(i * this.dim, (i + 1) * this.dim);
  }

  /** Set vector of doc `i` (docs are dense ids added in order). The vector is normalised. */
  set(i: number, v: ArrayLike<number>): void {
    if (v.length !== this.dim) throw new Error(`embedding has ${v.length} dimensions, index has ${this.dim}`);
    while ((i + 1) * this.dim > this.data.length) {
      const next = new Float32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    let n = 0;
    for (let k = 0; k < this.dim; k++) n += v[k]! * v[k]!;
    n = Math.sqrt(n) || 1;
    const off = i * this.dim;
    for (let k = 0; k < this.dim; k++) this.data[off + k] = v[k]! / n;
    if (i >= this.count) this.count = i + 1;
    if (this.centroids) this.lists[this.nearestCentroid(off)]!.push(i);
  }

  dot(i: number, q: Float32Array): number {
    const d = this.data;
    let s = 0;
    const off = i * this.dim;
    for (let k = 0; k < this.dim; k++) s += d[off + k]! * q[k]!;
    return s;
  }

  private nearestCentroid(off: number): number {
    const c = this.centroids!;
    const k = c.length / this.dim;
    let best = 0;
    let bestS = -Infinity;
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let x = 0; x < this.dim; x++) s += c[j * this.dim + x]! * this.data[off + x]!;
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
    for (let j = 0; j < k; j++) c.set(this.vector(Math.floor((j * n) / k)), j * dim);
    this.centroids = c;
    let assign = new Int32Array(n);
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
        if (norm === 0) c.set(this.vector((j * 7919) % n), j * dim);
        else for (let x = 0; x < dim; x++) c[j * dim + x]! /= norm;
      }
    }
    for (let i = 0; i < n; i++) assign[i] = this.nearestCentroid(i * dim);
    this.lists = Array.from({ length: k }, () => [] as number[]);
    for (let i = 0; i < n; i++) this.lists[assign[i]!]!.push(i);
    assign = new Int32Array(0);
    this.trainedAt = n;
  }

  /**
   * Docs with cosine >= threshold, best first, among `candidates` (all docs when null).
   * Uses the IVF lists when the candidate set is large, else scans exactly.
   */
  search(q: Float32Array, opts: { candidates: Int32Array | null; accept?: (doc: number) => boolean; threshold: number; exact?: boolean }): { docs: Int32Array; scores: Float64Array } {
    const docs: number[] = [];
    const scores: number[] = [];
    const consider = (i: number) => {
      if (opts.accept && !opts.accept(i)) return;
      const s = this.dot(i, q);
      if (s >= opts.threshold) {
        docs.push(i);
        scores.push(s);
      }
    };
    const large = (opts.candidates?.length ?? this.count) > this.opts.ivfThreshold;
    if (large && !opts.exact) {
      if (!this.centroids || this.count > this.trainedAt * 2) this.train();
      const c = this.centroids!;
      const k = c.length / this.dim;
      const cs: [number, number][] = [];
      for (let j = 0; j < k; j++) {
        let s = 0;
        for (let x = 0; x < this.dim; x++) s += c[j * this.dim + x]! * q[x]!;
        cs.push([s, j]);
      }
      cs.sort((a, b) => b[0] - a[0]);
      const allowed = opts.candidates ? new Set(opts.candidates) : null;
      for (const [, j] of cs.slice(0, this.opts.nprobe)) {
        for (const i of this.lists[j]!) if (!allowed || allowed.has(i)) consider(i);
      }
    } else if (opts.candidates) {
      for (const i of opts.candidates) consider(i);
    } else {
      for (let i = 0; i < this.count; i++) consider(i);
    }
    return { docs: Int32Array.from(docs), scores: Float64Array.from(scores) };
  }
}
