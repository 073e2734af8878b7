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
    const dim = this.dim;
    const data = this.data;
    // the query in doubles: the products are the same, without a float32 -> double per element
    const qd = Float64Array.from(q);
    const { accept, threshold } = opts;
    const docs: number[] = [];
    const scores: number[] = [];
    const scan = (ids: ArrayLike<number>, allowed: Uint8Array | null) => {
      for (let x = 0; x < ids.length; x++) {
        const i = ids[x]!;
        if (allowed && allowed[i] !== 1) continue;
        if (accept && !accept(i)) continue;
        const s = dotAt(data, i * dim, qd, dim);
        if (s >= threshold) {
          docs.push(i);
          scores.push(s);
        }
      }
    };
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
      for (const [, j] of cs.slice(0, this.opts.nprobe)) scan(this.lists[j]!, allowed);
    } else if (opts.candidates) {
      scan(opts.candidates, null);
    } else {
      for (let i = 0; i < this.count; i++) {
        if (accept && !accept(i)) continue;
        const s = dotAt(data, i * dim, qd, dim);
        if (s >= threshold) {
          docs.push(i);
          scores.push(s);
        }
      }
    }
    return { docs: Int32Array.from(docs), scores: Float64Array.from(scores) };
  }
}

/**
 * Dot product of `dim` floats of `a` from `off` with `q`: four running sums (the loop is bound
 * by the additions' latency otherwise), so a sum may differ from the one-by-one sum in its last
 * bits (~1e-15).
 */
export function dotAt(a: Float32Array, off: number, q: ArrayLike<number>, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  let o = off;
  for (const end = dim - 3; k < end; k += 4, o += 4) {
    s0 += a[o]! * q[k]!;
    s1 += a[o + 1]! * q[k + 1]!;
    s2 += a[o + 2]! * q[k + 2]!;
    s3 += a[o + 3]! * q[k + 3]!;
  }
  for (; k < dim; k++, o++) s0 += a[o]! * q[k]!;
  return s0 + s1 + (s2 + s3);
}
