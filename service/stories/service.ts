/**
 * Stories of the service: clusters of articles tracked over time (see cluster.ts for the method).
 *
 * Articles are clustered incrementally as they become visible: at the end of a seed, when a
 * replay releases articles, and at start for any indexed article that has no story yet. What is
 * stored is never clustered again, so story and update ids survive restarts.
 *
 * A story has one update per UPDATE_WINDOW_MS window of pub_date in which it gained articles;
 * windows are counted from the founding article (window k = floor((pub - founding pub) / 12 h)),
 * so rebased dates (`--rebase-dates` moves a source's dates by one offset) keep every article in
 * its update. Only stories with at least MIN_STORY_ARTICLES articles are surfaced by the API;
 * singletons stay in the store, ready to become stories when a second article joins.
 */
import type { Db } from '../store/db.js';
import { StoryStore, type StoredMember, type StoredStory, type StoredUpdate } from '../store/stories.js';
import { stableUuid } from '../corpus/read.js';
import type { NewsIndex } from '../search/engine.js';
import type { NewsArticle } from '../article/model.js';
import { terms } from '../text/tokenize.js';
import type { DocFreq } from '../enrich/summarize.js';
import { CLUSTER_PARAMS, StoryClusterer, type ClusterInput, type ClusterParams } from './cluster.js';
import { summarizeStory, summarizeUpdate, type StorySummary, type UpdateSummary, type WindowStats } from './summary.js';

export const UPDATE_WINDOW_MS = 12 * 3_600_000;
export const MIN_STORY_ARTICLES = 2;
/** condense_auxillary_updates merges updates with fewer articles than this into a neighbour */
export const CONDENSE_MIN_ARTICLES = 2;
/** Entity types that take part in clustering. */
const CLUSTER_ENTITY_TYPES = ['Person', 'Organization', 'Location', 'Event'] as const;

export const updateIdOf = (storyId: string, windowIndex: number) => stableUuid(`story-update:${storyId}:${windowIndex}`);

export interface Member {
  storyId: string;
  updateId: string;
  seq: number;
  cosine: number;
  score: number;
}

export interface StoryRec {
  id: string;
  foundingId: string;
  /** the founding article's pub_date (ms), kept once read: under a retention the article leaves the index while its story goes on */
  foundingMs?: number;
  /** member article ids in the order they joined */
  articleIds: string[];
  /** window index -> update id */
  updates: Map<number, string>;
  /** bumped on every change; summaries are cached per version */
  version: number;
}

export interface UpdateRec {
  id: string;
  storyId: string;
  windowIndex: number;
  articleIds: string[];
}

export class StoryService {
  readonly store: StoryStore;
  readonly stories = new Map<string, StoryRec>();
  readonly updates = new Map<string, UpdateRec>();
  readonly members = new Map<string, Member>();
  private clusterer: StoryClusterer;
  private nextSeq = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private docOf = new Map<string, number>();
  private docsSeen = 0;
  /** document frequencies over clustered articles' titles and summaries (extractive story text) */
  readonly df: DocFreq = { df: new Map(), n: 0 };
  /** bumped whenever any story changes (derived indexes rebuild lazily) */
  version = 0;
  private summaries = new Map<string, { version: number; s: StorySummary }>();
  private bySlug: { version: number; map: Map<string, string> } | null = null;
  private timeline: { size: number; pubs: Float64Array; docs: Int32Array } | null = null;

  constructor(
    readonly db: Db,
    readonly index: NewsIndex,
    readonly clock: () => number,
    readonly params: ClusterParams = CLUSTER_PARAMS,
  ) {
    this.store = new StoryStore(db);
    this.clusterer = new StoryClusterer(params);
  }

  /** Load what the store holds, then cluster indexed articles that have no story yet. */
  async open(): Promise<void> {
    await this.serial(async () => {
      const { stories, updates, members } = await this.store.load();
      for (const s of stories) this.stories.set(s.storyId, { id: s.storyId, foundingId: s.foundingId, articleIds: [], updates: new Map(), version: 0 });
      for (const u of updates) {
        this.updates.set(u.updateId, { id: u.updateId, storyId: u.storyId, windowIndex: u.windowIndex, articleIds: [] });
        this.stories.get(u.storyId)?.updates.set(u.windowIndex, u.updateId);
      }
      for (const m of members) {
        this.members.set(m.articleId, { storyId: m.storyId, updateId: m.updateId, seq: m.seq, cosine: m.cosine, score: m.score });
        this.stories.get(m.storyId)?.articleIds.push(m.articleId);
        this.updates.get(m.updateId)?.articleIds.push(m.articleId);
        this.nextSeq = Math.max(this.nextSeq, m.seq + 1);
        this.countTerms(m.articleId);
      }
      this.restoreClusters();
    });
    await this.ingest();
  }

