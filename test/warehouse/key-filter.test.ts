/** The key filter behind a landing's new-key check: never a false "new", rarely a false "maybe". */
import { describe, expect, it } from 'vitest';
import { KeyFilter } from '../../warehouse/key-filter.js';

// deterministic 32-bit halves (xorshift)
function* halves(seed: number, n: number): Generator<[number, number]> {
  let x = seed >>> 0 || 1;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
  for (let i = 0; i < n; i++) yield [next(), next()];
}

describe('KeyFilter', () => {
  it('holds every key added (no false negative), tells unseen keys apart, and says when it is full', () => {
    const f = new KeyFilter(100_000);
    const added = [...halves(7, 100_000)];
    for (const [hi, lo] of added) f.add(hi, lo);
    expect(f.size).toBe(100_000);
    expect(added.every(([hi, lo]) => f.mayHave(hi, lo))).toBe(true);
    const falseMaybes = [...halves(99, 100_000)].filter(([hi, lo]) => f.mayHave(hi, lo)).length;
    console.log('unseen keys reported "maybe":', falseMaybes, 'of 100000');
    expect(falseMaybes).toBeLessThan(5);
    expect(f.full).toBe(false);
    // a key of hash high half 0 (fingerprint 0 marks an empty slot) is held too
    f.add(0, 12345);
    expect(f.mayHave(0, 12345)).toBe(true);
    for (const [hi, lo] of halves(3, 700_000)) f.add(hi, lo);
    expect(f.full).toBe(true);
  });
});
