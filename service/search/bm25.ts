/**
 * An in-memory inverted index scored with Okapi BM25 (k1 = 1.2, b = 0.75). Documents are dense
 * integer ids; documents can be added at any time (news arrives by replay).
 */
export interface Bm25Options {
  k1: number;
  b: number;
}

/**
 * Postings in compressed-row form (what a saved index holds, ./index-file.ts): term `t`'s
 * documents are `docs[off[t]..off[t+1])` with their term frequencies in `tfs`.
 */
export interface Bm25Frozen {
  terms: string[];
  off: Uint32Array;
  docs: Int32Array;
  tfs: Int32Array;
  /** each document's length, -1 for a document never added (it does not count in N) */
  docLen: Int32Array;
}

export class Bm25Index {
  private termIds = new Map<string, number>();
  /** postings added since the frozen base (null: none yet for that term) */
  private postDocs: (number[] | null)[] = [];
  private postTf: (number[] | null)[] = [];
  /** the postings a saved index was loaded with (terms 0..baseTerms-1), empty otherwise */
  private baseOff: Uint32Array = new Uint32Array(1);
  private baseDocs: Int32Array = new Int32Array(0);
  private baseTf: Int32Array = new Int32Array(0);
  private baseTerms = 0;
  private docLen: number[] = [];
  /** 1 for each document added (a document without terms counts in N too, one never added does not) */
  private added = new Uint8Array(1024);
  private totalLen = 0;
  private docs = 0;
  constructor(readonly opts: Bm25Options = { k1: 1.2, b: 0.75 }) {}

  /** An index over frozen postings (a saved index); documents can still be added after them. */
  static thaw(f: Bm25Frozen, opts?: Bm25Options): Bm25Index {
    const x = new Bm25Index(opts);
    f.terms.forEach((t, i) => x.termIds.set(t, i));
    x.baseTerms = f.terms.length;
    x.baseOff = f.off;
    x.baseDocs = f.docs;
    x.baseTf = f.tfs;
    x.postDocs = new Array<number[] | null>(f.terms.length).fill(null);
    x.postTf = new Array<number[] | null>(f.terms.length).fill(null);
    x.docLen = new Array<number>(f.docLen.length);
    x.added = new Uint8Array(Math.max(1024, f.docLen.length));
    for (let d = 0; d < f.docLen.length; d++) {
      const l = f.docLen[d]!;
      x.docLen[d] = Math.max(0, l);
      if (l < 0) continue;
      x.added[d] = 1;
      x.totalLen += l;
      x.docs++;
    }
    return x;
  }

  /**
   * The postings in compressed-row form with documents renumbered by `remap` (-1: left out, as a
   * removed document; a document past `remap` is left out too): what a saved index writes.
   */
  freeze(remap: Int32Array): Bm25Frozen {
    const terms: string[] = [];
    const off: number[] = [0];
    const docs: number[] = [];
    const tfs: number[] = [];
    const docLen = new Int32Array(remap.reduce((n, d) => (d >= 0 ? n + 1 : n), 0)).fill(-1);
    for (let d = 0; d < remap.length && d < this.docLen.length; d++) if (remap[d]! >= 0 && this.added[d] === 1) docLen[remap[d]!] = this.docLen[d]!;
    const keep = (d: number, f: number) => {
      const to = d < remap.length ? remap[d]! : -1;
      if (to < 0) return;
      docs.push(to);
      tfs.push(f);
    };
    for (const [t, id] of this.termIds) {
      const before = docs.length;
      if (id < this.baseTerms) for (let i = this.baseOff[id]!; i < this.baseOff[id + 1]!; i++) keep(this.baseDocs[i]!, this.baseTf[i]!);
      const ds = this.postDocs[id];
      const fs = this.postTf[id];
      if (ds && fs) for (let i = 0; i < ds.length; i++) keep(ds[i]!, fs[i]!);
      if (docs.length === before) continue;
      terms.push(t);
      off.push(docs.length);
    }
    return { terms, off: Uint32Array.from(off), docs: Int32Array.from(docs), tfs: Int32Array.from(tfs), docLen };
  }

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
        this.postDocs.push(null);
        this.postTf.push(null);
      }
      (this.postDocs[id] ??= []).push(doc);
      (this.postTf[id] ??= []).push(n);
    }
    while (this.docLen.length <= doc) this.docLen.push(0);
    this.docLen[doc] = terms.length;
    if (doc >= this.added.length) {
      const next = new Uint8Array(Math.max(doc + 1, this.added.length * 2));
      next.set(this.added);
      this.added = next;
    }
    this.added[doc] = 1;
    this.totalLen += terms.length;
    this.docs++;
  }

  /** Number of documents holding the term. */
  df(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.baseCount(id) + (this.postDocs[id]?.length ?? 0);
  }

  private baseCount(id: number): number {
    return id < this.baseTerms ? this.baseOff[id + 1]! - this.baseOff[id]! : 0;
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
      const docs = this.postDocs[id];
      const tfs = this.postTf[id];
      const df = this.df(t);
      const idf = Math.log(1 + (this.docs - df + 0.5) / (df + 0.5));
      const norm = k1 * (1 - b);
      const lenW = (k1 * b) / avgdl;
      const one = (d: number, f: number) => {
        let st = state[d]!;
        if (st === 0) {
          st = !accept || accept(d) ? 1 : 2;
          state[d] = st;
          touched.push(d);
        }
        if (st === 2) return;
        acc[d]! += (idf * f * (k1 + 1)) / (f + norm + lenW * this.docLen[d]!);
      };
      // the frozen base first, then what was added after it
      if (id < this.baseTerms) for (let i = this.baseOff[id]!, end = this.baseOff[id + 1]!; i < end; i++) one(this.baseDocs[i]!, this.baseTf[i]!);
      if (docs && tfs) for (let i = 0; i < docs.length; i++) one(docs[i]!, tfs[i]!);
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
