/**
 * IVF lists made off the event loop (service/search/ivf-thread.ts): an index with `background`
 * answers a search over its threshold at once with an exact scan while its lists are made in the
 * IVF thread, then probes them; the thread's k-means and assignment give the lists this thread's
 * would (the same functions, the same doubles), and the index keeps vectors set meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { VectorIndex } from '../../../service/search/vectors.js';
import { IvfThread } from '../../../service/search/ivf-thread.js';
import { assignAll, kmeans } from '../../../service/search/ivf.js';
import { mulberry32 as rng } from '../../../lib/random.js';

const DIM = 48;
function vectors(n: number, seed: number): Float32Array[] {
  const r = rng(seed);
  // clustered: 20 directions plus noise, so IVF lists mean something
  const centres = Array.from({ length: 20 }, () => Float32Array.from({ length: DIM }, () => r() * 2 - 1));
  return Array.from({ length: n }, (_, i) => Float32Array.from(centres[i % 20]!, (x) => x + (r() - 0.5) * 0.6));
}

const top = (r: { docs: Int32Array; scores: Float64Array }, k: number) =>
  Array.from(r.docs)
    .map((d, i) => [d, r.scores[i]!] as const)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, k)
    .map(([d]) => d);

describe('IVF training in the IVF thread', () => {
  it('the thread computes what this thread computes', async () => {
    const flat = new Float32Array(3000 * DIM);
    vectors(3000, 1).forEach((v, i) => flat.set(v, i * DIM));
    const here = kmeans(flat, DIM, 16, 4);
    const thread = new IvfThread();
    try {
      const there = await thread.train(flat.slice(), DIM, 16, 4);
      expect(Array.from(there)).toEqual(Array.from(here));
      expect(Array.from(await thread.assign(flat.slice(), DIM, here))).toEqual(Array.from(assignAll(flat, DIM, here)));
    } finally {
      await thread.close();
    }
  });

  it('a search answers from an exact scan while the lists are made, then probes them', async () => {
    const vs = vectors(4000, 2);
    const idx = new VectorIndex(DIM, 64, { ivfThreshold: 1000, nprobe: 6, background: true, sample: 1000 });
    vs.forEach((v, i) => idx.set(i, v));
    const q = vs[17]!;
    const exact = idx.search(q, { candidates: null, threshold: -Infinity, exact: true });
    const first = idx.search(q, { candidates: null, threshold: -Infinity });
    expect(idx.training).toBe(true);
    // not trained yet: every vector scored, the exact answer
    expect(first.docs.length).toBe(4000);
    expect(top(first, 10)).toEqual(top(exact, 10));
    // set while the lists are made: kept in them
    const late = vectors(200, 3);
    late.forEach((v, i) => idx.set(4000 + i, v));
    await idx.trained();
    expect(idx.training).toBe(false);
    const probed = idx.search(q, { candidates: null, threshold: -Infinity });
    expect(probed.docs.length).toBeGreaterThan(0);
    expect(probed.docs.length).toBeLessThan(4200);
    const want = top(idx.search(q, { candidates: null, threshold: -Infinity, exact: true }), 10);
    const got = new Set(top(probed, 10));
    expect(want.filter((d) => got.has(d)).length).toBeGreaterThanOrEqual(9);
    // every vector is in exactly one list: a search for each late vector finds it
    for (let i = 0; i < 200; i += 40) expect(top(idx.search(late[i]!, { candidates: null, threshold: -Infinity }), 1)).toEqual([4000 + i]);
  });
});
