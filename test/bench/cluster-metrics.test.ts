/**
 * The clustering scores of bench/stories.ts against values worked out by hand on tiny partitions
 * (the working is in the comments).
 */
import { describe, expect, it } from 'vitest';
import { scoreClustering } from '../../bench/cluster-metrics.js';

describe('clustering scores', () => {
  it('a split class and a mixed cluster: B-cubed, pairwise, ARI and NMI as worked by hand', () => {
    // classes a = {0,1,2}, b = {3,4}; clusters 1 = {0,1}, 2 = {2,3,4}; cells (1,a)=2, (2,a)=1, (2,b)=2
    const s = scoreClustering([1, 1, 2, 2, 2], ['a', 'a', 'a', 'b', 'b']);
    expect(s).toMatchObject({ n: 5, clusters: 2, classes: 2 });
    // precision per item: 1, 1, 1/3, 2/3, 2/3 -> 11/15; recall per item: 2/3, 2/3, 1/3, 1, 1 -> 11/15
    expect(s.bcubedPrecision).toBeCloseTo(11 / 15, 12);
    expect(s.bcubedRecall).toBeCloseTo(11 / 15, 12);
    expect(s.bcubedF1).toBeCloseTo(11 / 15, 12);
    // pairs together: 1 + 3 = 4; of one class: 3 + 1 = 4; both: (0,1) and (3,4)
    expect(s.pairPrecision).toBeCloseTo(2 / 4, 12);
    expect(s.pairRecall).toBeCloseTo(2 / 4, 12);
    // ARI: expected = 4 * 4 / C(5,2) = 1.6, max = 4 -> (2 - 1.6) / (4 - 1.6)
    expect(s.ari).toBeCloseTo(0.4 / 2.4, 12);
    // MI = 0.4 ln(10/6) + 0.2 ln(5/9) + 0.4 ln(10/6); both entropies are H(0.4, 0.6)
    const mi = 0.8 * Math.log(5 / 3) + 0.2 * Math.log(5 / 9);
    const h = -(0.4 * Math.log(0.4) + 0.6 * Math.log(0.6));
    expect(s.nmi).toBeCloseTo(mi / h, 12);
    expect(s.nmiArithmetic).toBeCloseTo(mi / h, 12);
  });

  it('every item alone: full precision, half recall, ARI 0, and the two NMI normalisations differ', () => {
    const s = scoreClustering([1, 2, 3, 4], ['a', 'a', 'b', 'b']);
    expect(s.clusters).toBe(4);
    expect(s.bcubedPrecision).toBe(1);
    expect(s.bcubedRecall).toBeCloseTo(0.5, 12);
    expect(s.bcubedF1).toBeCloseTo(2 / 3, 12);
    expect(s.pairRecall).toBe(0);
    expect(s.ari).toBeCloseTo(0, 12);
    // MI = H(truth) = ln 2; H(pred) = ln 4: geometric ln2 / sqrt(ln4 ln2) = 1/sqrt(2), arithmetic ln2 / (1.5 ln2) = 2/3
    expect(s.nmi).toBeCloseTo(Math.SQRT1_2, 12);
    expect(s.nmiArithmetic).toBeCloseTo(2 / 3, 12);
  });

  it('everything in one cluster: half precision, full recall, ARI and NMI 0', () => {
    const s = scoreClustering(['x', 'x', 'x', 'x'], ['a', 'a', 'b', 'b']);
    expect(s.bcubedPrecision).toBeCloseTo(0.5, 12);
    expect(s.bcubedRecall).toBe(1);
    expect(s.bcubedF1).toBeCloseTo(2 / 3, 12);
    expect(s.pairPrecision).toBeCloseTo(2 / 6, 12);
    expect(s.ari).toBeCloseTo(0, 12);
    expect(s.nmi).toBe(0);
  });

  it('the same partition under other names scores 1 everywhere', () => {
    const s = scoreClustering(['p', 'p', 'q', 'r', 'r', 'r'], [7, 7, 3, 9, 9, 9]);
    for (const k of ['bcubedPrecision', 'bcubedRecall', 'bcubedF1', 'pairPrecision', 'pairRecall', 'ari', 'nmi', 'nmiArithmetic'] as const)
      expect(s[k]).toBeCloseTo(1, 12);
  });

  it('labels of different lengths are an error', () => {
    expect(() => scoreClustering([1, 2], ['a'])).toThrow('pred has 2 labels, truth 1');
  });
});
