/**
 * An in-memory inverted index scored with Okapi BM25 (k1 = 1.2, b = 0.75). Documents are dense
 * integer ids; documents can be added at any time (news arrives by replay).
 */
export interface Bm25Options {
  k1: number;
  b: number;
}

export class Bm25Index {
  private termIds = new Map<string, number>();
  private postDocs: number[][] = [];
  private postTf: number[][] = [];
  private docLen: number[] = [];
  private totalLen = 0;
  private docs = 0;
  constructor(readonly opts: Bm25Options = { k1: 1.2, b: 0.75 }) {}

  get size(): number {
    return this.docs;
  }

  add(doc: number, terms: string[]): void {
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let id = this.termIds.get(t);
      if (id === undefined) {
        id = this.postDocs.length;
        this.termIds.set(t, id);
        this.postDocs.push([]);
        this.postTf.push([]);
      }
      this.postDocs[id]!.push(doc);
      this.postTf[id]!.push(n);
    }
    while (this.docLen.length <= doc) this.docLen.push(0);
    this.docLen[doc] = terms.length;
    this.totalLen += terms.length;
    this.docs++;
  }

  /** Number of documents holding the term. */
  df(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.postDocs[id]!.length;
  }

  private acc = new Float64Array(0);
  private state = new Int8Array(0);

  /**
   * Score every document that holds at least one query term and passes `accept`.
   * Returns parallel arrays of doc ids and scores (unsorted). Accumulates in typed arrays sized
   * to the corpus; `accept` runs once per touched document.
   */
  score(queryTerms: string[], accept?: (doc: number) => boolean): { docs: Int32Array; scores: Float64Array } {
    const { k1, b } = this.opts;
    const n = this.docLen.length;
    if (this.acc.length < n) {
      this.acc = new Float64Array(n * 2);
      this.state = new Int8Array(n * 2);
    }
    const acc = this.acc;
    const state = this.state; // 0 untouched, 1 accepted, 2 rejected
    const touched: number[] = [];
    const avgdl = this.docs ? this.totalLen / this.docs : 1;
    const seen = new Set<string>();
    for (const t of queryTerms) {
      if (seen.has(t)) continue;
      seen.add(t);
      const id = this.termIds.get(t);
      if (id === undefined) continue;
      const docs = this.postDocs[id]!;
      const tfs = this.postTf[id]!;
      const idf = Math.log(1 + (this.docs - docs.length + 0.5) / (docs.length + 0.5));
      const norm = k1 * (1 - b);
      const lenW = (k1 * b) / avgdl;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i]!;
        let st = state[d]!;
        if (st === 0) {
          st = !accept || accept(d) ? 1 : 2;
          state[d] = st;
          touched.push(d);
        }
        if (st === 2) continue;
        const f = tfs[i]!;
        acc[d]! += (idf * f * (k1 + 1)) / (f + norm + lenW * this.docLen[d]!);
      }
    }
    let m = 0;
    for (const d of touched) if (state[d] === 1) m++;
    const outDocs = new Int32Array(m);
    const outScores = new Float64Array(m);
    let j = 0;
    for (const d of touched) {
      if (state[d] === 1) {
        outDocs[j] = d;
        outScores[j++] = acc[d]!;
      }
      acc[d] = 0;
      state[d] = 0;
    }
    return { docs: outDocs, scores: outScores };
  }
}
