/**
 * The vector scan in WebAssembly SIMD (service/search/dot.wat) gives the same doubles as the JS
 * loop, bit for bit, on every path of `VectorIndex.search` (all docs, filtered, candidates, IVF
 * lists), for a dimension with and without a tail (dim mod 8); the index moves into WebAssembly
 * memory at `wasmFrom` vectors and keeps its vectors while it grows; the committed module is the
 * build of its source.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VectorIndex, dotAt, wasmDotsAvailable } from '../../../service/search/vectors.js';
import { mulberry32 as rng } from '../../../lib/random.js';

function vectors(n: number, dim: number, seed: number): Float32Array[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => r() * 2 - 1));
}

function pair(dim: number, n: number, opts: { ivfThreshold?: number; nprobe?: number } = {}) {
  const js = new VectorIndex(dim, 64, { ...opts, wasmFrom: Infinity });
  const wasm = new VectorIndex(dim, 64, { ...opts, wasmFrom: 1 });
  vectors(n, dim, dim).forEach((v, i) => {
    js.set(i, v);
    wasm.set(i, v);
  });
  return { js, wasm };
}

describe('WebAssembly dot products', () => {
  it('the module validates and runs here (Node 20 has WebAssembly SIMD): no silent fallback', () => {
    expect(wasmDotsAvailable()).toBe(true);
    const v = new VectorIndex(8, 4, { wasmFrom: 1 });
    v.set(0, [1, 0, 0, 0, 0, 0, 0, 0]);
    expect(v.inWasm).toBe(true);
    const r = v.search(Float32Array.from([0.5, 0, 0, 0, 0, 0, 0, 0]), { candidates: null, threshold: -1 });
    expect([...r.docs]).toEqual([0]);
    expect(r.scores[0]).toBe(0.5);
  });

  for (const dim of [384, 37]) {
    it(`dim ${dim}: every search path gives the JS loop's docs and doubles`, () => {
      const n = 3000;
      const { js, wasm } = pair(dim, n);
      expect(js.inWasm).toBe(false);
      expect(wasm.inWasm).toBe(true);
      const accept = (d: number) => d % 7 !== 3;
      const candidates = Int32Array.from({ length: 500 }, (_, i) => (i * 11) % n);
      for (const q of vectors(5, dim, 99 + dim)) {
        for (const o of [
          { candidates: null, threshold: -1 },
          { candidates: null, threshold: 0.05, accept },
          { candidates, threshold: -1 },
          { candidates, threshold: 0, accept },
        ]) {
          const a = js.search(q, o);
          const b = wasm.search(q, o);
          expect(b.docs.length).toBeGreaterThan(0);
          expect([...b.docs]).toEqual([...a.docs]);
          expect([...b.scores]).toEqual([...a.scores]);
        }
        // and both are the cosine of the normalised vectors, to the last bits
        const all = wasm.search(q, { candidates: null, threshold: -Infinity });
        const qd = Float64Array.from(q);
        for (const i of [0, 1, n - 1]) {
          const v = wasm.vector(i);
          let s = 0;
          for (let k = 0; k < dim; k++) s += v[k]! * qd[k]!;
          expect(Math.abs(all.scores[i]! - s)).toBeLessThan(1e-12);
          expect(all.scores[i]).toBe(dotAt(v, 0, qd, dim));
        }
      }
    });
  }

  it('the IVF path scores its lists in WebAssembly with the same results', () => {
    const { js, wasm } = pair(384, 4000, { ivfThreshold: 1000, nprobe: 6 });
    for (const q of vectors(4, 384, 7)) {
      const a = js.search(q, { candidates: null, threshold: -1, accept: (d) => d % 2 === 0 });
      const b = wasm.search(q, { candidates: null, threshold: -1, accept: (d) => d % 2 === 0 });
      expect(b.docs.length).toBeGreaterThan(100);
      expect(b.docs.length).toBeLessThan(2000); // lists, not the whole index
      expect([...b.docs]).toEqual([...a.docs]);
      expect([...b.scores]).toEqual([...a.scores]);
    }
  });

  it('moves into WebAssembly memory at wasmFrom and keeps every vector while the memory grows', () => {
    const dim = 384;
    const vs = vectors(5000, dim, 5);
    const idx = new VectorIndex(dim, 16, { wasmFrom: 100 });
    const early: Float32Array[] = [];
    vs.forEach((v, i) => {
      idx.set(i, v);
      if (i === 98) expect(idx.inWasm).toBe(false);
      if (i === 99) expect(idx.inWasm).toBe(true);
      if (i % 1000 === 0) early.push(idx.vector(i));
    });
    // copies taken before the memory grew are intact, and equal the stored vectors now
    early.forEach((v, k) => {
      expect(v.length).toBe(dim);
      expect([...idx.vector(k * 1000)]).toEqual([...v]);
    });
    // a search between growths, then more vectors, then a search: the same as the JS loop's
    const js = new VectorIndex(dim, 16, { wasmFrom: Infinity });
    vs.forEach((v, i) => js.set(i, v));
    const q = vs[1]!;
    const more = new VectorIndex(dim, 16, { wasmFrom: 100 });
    vs.slice(0, 2500).forEach((v, i) => more.set(i, v));
    more.search(q, { candidates: null, threshold: -Infinity });
    vs.slice(2500).forEach((v, i) => more.set(2500 + i, v));
    expect([...more.search(q, { candidates: null, threshold: -Infinity }).scores]).toEqual([
      ...js.search(q, { candidates: null, threshold: -Infinity }).scores,
    ]);
    // stored = the set vector normalised (float32)
    for (const i of [0, 99, 100, 2047, 4999]) {
      const v = vs[i]!;
      const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      const got = idx.vector(i);
      for (let k = 0; k < dim; k += 50) expect(got[k]).toBe(Math.fround(v[k]! / norm));
    }
  });

  it('dot-wasm.ts is the build of dot.wat', async () => {
    // @ts-expect-error a plain .mjs build script
    const { buildDotWasm } = await import('../../../scripts/build-wasm.mjs');
    const committed = fs.readFileSync(new URL('../../../service/search/dot-wasm.ts', import.meta.url), 'utf8');
    expect(await buildDotWasm()).toBe(committed);
  });
});
