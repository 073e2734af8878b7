/**
 * The in-memory wiki index (chunks, BM25 postings, unit vectors) and search over it: nl (cosine),
 * hybrid (cosine + BM25 fused by reciprocal rank), string guarantees, maximal marginal relevance,
 * neighbour chunks, the lead, whole articles.
 */
import { Bm25Index } from '../search/bm25.js';
import { VectorIndex } from '../search/vectors.js';
import { terms } from '../text/tokenize.js';
import { canonicalTitle } from './model.js';
import type { WikiChunk } from './chunk.js';
import type { StoredArticle } from './store.js';

/** At most this many hit passages per article (the result holds n_documents distinct articles). */
export const HITS_PER_ARTICLE = 3;
/** Candidates re-ranked by MMR and the hit selection. */
export const CANDIDATES = 300;
/** Reciprocal rank fusion constant (hybrid_search). */
export const RRF_K = 60;

export interface WikiSearchParams {
  query: string;
  neighbor_chunks: number;
  n_documents: number;
  full_articles: boolean;
  hybrid_search: boolean;
  string_guarantee: string[];
  diversify: number;
  include_main_section: boolean;
}

export const WIKI_DEFAULTS: WikiSearchParams = {
  query: '',
  neighbor_chunks: 1,
  n_documents: 5,
  full_articles: false,
  hybrid_search: false,
  string_guarantee: [],
  diversify: 0,
  include_main_section: false,
};

/** The request's parameters (nulls and absences -> the defaults of the interface). */
export function wikiParams(q: Partial<{ [K in keyof WikiSearchParams]: WikiSearchParams[K] | null }>): WikiSearchParams {
  const out = { ...WIKI_DEFAULTS };
  for (const k of Object.keys(WIKI_DEFAULTS) as (keyof WikiSearchParams)[]) if (q[k] !== null && q[k] !== undefined) (out as Record<string, unknown>)[k] = q[k];
  return out;
}

export interface WikiDoc {
  content: string;
  title: string;
  url: string;
  categories: string[];
  timestamp: string;
  cirrus_metadata: { create_timestamp: string; wikibase_item: string; version: number; popularity_score: number; text_bytes: number } | null;
  point_id: string | null;
  /** heading path of the hit chunk ("" = the lead) */
  section: string;
  /** position of the hit chunk in its article */
  chunk_index: number;
  /** the chunks in `content`, in order */
  chunks: { index: number; section: string; point_id: string }[];
  /** relevance of the hit (cosine for nl; fused and scaled to 0-1 for hybrid) */
  score: number;
}

interface Entry {
  meta: StoredArticle;
  docs: number[];
}

export class WikiIndex {
  readonly chunks: WikiChunk[] = [];
  private readonly alive: boolean[] = [];
  private readonly lower: string[] = [];
  private readonly bm25 = new Bm25Index();
  vectors: VectorIndex | null = null;
  private readonly byUrl = new Map<string, Entry>();
  private readonly inbound = new Map<string, number>();

  get articleCount(): number {
    return this.byUrl.size;
  }
  get chunkCount(): number {
    return this.byUrl.size ? [...this.byUrl.values()].reduce((n, e) => n + e.docs.length, 0) : 0;
  }

  /** Add (or replace) an article with its chunks and their vectors. */
  put(meta: StoredArticle, chunks: WikiChunk[], vectors: (Float32Array | null)[]): void {
    this.remove(meta.url);
    const docs: number[] = [];
    chunks.forEach((c, i) => {
      const doc = this.chunks.length;
      this.chunks.push(c);
      this.alive.push(true);
      this.lower.push(`${meta.title}\n${c.content}`.toLowerCase());
      this.bm25.add(doc, terms(`${meta.title} ${c.section} ${c.content}`));
      const v = vectors[i];
      if (v) {
        this.vectors ??= new VectorIndex(v.length, 4096);
        if (v.length === this.vectors.dim) this.vectors.set(doc, v);
      }
      docs.push(doc);
    });
    this.byUrl.set(meta.url, { meta, docs });
    for (const l of new Set(meta.links.map(canonicalTitle))) this.inbound.set(l, (this.inbound.get(l) ?? 0) + 1);
  }

  remove(url: string): void {
    const e = this.byUrl.get(url);
    if (!e) return;
    for (const d of e.docs) this.alive[d] = false;
    for (const l of new Set(e.meta.links.map(canonicalTitle))) this.inbound.set(l, (this.inbound.get(l) ?? 1) - 1);
    this.byUrl.delete(url);
  }

  /** Derived popularity: the share of the other loaded articles that link to this one (0-1). */
  popularity(meta: StoredArticle): number {
    const others = this.byUrl.size - 1;
    if (others <= 0) return 0;
    return Math.min(1, (this.inbound.get(canonicalTitle(meta.title)) ?? 0) / others);
  }

  article(url: string): Entry | undefined {
    return this.byUrl.get(url);
  }

  private sim(a: number, b: number): number {
    if (this.vectors && a < this.vectors.size && b < this.vectors.size) return Math.max(0, this.vectors.dot(a, this.vectors.vector(b)));
    const ca = this.chunks[a]!;
    const cb = this.chunks[b]!;
    return ca.url !== cb.url ? 0 : ca.section === cb.section ? 1 : 0.5;
  }

