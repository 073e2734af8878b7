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

  /**
   * Score every document that holds at least one query term and passes `accept`.
   * Returns parallel arrays of doc ids and scores (unsorted).
   */
  score(queryTerms: string[], accept?: (doc: number) => boolean): { docs: Int32Array; scores: Float64Array } {
    const { k1, b } = this.opts;
    const avgdl = this.docs ? this.totalLen / this.docs : 1;
    const acc = new Map<number, number>();
    const seen = new Set<string>();
    for (const t of queryTerms) {
      if (seen.has(t)) continue;
      seen.add(t);
      const id = this.termIds.get(t);
      if (id === undefined) continue;
      const docs = this.postDocs[id]!;
      const tfs = this.postTf[id]!;
      const idf = Math.log(1 + (this.docs - docs.length + 0.5) / (docs.length + 0.5));
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i]!;
        const prev = acc.get(d);
        if (prev === undefined && accept && !accept(d)) {
          acc.set(d, Number.NaN); // rejected: remember, skip later terms cheaply
          continue;
        }
        if (prev !== undefined && Number.isNaN(prev)) continue;
        const f = tfs[i]!;
        const s = (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * this.docLen[d]!) / avgdl));
        acc.set(d, (prev ?? 0) + s);
      }
    }
    const docs: number[] = [];
    const scores: number[] = [];
    for (const [d, s] of acc) {
      if (!Number.isNaN(s)) {
        docs.push(d);
        scores.push(s);
      }
    }
    return { docs: Int32Array.from(docs), scores: Float64Array.from(scores) };
  }
}
