/**
 * Story clustering: online assignment of articles as they arrive, then an average-linkage merge
 * of the stories that the batch founded.
 *
 * 1. **Assignment** (per article, in publication order, then article id, so the result is
 *    deterministic). Each article is compared with every *active* story: one whose articles span
 *    a time that reaches to within `horizonMs` (72 h) of the article's pub_date. Its score is
 *
 *        score = cos(article, story centroid) + entityWeight * J(article entities, story top entities)
 *
 *    where the centroid is the running mean of the story's sentence embeddings (MiniLM, unit
 *    vectors; kept as a running sum, so it is the exact mean), J is the Jaccard index between the
 *    article's Person/Organization/Location/Event values and the story's *top* entities (those
 *    named by at least a third of its articles), and stories whose centroid cosine is below
 *    `floor` are not considered (shared entities alone never pull an unrelated article in). The
 *    article joins the best-scoring story when the score reaches `threshold`, else it founds a new
 *    story. Ties go to the older story.
 * 2. **Merge** (once per batch). A centroid threshold high enough to keep stories apart also
 *    leaves one story in many pieces: the cosine of an article to the centroid of its own story
 *    is often below 0.6 (on the MStream set, bench/stories.ts, assignment alone gives 5,192
 *    clusters for 269 events, B-cubed recall 0.36). So stories are then merged by average linkage
 *    (UPGMA): the similarity of two stories is the mean cosine over all pairs of their articles,
 *    sum(A)·sum(B) / (|A| |B|), exact from the running sums; the most similar pair merges first,
 *    while that mean reaches `mergeThreshold` and their time spans come within `horizonMs`. A
 *    mean over all pairs does not chain (one close pair does not pull two stories together) and,
 *    unlike the centroid cosine, does not grow with a story's size.
 *
 * Ids: a story's id derives from its founding article, so clustering the same articles again
 * gives the same stories and ids. A merge keeps the id of the story founded first. Stories that
 * existed before a batch (restored, or assigned by an earlier call) are never merged with each
 * other: a stored story keeps its id and its articles; a story founded in the batch may merge
 * into one of them, so a streamed article also joins an existing story when its mean cosine to
 * the story's articles reaches `mergeThreshold`.
 *
 * Tuning (docs/service.md, "Stories"): `threshold`, `entityWeight` and `floor` on
 * the real corpus (12,095 articles) against 84 article pairs judged by hand
 * (test/fixtures/story-pairs.json). `mergeThreshold`: bench/stories.ts calibrates it on one half
 * of the MStream events and scores it on the other; there the best B-cubed F1 with precision >=
 * 0.85 is at 0.275, and 0.35 gives a little less F1 at higher precision. 0.35 is the default
 * because on headlines a lower threshold grows topic-wide stories (at 0.275 a 407-article war
 * story; judged-pair precision 0.81 against 0.85 at 0.35).
 */
import { stableUuid } from '../corpus/read.js';
import { VectorIndex } from '../search/vectors.js';

export interface ClusterParams {
  /** minimum score to join a story */
  threshold: number;
  /** weight of the entity Jaccard term */
  entityWeight: number;
  /** minimum centroid cosine for a story to be considered at all */
  floor: number;
  /** a story is active for an article whose pub_date is within this of the story's articles */
  horizonMs: number;
  /** an entity is one of a story's top entities when this share of its articles name it */
  topEntityShare: number;
  /** stories merge while the mean cosine between their articles reaches this (above 1: no merging) */
  mergeThreshold: number;
}

export const CLUSTER_PARAMS: ClusterParams = {
  threshold: 0.6,
  entityWeight: 0.15,
  floor: 0.45,
  horizonMs: 72 * 3_600_000,
  topEntityShare: 1 / 3,
  mergeThreshold: 0.35,
};

/** What the clusterer needs of an article. */
export interface ClusterInput {
  id: string;
  pubMs: number;
  /** unit-length sentence embedding */
  vector: Float32Array;
  /** lowercased entity values (Person, Organization, Location, Event) */
  entities: string[];
}

export interface Assignment {
  articleId: string;
  storyId: string;
  /** true when the article founded the story */
  founded: boolean;
  /**
   * cosine to the story centroid before the article joined (1 for a founder); for an article
   * whose story merged in its batch, the cosine to the merged story's centroid
   */
  cosine: number;
  /** the clustering score (cosine + entity term), clamped to [0, 1] */
  score: number;
}

