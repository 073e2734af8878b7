/**
 * Scores of a clustering against labelled truth (bench/stories.ts), one function per score, each
 * on two equal-length arrays of labels: `pred[i]` the cluster of item i, `truth[i]` its class.
 *
 * - B-cubed (Bagga and Baldwin 1998; Amigó et al. 2009): per item, precision = the share of its
 *   cluster that shares its class, recall = the share of its class that shares its cluster, each
 *   averaged over items; F1 = the harmonic mean of the two averages.
 * - pairwise precision and recall: over the pairs of items put in one cluster / of one class.
 * - ARI (Hubert and Arabie 1985): the Rand index adjusted for chance, from the contingency table.
 * - NMI: mutual information over the geometric mean of the two entropies (the normalisation of
 *   the MStream paper whose scores ../shared/data/clusters/README.md quotes), and `nmiArithmetic`
 *   over their arithmetic mean (scikit-learn's default).
 */

export interface ClusterScores {
  n: number;
  clusters: number;
  classes: number;
  bcubedPrecision: number;
  bcubedRecall: number;
  bcubedF1: number;
  pairPrecision: number;
  pairRecall: number;
  ari: number;
  nmi: number;
  nmiArithmetic: number;
}

type Label = string | number;

/** Labels as dense codes 0..k-1 (in order of first appearance) and the count of each. */
function codes(labels: readonly Label[]): { code: Int32Array; sizes: number[] } {
  const index = new Map<Label, number>();
  const code = new Int32Array(labels.length);
  const sizes: number[] = [];
  labels.forEach((l, i) => {
    let k = index.get(l);
    if (k === undefined) {
      k = sizes.push(0) - 1;
      index.set(l, k);
    }
    sizes[k]!++;
    code[i] = k;
  });
  return { code, sizes };
}

const pairs = (k: number) => (k * (k - 1)) / 2;

function entropy(counts: readonly number[], n: number): number {
  let h = 0;
  for (const c of counts) if (c > 0) h -= (c / n) * Math.log(c / n);
  return h;
}

export function scoreClustering(pred: readonly Label[], truth: readonly Label[]): ClusterScores {
  if (pred.length !== truth.length) throw new Error(`pred has ${pred.length} labels, truth ${truth.length}`);
  const n = pred.length;
  const p = codes(pred);
  const t = codes(truth);
  // the contingency table's non-empty cells: items per (cluster, class)
  const cells = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const key = p.code[i]! * t.sizes.length + t.code[i]!;
    cells.set(key, (cells.get(key) ?? 0) + 1);
  }
  // B-cubed: an item in cell (c, k) has precision |c∩k|/|c| and recall |c∩k|/|k|; the cell's items share them
  let bp = 0;
  let br = 0;
  let sameBoth = 0;
  let mi = 0;
  for (const [key, m] of cells) {
    const c = p.sizes[Math.floor(key / t.sizes.length)]!;
    const k = t.sizes[key % t.sizes.length]!;
    bp += (m * m) / c;
    br += (m * m) / k;
    sameBoth += pairs(m);
    mi += (m / n) * Math.log((n * m) / (c * k));
  }
  const bcubedPrecision = n ? bp / n : 0;
  const bcubedRecall = n ? br / n : 0;
  const bcubedF1 = bcubedPrecision + bcubedRecall ? (2 * bcubedPrecision * bcubedRecall) / (bcubedPrecision + bcubedRecall) : 0;
  let samePred = 0;
  for (const c of p.sizes) samePred += pairs(c);
  let sameTruth = 0;
  for (const k of t.sizes) sameTruth += pairs(k);
  const all = pairs(n);
  const expected = all ? (samePred * sameTruth) / all : 0;
  const maxIndex = (samePred + sameTruth) / 2;
  // both partitions trivial (all one cluster, or all singletons, on both sides): agreement is perfect
  const ari = maxIndex === expected ? 1 : (sameBoth - expected) / (maxIndex - expected);
  const hp = entropy(p.sizes, n);
  const ht = entropy(t.sizes, n);
  const nmi = hp === 0 && ht === 0 ? 1 : hp === 0 || ht === 0 ? 0 : mi / Math.sqrt(hp * ht);
  const nmiArithmetic = hp === 0 && ht === 0 ? 1 : (2 * mi) / (hp + ht);
  return {
    n,
    clusters: p.sizes.length,
    classes: t.sizes.length,
    bcubedPrecision,
    bcubedRecall,
    bcubedF1,
    pairPrecision: samePred ? sameBoth / samePred : 1,
    pairRecall: sameTruth ? sameBoth / sameTruth : 1,
    ari,
    nmi,
    nmiArithmetic,
  };
}