  /** Ranked candidate docs with relevance in 0-1 (best first). */
  private rank(p: WikiSearchParams, qv: Float32Array | null): { doc: number; rel: number }[] {
    const guarantees = p.string_guarantee.map((s) => s.toLowerCase()).filter(Boolean);
    const accept = (d: number) => this.alive[d]! && guarantees.every((g) => this.lower[d]!.includes(g));
    const q = p.query.trim();
    if (!q) {
      const out: { doc: number; rel: number }[] = [];
      const urls = [...this.byUrl.values()].sort((a, b) => a.meta.title.localeCompare(b.meta.title));
      for (const e of urls) for (const d of e.docs) if (accept(d)) out.push({ doc: d, rel: 1 });
      return out.slice(0, CANDIDATES);
    }
    const lists: { doc: number; s: number }[][] = [];
    const useVectors = !!(qv && this.vectors && this.vectors.dim === qv.length);
    if (useVectors) {
      const r = this.vectors!.search(qv!, { candidates: null, accept, threshold: -2 });
      lists.push(Array.from(r.docs, (d, i) => ({ doc: d, s: r.scores[i]! })).sort((a, b) => b.s - a.s || a.doc - b.doc));
    }
    if (!useVectors || p.hybrid_search) {
      const r = this.bm25.score(terms(q), accept);
      const l = Array.from(r.docs, (d, i) => ({ doc: d, s: r.scores[i]! })).sort((a, b) => b.s - a.s || a.doc - b.doc);
      const max = l[0]?.s || 1;
      lists.push(l.map((x) => ({ doc: x.doc, s: x.s / max })));
    }
    if (lists.length === 1) return lists[0]!.slice(0, CANDIDATES).map((x) => ({ doc: x.doc, rel: x.s }));
    const fused = new Map<number, number>();
    for (const l of lists) l.slice(0, 1000).forEach((x, i) => fused.set(x.doc, (fused.get(x.doc) ?? 0) + 1 / (RRF_K + i + 1)));
    const out = [...fused]
      .map(([doc, s]) => ({ doc, s }))
      .sort((a, b) => b.s - a.s || a.doc - b.doc)
      .slice(0, CANDIDATES);
    const max = out[0]?.s || 1;
    return out.map((x) => ({ doc: x.doc, rel: x.s / max }));
  }

  search(p: WikiSearchParams, qv: Float32Array | null): WikiDoc[] {
    const cands = this.rank(p, qv);
    const maxHits = p.full_articles ? p.n_documents : p.n_documents * HITS_PER_ARTICLE;
    const picked: { doc: number; rel: number }[] = [];
    const perArticle = new Map<string, number[]>();
    const lambda = 1 - p.diversify;
    // MMR: each round takes the candidate with the best (1 - d) x relevance - d x (max similarity to
    // the hits taken); the max similarity of every candidate is updated once per hit taken
    const used = new Uint8Array(cands.length);
    const maxSim = new Float64Array(cands.length);
    let next = 0;
    while (picked.length < maxHits) {
      let best = -1;
      if (p.diversify === 0) {
        while (next < cands.length && used[next]) next++;
        best = next < cands.length ? next : -1;
      } else {
        let bestScore = -Infinity;
        for (let i = 0; i < cands.length; i++) {
          if (used[i]) continue;
          const s = lambda * cands[i]!.rel - p.diversify * maxSim[i]!;
          if (s > bestScore) {
            bestScore = s;
            best = i;
          }
        }
      }
      if (best < 0) break;
      used[best] = 1;
      const c = cands[best]!;
      const chunk = this.chunks[c.doc]!;
      const seen = perArticle.get(chunk.url);
      if (!seen) {
        if (perArticle.size >= p.n_documents) continue;
        perArticle.set(chunk.url, [chunk.seq]);
      } else {
        if (p.full_articles || seen.length >= HITS_PER_ARTICLE || seen.some((s) => Math.abs(s - chunk.seq) <= p.neighbor_chunks)) continue;
        seen.push(chunk.seq);
      }
      picked.push(c);
      if (p.diversify > 0) for (let i = 0; i < cands.length; i++) if (!used[i]) maxSim[i] = Math.max(maxSim[i]!, this.sim(cands[i]!.doc, c.doc));
    }
    return picked.map((h) => this.doc(h.doc, h.rel, p));
  }

  private doc(hit: number, rel: number, p: WikiSearchParams): WikiDoc {
    const c = this.chunks[hit]!;
    const e = this.byUrl.get(c.url)!;
    let docs: number[];
    if (p.full_articles) docs = e.docs;
    else {
      docs = e.docs.slice(Math.max(0, c.seq - p.neighbor_chunks), c.seq + p.neighbor_chunks + 1);
      if (p.include_main_section) {
        const lead = e.docs.filter((d) => this.chunks[d]!.level === 0 && !docs.includes(d));
        docs = [...lead, ...docs];
      }
    }
    const parts: string[] = [];
    let section: string | null = null;
    for (const d of docs) {
      const ch = this.chunks[d]!;
      if (ch.section !== section && ch.section) parts.push(`## ${ch.section}`);
      section = ch.section;
      parts.push(ch.content);
    }
    const m = e.meta;
    return {
      content: parts.join('\n\n'),
      title: m.title,
      url: m.url,
      categories: m.categories,
      timestamp: m.timestamp.toISOString(),
      cirrus_metadata:
        m.revisionId === null
          ? null
          : {
              create_timestamp: (m.created ?? m.timestamp).toISOString(),
              wikibase_item: m.wikibaseItem ?? '',
              version: m.revisionId,
              popularity_score: this.popularity(m),
              text_bytes: m.textBytes,
            },
      point_id: c.pointId,
      section: c.section,
      chunk_index: c.seq,
      chunks: docs.map((d) => ({ index: this.chunks[d]!.seq, section: this.chunks[d]!.section, point_id: this.chunks[d]!.pointId })),
      score: Math.round(rel * 1e4) / 1e4,
    };
  }
}