/** One story as the clusterer sees it. */
export interface ClusterState {
  id: string;
  foundingId: string;
  /** earliest and latest pub_date of its articles (ms) */
  first: number;
  last: number;
  n: number;
  /** sum of member vectors; the centroid is sum / |sum| */
  sum: Float64Array;
  norm: number;
  entities: Map<string, number>;
  /** its row in the centroid index (the unit centroid) */
  row: number;
  /** position in founding order (older stories first) */
  order: number;
}

/** Story ids derive from the founding article, so reclustering the same corpus gives the same ids. */
export const storyIdOf = (foundingArticleId: string) => stableUuid(`story:${foundingArticleId}`);

export const byPubThenId = (a: { pubMs: number; id: string }, b: { pubMs: number; id: string }) =>
  a.pubMs - b.pubMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function dot(a: Float64Array, b: Float64Array): number {
  let d = 0;
  for (let k = 0; k < a.length; k++) d += a[k]! * b[k]!;
  return d;
}

/** A max-heap of candidate merges: the most similar pair first, ties to the older pair. */
class MergeHeap {
  private items: { sim: number; a: ClusterState; b: ClusterState; va: number; vb: number }[] = [];
  get size(): number {
    return this.items.length;
  }
  private before(x: MergeHeap['items'][number], y: MergeHeap['items'][number]): boolean {
    return x.sim > y.sim || (x.sim === y.sim && (x.a.order < y.a.order || (x.a.order === y.a.order && x.b.order < y.b.order)));
  }
  push(item: MergeHeap['items'][number]): void {
    const h = this.items;
    h.push(item);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  pop(): MergeHeap['items'][number] {
    const h = this.items;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        let m = i;
        if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
        if (l + 1 < h.length && this.before(h[l + 1]!, h[m]!)) m = l + 1;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

export class StoryClusterer {
  /** in founding order (older first) */
  readonly stories: ClusterState[] = [];
  readonly byId = new Map<string, ClusterState>();
  /** unit centroids, one row per story ever founded (the dot products run in WebAssembly) */
  private centroids: VectorIndex | null = null;
  private rows = 0;
  private founded = 0;
  /** stories by centroid row */
  private atRow = new Map<number, ClusterState>();
  /** the stories that absorbed another in the last batch */
  private touched = new Set<ClusterState>();

  constructor(readonly params: ClusterParams = CLUSTER_PARAMS) {}

  /** Rebuild a stored story from its members (in the order they joined). */
  restore(storyId: string, foundingId: string, members: ClusterInput[]): void {
    const s = this.found(storyId, foundingId, members[0]!);
    for (const m of members.slice(1)) this.join(s, m);
  }

  /** The unit centroid of a story. */
  centroid(id: string): Float32Array | null {
    const s = this.byId.get(id);
    if (!s || s.norm === 0) return null;
    return Float32Array.from(s.sum, (x) => x / s.norm);
  }

  /** Assign articles (any order; processed by pub_date then id) to stories, founding new ones as needed, then merge. */
  assign(batch: ClusterInput[]): Assignment[] {
    const todo = [...batch].sort(byPubThenId);
    if (todo.length === 0) return [];
    const { horizonMs: H } = this.params;
    const out: Assignment[] = [];
    const storyOf = new Map<string, ClusterState>();
    const fresh = new Set<ClusterState>();
    // stories that can be active for the batch; pruned as pub_date advances
    let active = this.stories.filter((s) => s.last >= todo[0]!.pubMs - H && s.first <= todo[todo.length - 1]!.pubMs + H);
    let rows: Int32Array | null = null;
    for (const a of todo) {
      const before = active.length;
      active = active.filter((s) => s.last >= a.pubMs - H);
      if (active.length !== before) rows = null;
      rows ??= Int32Array.from(active, (s) => s.row);
      let best: ClusterState | null = null;
      let bestScore = -Infinity;
      let bestCos = 0;
      const near = this.near(a.vector, rows, this.params.floor);
      for (let x = 0; x < near.docs.length; x++) {
        const s = this.atRow.get(near.docs[x]!)!;
        if (s.first > a.pubMs + H) continue;
        const cos = near.scores[x]!;
        const score = cos + this.params.entityWeight * this.jaccard(a.entities, s);
        if (score > bestScore || (score === bestScore && best !== null && s.order < best.order)) {
          bestScore = score;
          best = s;
          bestCos = cos;
        }
      }
      if (best && bestScore >= this.params.threshold) {
        this.join(best, a);
        storyOf.set(a.id, best);
        out.push({ articleId: a.id, storyId: best.id, founded: false, cosine: bestCos, score: Math.min(1, bestScore) });
      } else {
        const s = this.found(storyIdOf(a.id), a.id, a);
        fresh.add(s);
        active.push(s);
        rows = null;
        storyOf.set(a.id, s);
        out.push({ articleId: a.id, storyId: s.id, founded: true, cosine: 1, score: 1 });
      }
    }
    const merged = this.merge(fresh);
    if (merged.size === 0) return out;
    // articles of merged stories: their story, founder and cosine as the merge left them
    const byArticle = new Map(todo.map((a) => [a.id, a]));
    return out.map((o) => {
      let s = storyOf.get(o.articleId)!;
      while (merged.has(s)) s = merged.get(s)!;
      if (!this.touched.has(s)) return o;
      const a = byArticle.get(o.articleId)!;
      const cos = this.cosine(a.vector, s);
      return {
        articleId: o.articleId,
        storyId: s.id,
        founded: s.foundingId === o.articleId,
        cosine: cos,
        score: Math.max(0, Math.min(1, cos + this.params.entityWeight * this.jaccard(a.entities, s))),
      };
    });
  }

  /** Rows of `rows` whose unit centroid has cosine >= threshold with v. */
  private near(v: Float32Array, rows: Int32Array, threshold: number): { docs: Int32Array; scores: Float64Array } {
    if (!this.centroids || rows.length === 0) return { docs: new Int32Array(0), scores: new Float64Array(0) };
    return this.centroids.search(v, { candidates: rows, threshold, exact: true });
  }

  /**
   * Average-linkage merging of the batch's new stories (among themselves and into older ones;
   * two older stories never merge). Returns absorbed story -> the story it merged into.
   */
  private merge(fresh: Set<ClusterState>): Map<ClusterState, ClusterState> {
    const merged = new Map<ClusterState, ClusterState>();
    this.touched = new Set();
    const tau = this.params.mergeThreshold;
    if (fresh.size === 0 || !(tau <= 1)) return merged;
    const H = this.params.horizonMs;
    const link = (x: ClusterState, y: ClusterState) => dot(x.sum, y.sum) / (x.n * y.n);
    const meets = (x: ClusterState, y: ClusterState) => x.last >= y.first - H && y.last >= x.first - H;
    const heap = new MergeHeap();
    const version = new Map<ClusterState, number>();
    const ver = (s: ClusterState) => version.get(s) ?? 0;
    const neighbours = new Map<ClusterState, Set<ClusterState>>();
    const edge = (x: ClusterState, y: ClusterState, sim: number) => {
      const [a, b] = x.order < y.order ? [x, y] : [y, x];
      heap.push({ sim, a, b, va: ver(a), vb: ver(b) });
      for (const [p, q] of [
        [a, b],
        [b, a],
      ] as const) {
        let set = neighbours.get(p);
        if (!set) neighbours.set(p, (set = new Set()));
        set.add(q);
      }
    };
    // candidate pairs: a new story and any story its time span meets. mean pairwise cosine >= tau
    // needs centroid cosine >= tau * |A| / |sum(A)| (as |sum(B)| <= |B|), a bound the index scans for
    // (the index scans the stories whose time span meets the new story's: sorted by first pub_date,
    // those that start from (its first - horizon - the longest span) to (its last + horizon))
    const spanFirst = Math.min(...[...fresh].map((s) => s.first)) - H;
    const spanLast = Math.max(...[...fresh].map((s) => s.last)) + H;
    const pool = this.stories.filter((s) => s.last >= spanFirst && s.first <= spanLast).sort((x, y) => x.first - y.first || x.order - y.order);
    const firsts = Float64Array.from(pool, (s) => s.first);
    const longest = pool.reduce((m, s) => Math.max(m, s.last - s.first), 0);
    const from = (t: number) => {
      let lo = 0;
      let hi = firsts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (firsts[mid]! < t) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const rows = new Int32Array(pool.length);
    for (const s of fresh) {
      const c = this.centroid(s.id);
      if (!c) continue;
      // each pair of new stories once, from the older one
      let m = 0;
      for (let i = from(s.first - H - longest); i < pool.length && pool[i]!.first <= s.last + H; i++) {
        const t = pool[i]!;
        if (t !== s && !(fresh.has(t) && t.order < s.order) && meets(s, t)) rows[m++] = t.row;
      }
      const near = this.near(c, rows.subarray(0, m), (tau * s.n) / s.norm - 1e-6);
      for (let x = 0; x < near.docs.length; x++) {
        const t = this.atRow.get(near.docs[x]!)!;
        const sim = link(s, t);
        if (sim >= tau) edge(s, t, sim);
      }
    }
    while (heap.size) {
      const { a, b, va, vb } = heap.pop();
      if (merged.has(a) || merged.has(b) || ver(a) !== va || ver(b) !== vb) continue;
      // a is the older story: it keeps its id
      this.absorb(a, b);
      merged.set(b, a);
      this.touched.add(a);
      version.set(a, ver(a) + 1);
      const around = new Set([...(neighbours.get(a) ?? []), ...(neighbours.get(b) ?? [])]);
      neighbours.delete(b);
      neighbours.set(a, new Set());
      for (const c of around) {
        neighbours.get(c)?.delete(b);
        neighbours.get(c)?.delete(a);
        if (c === a || c === b || merged.has(c)) continue;
        // two stories older than the batch never merge
        if (!fresh.has(c) && !fresh.has(a)) continue;
        if (!meets(a, c)) continue;
        const sim = link(a, c);
        if (sim >= tau) edge(a, c, sim);
      }
    }
    for (const b of merged.keys()) {
      this.byId.delete(b.id);
      this.atRow.delete(b.row);
    }
    if (merged.size) {
      const kept = this.stories.filter((s) => !merged.has(s));
      this.stories.length = 0;
      this.stories.push(...kept);
    }
    return merged;
  }

  private found(id: string, foundingId: string, a: ClusterInput): ClusterState {
    const s: ClusterState = {
      id,
      foundingId,
      first: a.pubMs,
      last: a.pubMs,
      n: 0,
      sum: new Float64Array(a.vector.length),
      norm: 0,
      entities: new Map(),
      row: this.rows++,
      order: this.founded++,
    };
    this.stories.push(s);
    this.byId.set(id, s);
    this.atRow.set(s.row, s);
    this.join(s, a);
    return s;
  }

  private join(s: ClusterState, a: ClusterInput): void {
    if (a.vector.length === s.sum.length) {
      for (let k = 0; k < s.sum.length; k++) s.sum[k]! += a.vector[k]!;
    }
    s.n++;
    s.first = Math.min(s.first, a.pubMs);
    s.last = Math.max(s.last, a.pubMs);
    for (const e of new Set(a.entities)) s.entities.set(e, (s.entities.get(e) ?? 0) + 1);
    this.updated(s);
  }

  /** Story b's articles join story a. */
  private absorb(a: ClusterState, b: ClusterState): void {
    for (let k = 0; k < a.sum.length; k++) a.sum[k]! += b.sum[k]!;
    a.n += b.n;
    a.first = Math.min(a.first, b.first);
    a.last = Math.max(a.last, b.last);
    for (const [e, c] of b.entities) a.entities.set(e, (a.entities.get(e) ?? 0) + c);
    this.updated(a);
  }

  /** The sum changed: its norm and the centroid row follow. */
  private updated(s: ClusterState): void {
    s.norm = Math.sqrt(dot(s.sum, s.sum));
    if (s.norm === 0) return;
    this.centroids ??= new VectorIndex(s.sum.length, 1024);
    if (this.centroids.dim === s.sum.length) this.centroids.set(s.row, s.sum);
  }

  private cosine(v: Float32Array, s: ClusterState): number {
    if (s.norm === 0 || v.length !== s.sum.length) return 0;
    let d = 0;
    for (let k = 0; k < v.length; k++) d += v[k]! * s.sum[k]!;
    return d / s.norm;
  }

  /** Jaccard between an article's entities and the story's top entities. */
  private jaccard(entities: string[], s: ClusterState): number {
    if (entities.length === 0) return 0;
    const need = Math.max(1, this.params.topEntityShare * s.n);
    const mine = new Set(entities);
    let top = 0;
    let both = 0;
    for (const [e, c] of s.entities) {
      if (c < need) continue;
      top++;
      if (mine.has(e)) both++;
    }
    const union = mine.size + top - both;
    return union ? both / union : 0;
  }
}