  /**
   * Cluster every indexed article of the shared corpus that has no story yet (in pub_date, then
   * id, order) and store the result. `refresh`: dates moved (a rebased reload), so rebuild the clusters' time spans.
   *
   * In this thread, by measure (issue 32): a caller's page (index_urls, shared) comes here alone,
   * and its assignment is one scan of the active stories' centroids (WebAssembly) and a Jaccard
   * per story above the floor: linear in the stories active within the horizon, and nothing of the
   * caller's text but its embedding and entity values (both bounded upstream). Against 5,000
   * active stories (bench/stories-assign.ts): 2.1 ms median at load 18, 12.4 ms at load 33; the
   * structured clone of those stories' state, which a thread would need, 116 / 136 ms median
   * (21-31 ms at best): about ten times the assignment it would move off this thread.
   */
  ingest(opts: { refresh?: boolean } = {}): Promise<number> {
    return this.serial(async () => {
      if (opts.refresh) {
        // dates moved: time spans, windows' times and cached summaries follow the articles
        this.restoreClusters();
        for (const s of this.stories.values()) s.version++;
        this.timeline = null;
        this.version++;
      }
      this.syncDocs();
      const todo: ClusterInput[] = [];
      for (const [id] of this.docOf) {
        if (this.members.has(id)) continue;
        // an owner's own page (URL indexing, not shared) joins no story: stories are seen by every key
        if (this.index.get(id)?.owner) continue;
        const input = this.clusterInput(id);
        if (input) todo.push(input);
      }
      if (todo.length === 0) return 0;
      const assigned = this.clusterer.assign(todo);
      const rows = { stories: [] as StoredStory[], updates: [] as StoredUpdate[], members: [] as StoredMember[] };
      for (const a of assigned) {
        let story = this.stories.get(a.storyId);
        if (!story) {
          // a new story's founding article comes first in the batch (a merge keeps the older story's founder)
          const foundingId = this.clusterer.byId.get(a.storyId)?.foundingId ?? a.articleId;
          story = { id: a.storyId, foundingId, articleIds: [], updates: new Map(), version: 0 };
          this.stories.set(story.id, story);
          rows.stories.push({ storyId: story.id, foundingId });
        }
        const w = this.windowOf(story, a.articleId);
        let updateId = story.updates.get(w);
        if (!updateId) {
          updateId = updateIdOf(story.id, w);
          story.updates.set(w, updateId);
          this.updates.set(updateId, { id: updateId, storyId: story.id, windowIndex: w, articleIds: [] });
          rows.updates.push({ updateId, storyId: story.id, windowIndex: w });
        }
        const m: Member = { storyId: story.id, updateId, seq: this.nextSeq++, cosine: a.cosine, score: a.score };
        this.members.set(a.articleId, m);
        story.articleIds.push(a.articleId);
        story.version++;
        this.updates.get(updateId)!.articleIds.push(a.articleId);
        rows.members.push({ articleId: a.articleId, ...m });
        this.countTerms(a.articleId);
        // the index serves the same record: search results show the clustering too
        const art = this.index.get(a.articleId);
        if (art) {
          art.centroidDistance = 1 - a.cosine;
          art.clusterProbability = a.score;
        }
      }
      await this.store.write(rows, new Date(this.clock()));
      this.version++;
      return assigned.length;
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Rebuild the clusterer from the stored members (in the order they joined). */
  private restoreClusters(): void {
    this.syncDocs();
    this.clusterer = new StoryClusterer(this.params);
    const ordered = [...this.stories.values()].sort((a, b) => this.members.get(a.foundingId)!.seq - this.members.get(b.foundingId)!.seq);
    for (const s of ordered) {
      const inputs = s.articleIds.map((id) => this.clusterInput(id)).filter((x): x is ClusterInput => x !== null);
      if (inputs.length) this.clusterer.restore(s.id, s.foundingId, inputs);
    }
  }

  private syncDocs(): void {
    const views = this.index.views;
    for (let i = this.docsSeen; i < views.length; i++) this.docOf.set(views[i]!.a.articleId, i);
    this.docsSeen = views.length;
  }

  vectorOf(id: string): Float32Array | null {
    const doc = this.docOf.get(id);
    const vs = this.index.vectors;
    if (doc === undefined || !vs || doc >= vs.size) return null;
    return vs.vector(doc);
  }

  article(id: string): NewsArticle | undefined {
    return this.index.get(id);
  }

  /** What the clusterer sees of an indexed article (null without an embedding). */
  clusterInput(id: string): ClusterInput | null {
    const a = this.index.get(id);
    const v = this.vectorOf(id);
    if (!a || !v) return null;
    const entities = CLUSTER_ENTITY_TYPES.flatMap((t) => a.entities[t] ?? []).map((e) => e.toLowerCase());
    return { id, pubMs: a.pubDate.getTime(), vector: v, entities };
  }

  /**
   * The update window of `articleId` in `story`: whole UPDATE_WINDOW_MS since the founding
   * article's pub_date. A founding article that left the index (past the retention) before its
   * date was kept is estimated from the members still indexed: a member of window w was published
   * at most w windows after the founding, so the founding is at most its pub_date - w windows (the
   * least of these; a window so found is the true one or the one before). With no member left, the
   * article joins the story's latest update.
   */
  private windowOf(story: StoryRec, articleId: string): number {
    const at = this.index.get(articleId)?.pubDate.getTime();
    story.foundingMs ??= this.index.get(story.foundingId)?.pubDate.getTime() ?? this.foundingEstimate(story);
    if (at === undefined || story.foundingMs === undefined) return Math.max(0, ...story.updates.keys());
    return Math.floor((at - story.foundingMs) / UPDATE_WINDOW_MS);
  }

  private foundingEstimate(story: StoryRec): number | undefined {
    let best: number | undefined;
    for (const id of story.articleIds) {
      const a = this.index.get(id);
      const m = this.members.get(id);
      const w = m ? this.updates.get(m.updateId)?.windowIndex : undefined;
      if (!a || w === undefined) continue;
      const bound = a.pubDate.getTime() - w * UPDATE_WINDOW_MS;
      if (best === undefined || bound < best) best = bound;
    }
    return best;
  }

  private countTerms(id: string): void {
    const a = this.index.get(id);
    if (!a) return;
    for (const t of new Set(terms(`${a.title} ${a.summary}`))) this.df.df.set(t, (this.df.df.get(t) ?? 0) + 1);
    this.df.n++;
  }

  /** Unit centroid of a story (the clusterer's running mean). */
  centroid(storyId: string): Float32Array | null {
    return this.clusterer.centroid(storyId);
  }

  /** Stories the API shows: at least MIN_STORY_ARTICLES articles. */
  surfaced(): StoryRec[] {
    const out: StoryRec[] = [];
    for (const s of this.stories.values()) if (s.articleIds.length >= MIN_STORY_ARTICLES) out.push(s);
    return out;
  }

  /** Summary of a story and its updates (cached until the story changes). */
  summary(storyId: string): StorySummary | null {
    const s = this.stories.get(storyId);
    if (!s) return null;
    const hit = this.summaries.get(storyId);
    if (hit && hit.version === s.version) return hit.s;
    const centroid = this.centroid(storyId);
    const founding = this.index.get(s.foundingId)?.pubDate.getTime() ?? 0;
    const updates = [...s.updates.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([w, id]) => this.updateSummary(this.updates.get(id)!, founding + w * UPDATE_WINDOW_MS, centroid));
    const summary = summarizeStory(s.id, updates, centroid);
    this.summaries.set(storyId, { version: s.version, s: summary });
    return summary;
  }

  /** Summary of any set of a story's articles as one update (condensed updates reuse it). */
  updateSummary(u: UpdateRec, windowStart: number, storyCentroid: Float32Array | null, articleIds = u.articleIds): UpdateSummary {
    const articles = articleIds.map((id) => this.index.get(id)).filter((a): a is NewsArticle => !!a);
    return summarizeUpdate({
      id: u.id,
      storyId: u.storyId,
      windowIndex: u.windowIndex,
      windowStart,
      windowMs: UPDATE_WINDOW_MS,
      articles,
      storyCentroid,
      vectorOf: (id) => this.vectorOf(id),
      memberOf: (id) => this.members.get(id),
    });
  }

  /** The story of a story UUID, an update UUID or a URL-safe title; requested = the update asked for. */
  resolve(key: string): { story: StorySummary; requested: string | null } | null {
    const k = key.trim().toLowerCase();
    if (this.stories.has(k)) return this.surfacedSummary(k, null);
    const u = this.updates.get(k);
    if (u) return this.surfacedSummary(u.storyId, u.id);
    const bySlug = this.slugs().get(k);
    if (bySlug) return this.surfacedSummary(this.updates.get(bySlug)!.storyId, bySlug);
    return null;
  }

  private surfacedSummary(storyId: string, requested: string | null) {
    const s = this.stories.get(storyId);
    if (!s || s.articleIds.length < MIN_STORY_ARTICLES) return null;
    return { story: this.summary(storyId)!, requested };
  }

  /** url_safe_title -> update id over the surfaced stories. */
  slugs(): Map<string, string> {
    if (this.bySlug?.version === this.version) return this.bySlug.map;
    const map = new Map<string, string>();
    for (const s of this.surfaced()) for (const u of this.summary(s.id)!.updates) map.set(u.slug, u.id);
    this.bySlug = { version: this.version, map };
    return map;
  }

  /** Everything indexed with pub_date in [from, to): counts for intra-cluster statistics. */
  windowStats(from: number, to: number): WindowStats {
    const views = this.index.views;
    if (!this.timeline || this.timeline.size !== views.length) {
      const order = Array.from(views.keys()).sort((a, b) => views[a]!.a.pubDate.getTime() - views[b]!.a.pubDate.getTime());
      this.timeline = { size: views.length, pubs: Float64Array.from(order, (i) => views[i]!.a.pubDate.getTime()), docs: Int32Array.from(order) };
    }
    const { pubs, docs } = this.timeline;
    const lower = (t: number) => {
      let lo = 0;
      let hi = pubs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (pubs[mid]! < t) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const stats: WindowStats = { articles: 0, domains: new Set(), countries: new Set(), languages: new Set() };
    for (let i = lower(from), end = lower(to); i < end; i++) {
      const a = views[docs[i]!]!.a;
      stats.articles++;
      stats.domains.add(a.domain);
      stats.countries.add(a.country);
      stats.languages.add(a.language);
    }
    return stats;
  }

  /** Articles of a story with pub_date in (from, to]: recent growth for the topstories strategies. */
  growth(storyId: string, from: number, to: number): number {
    let n = 0;
    for (const id of this.stories.get(storyId)?.articleIds ?? []) {
      const t = this.index.get(id)?.pubDate.getTime() ?? -Infinity;
      if (t > from && t <= to) n++;
    }
    return n;
  }

  /**
   * condense_auxillary_updates: an update with fewer than `min` articles is merged into the next
   * update (the last one into the one before it); the merged update keeps the later update's
   * uuid. `mapping` sends every original update id to the update that now holds its articles.
   */
  condensed(story: StorySummary, min = CONDENSE_MIN_ARTICLES): { story: StorySummary; mapping: Map<string, string> } {
    const groups: { target: UpdateSummary; parts: UpdateSummary[] }[] = [];
    let pending: UpdateSummary[] = [];
    story.updates.forEach((u, i) => {
      const last = i === story.updates.length - 1;
      if (u.articles.length >= min) {
        groups.push({ target: u, parts: [...pending, u] });
        pending = [];
      } else if (!last) {
        pending.push(u);
      } else if (groups.length) {
        groups[groups.length - 1]!.parts.push(...pending, u);
      } else {
        groups.push({ target: u, parts: [...pending, u] });
      }
    });
    const mapping = new Map<string, string>();
    const updates = groups.map(({ target, parts }) => {
      for (const p of parts) mapping.set(p.id, target.id);
      if (parts.length === 1) return target;
      const start = Math.min(...parts.map((p) => p.windowStart));
      const end = Math.max(...parts.map((p) => p.windowStart + p.windowMs));
      const rec = { ...this.updates.get(target.id)!, articleIds: parts.flatMap((p) => p.articles.map((a) => a.articleId)) };
      return { ...this.updateSummary(rec, start, story.centroid), windowMs: end - start };
    });
    return { story: { ...story, updates }, mapping };
  }
}
