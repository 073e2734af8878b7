/**
 * Seeded randomness for synthetic data (the service's `simulate hits`), tests and benches: the
 * same seed gives the same numbers on every machine, so a synthetic history or a bench's request
 * sequence can be made again.
 */

/** A seeded PRNG (mulberry32): numbers in [0, 1), the same ones for the same seed. */
export function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Zipf's law over `items` in the order given: each draw picks `items[r]` with a probability
 * proportional to 1 / (r + 1)^s, reading one number of `rnd` (a few items often, most rarely, as
 * in search logs or article popularity).
 */
export function zipfSampler<T>(items: readonly T[], rnd: () => number, s = 1): () => T {
  if (items.length === 0) throw new Error('zipfSampler: no items to draw from');
  const cum: number[] = [];
  items.reduce((acc, _, r) => (cum[r] = acc + 1 / (r + 1) ** s), 0);
  const total = cum[cum.length - 1]!;
  return () => {
    const x = rnd() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo]!;
  };
}
