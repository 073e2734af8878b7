/**
 * IVF training (spherical k-means) and list assignment over unit-length vectors in flat
 * Float32Arrays: the work behind VectorIndex's IVF lists, written as plain functions so it runs
 * in this thread (VectorIndex.train) or in the IVF thread (ivf-worker.mjs, off the event loop).
 */
import { dotAt } from './dot.js';
import { DOT_WASM_BASE64 } from './dot-wasm.js';

/** Lists of an index of `n` vectors: sqrt(n) (at least 8), at most `max`. */
export const listCount = (n: number, max = Infinity) => Math.min(max, Math.max(8, Math.round(Math.sqrt(n))));

/** The nearest of the `k` centroids of `c` to `dim` floats of `v` from `off`. */
export function nearest(c: Float32Array, v: Float32Array, off: number, dim: number): number {
  const k = c.length / dim;
  const q = v.subarray(off, off + dim);
  let best = 0;
  let bestS = -Infinity;
  for (let j = 0; j < k; j++) {
    const s = dotAt(c, j * dim, q, dim);
    if (s > bestS) {
      bestS = s;
      best = j;
    }
  }
  return best;
}

/**
 * `k` centroids of the `n = data.length / dim` vectors of `data` by spherical k-means: seeded with
 * evenly spaced vectors (deterministic), `iterations` rounds, an emptied list reseeded.
 */
export function kmeans(data: Float32Array, dim: number, k: number, iterations = 6): Float32Array {
  const n = data.length / dim;
  const c = new Float32Array(k * dim);
  for (let j = 0; j < k; j++) c.set(data.subarray(Math.floor((j * n) / k) * dim, (Math.floor((j * n) / k) + 1) * dim), j * dim);
  const assign = new Int32Array(n);
  for (let it = 0; it < iterations; it++) {
    assign.set(assignAll(data, dim, c));
    c.fill(0);
    for (let i = 0; i < n; i++) {
      const j = assign[i]!;
      for (let x = 0; x < dim; x++) c[j * dim + x]! += data[i * dim + x]!;
    }
    for (let j = 0; j < k; j++) {
      let norm = 0;
      for (let x = 0; x < dim; x++) norm += c[j * dim + x]! ** 2;
      norm = Math.sqrt(norm);
      if (norm === 0) c.set(data.subarray(((j * 7919) % n) * dim, (((j * 7919) % n) + 1) * dim), j * dim);
      else for (let x = 0; x < dim; x++) c[j * dim + x]! /= norm;
    }
  }
  return c;
}

interface DotExports {
  memory: WebAssembly.Memory;
  dots(data: number, q: number, n: number, dim: number, out: number): void;
}

/**
 * The nearest centroid of each vector, the centroids in a WebAssembly instance's memory (dot.wat's
 * SIMD scan, the same doubles as `dotAt`): about four times the JS loop. Null where WebAssembly
 * SIMD is not available.
 */
function wasmNearest(c: Float32Array, dim: number): ((v: Float32Array, off: number) => number) | null {
  let ex: DotExports;
  try {
    const bytes = Buffer.from(DOT_WASM_BASE64, 'base64');
    if (!WebAssembly.validate(bytes)) return null;
    ex = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as DotExports;
  } catch {
    return null;
  }
  const k = c.length / dim;
  const align = (n: number) => (n + 15) & ~15;
  const qOff = align(c.byteLength);
  const outOff = align(qOff + dim * 8);
  const need = outOff + k * 8;
  if (need > ex.memory.buffer.byteLength) ex.memory.grow(Math.ceil((need - ex.memory.buffer.byteLength) / 65_536));
  new Float32Array(ex.memory.buffer, 0, c.length).set(c);
  const q = new Float64Array(ex.memory.buffer, qOff, dim);
  const out = new Float64Array(ex.memory.buffer, outOff, k);
  return (v, off) => {
    for (let x = 0; x < dim; x++) q[x] = v[off + x]!;
    ex.dots(0, qOff, k, dim, outOff);
    let best = 0;
    for (let j = 1; j < k; j++) if (out[j]! > out[best]!) best = j;
    return best;
  };
}

/** The list (nearest centroid) of each vector of `data`. */
export function assignAll(data: Float32Array, dim: number, c: Float32Array): Int32Array {
  const n = data.length / dim;
  const out = new Int32Array(n);
  const near = wasmNearest(c, dim);
  for (let i = 0; i < n; i++) out[i] = near ? near(data, i * dim) : nearest(c, data, i * dim, dim);
  return out;
}
