/**
 * GET /v1/stories: filters, search, strategies, sorting and paging over the surfaced stories.
 *
 * - Filters that concern one update (start/end_timestamp on story_update_ts, continent,
 *   provocative) select a story's *matching updates*; a story is listed when it has one and its
 *   categories meet `categories` and its id is in `uuids` (when given). The requested update is
 *   the newest matching one, or with a query the best matching one.
 * - `query` with method `kw`: BM25 over each update's headline (counted twice) and its articles'
 *   titles and summaries; `nl`: cosine between the query embedding and the story centroid or an
 *   update centroid, kept when its calibrated score (as in news search) reaches
 *   similarity_score_threshold; `both`: reciprocal rank fusion (k = 60) of the two. A story
 *   scores its best matching update (nl: or its centroid).
 * - Strategies rank by recent growth: articles published in the 24 hours before the service
 *   clock. `topstories`: stories that grew, most first; `topstories_categories` /
 *   `topstories_continents`: the fastest-growing story of each category / continent.
 * - sort_by (default: relevance with a query, else published; strategies keep their own order
 *   unless sort_by is given), sort_type (default desc); ties by uuid, so offset pages never
 *   overlap. `published` = the requested update's time, `coverage` = the story's articles,
 *   `sentiment` / `confidence` = the requested update's.
 * - obj_type `["story_update"]`: one result per matching update, each a StoryResponse whose
 *   requested_update_uuid is that update (sorted by the update's own values).
 * - offset: a count, or the uuid of the last result seen (a story uuid, or for update results
 *   an update uuid); the response's offset is the count to ask for next.
 */
import type { z } from 'zod';
import { STORY_CATEGORIES, type StoriesQuery } from '../../spec/index.js';
import { Bm25Index } from '../search/bm25.js';
import { calibrated } from '../search/embedder.js';
import { terms } from '../text/tokenize.js';
import type { StoryService } from './service.js';
import { dot, type StorySummary, type UpdateSummary } from './summary.js';

export type StoriesParams = z.output<typeof StoriesQuery>;

const RRF_K = 60;
export const TOPSTORIES_HOURS = 24;

export interface Hit {
  story: StorySummary;
  /** the requested update */
  update: UpdateSummary;
  /** every matching update of the story, chronological */
  matching: UpdateSummary[];
  score: number;
  growth: number;
}

/** BM25 over update texts, rebuilt when the stories change. */
export class UpdateTextIndex {
  private built = -1;
  private bm25 = new Bm25Index();
  private ids: string[] = [];

  constructor(private readonly stories: StoryService) {}

  scores(query: string): Map<string, number> {
    if (this.built !== this.stories.version) this.rebuild();
    const r = this.bm25.score(terms(query, 'en'));
    const out = new Map<string, number>();
    r.docs.forEach((d, i) => out.set(this.ids[d]!, r.scores[i]!));
    return out;
  }

  private rebuild(): void {
    this.bm25 = new Bm25Index();
    this.ids = [];
    for (const s of this.stories.surfaced()) {
      for (const u of this.stories.summary(s.id)!.updates) {
        const text = [u.headline, u.headline, ...u.articles.map((a) => `${a.title}\n${a.summary === a.title ? '' : a.summary}`)].join('\n');
        this.bm25.add(this.ids.length, terms(text, 'en'));
        this.ids.push(u.id);
      }
    }
    this.built = this.stories.version;
  }
}

type Candidate = { story: StorySummary; matching: UpdateSummary[] };
/** relevance per update and per story (missing = not relevant) */
type Scores = { upd: Map<string, number>; sto: Map<string, number> };

export async function listStories(
  stories: StoryService,
  text: UpdateTextIndex,
  p: StoriesParams,
  now: number,
): Promise<{ hits: Hit[]; next: number; updateLevel: boolean }> {
  let candidates = candidatesOf(stories, p);
  const updateLevel = p.obj_type.includes('story_update') && !p.obj_type.includes('story');
  const q = (p.query ?? '').trim();
  let scores: Scores | null = null;
  if (q) {
    const s = await relevance(stories, text, p, q, candidates);
    scores = s;
    candidates = candidates.filter((c) => (updateLevel ? c.matching.some((u) => s.upd.has(u.id)) : s.sto.has(c.story.id)));
  }
  const tie = (a: Hit, b: Hit) => {
    const x = updateLevel ? a.update.id : a.story.id;
    const y = updateLevel ? b.update.id : b.story.id;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  let hits = hitsOf(candidates, updateLevel, scores);
  if (p.strategy !== 'default') hits = byStrategy(stories, p, hits, updateLevel, now, tie);
  sortHits(p, hits, q, updateLevel, tie);
  let start: number;
  if (typeof p.offset === 'number') start = p.offset;
  else {
    const id = p.offset.trim().toLowerCase();
    start = hits.findIndex((h) => (updateLevel ? h.update.id === id : h.story.id === id)) + 1;
  }
  const page = hits.slice(start, start + p.limit);
  return { hits: page, next: start + page.length, updateLevel };
}

/** The surfaced stories that pass the filters, each with its matching updates. */
function candidatesOf(stories: StoryService, p: StoriesParams): Candidate[] {
  const continents = p.continent == null ? null : new Set(Array.isArray(p.continent) ? p.continent : [p.continent]);
  const cats = p.categories.length ? new Set<string>(p.categories) : null;
  const uuids = p.uuids.length ? new Set(p.uuids.map((u) => u.toLowerCase())) : null;
  const updateOk = (u: UpdateSummary) =>
    (p.start_timestamp == null || u.ts >= p.start_timestamp) &&
    (p.end_timestamp == null || u.ts <= p.end_timestamp) &&
    (!continents || continents.has(u.continent as never)) &&
    (p.provocative === 'all' || u.provocative === p.provocative);
  const candidates: Candidate[] = [];
  for (const rec of stories.surfaced()) {
    if (uuids && !uuids.has(rec.id)) continue;
    const story = stories.summary(rec.id)!;
    if (cats && !story.categories.some((c) => cats.has(c))) continue;
    const matching = story.updates.filter(updateOk);
    if (matching.length) candidates.push({ story, matching });
  }
  return candidates;
}

/** The query's relevance by the method: kw, nl, or both fused. */
async function relevance(stories: StoryService, text: UpdateTextIndex, p: StoriesParams, q: string, candidates: Candidate[]): Promise<Scores> {
  const lists: Scores[] = [];
  if (p.method === 'kw' || p.method === 'both') lists.push(keywordScores(text.scores(q), candidates));
  if (p.method === 'nl' || p.method === 'both') lists.push(await semanticScores(stories, p, q, candidates));
  if (lists.length === 1) return lists[0]!;
  return { upd: fuse(lists.map((l) => l.upd)), sto: fuse(lists.map((l) => l.sto)) };
}

/** BM25 of each matching update; a story scores its best one. */
function keywordScores(bm: Map<string, number>, candidates: Candidate[]): Scores {
  const upd = new Map<string, number>();
  const sto = new Map<string, number>();
  for (const c of candidates) {
    for (const u of c.matching) {
      const s = bm.get(u.id);
      if (s === undefined) continue;
      upd.set(u.id, s);
      sto.set(c.story.id, Math.max(sto.get(c.story.id) ?? -Infinity, s));
    }
  }
  return { upd, sto };
}

/** Calibrated cosine of the query and each update's centroid (a story: or its own), kept from the threshold up. */
async function semanticScores(stories: StoryService, p: StoriesParams, q: string, candidates: Candidate[]): Promise<Scores> {
  const v = await stories.index.embedQuery(q);
  const r = stories.index.embedder?.relevantCosine ?? 0.3;
  const upd = new Map<string, number>();
  const sto = new Map<string, number>();
  if (!v) return { upd, sto };
  for (const c of candidates) {
    let best = c.story.centroid && c.story.centroid.length === v.length ? calibrated(dot(v, c.story.centroid), r) : -Infinity;
    for (const u of c.matching) {
      if (!u.centroid || u.centroid.length !== v.length) continue;
      const s = calibrated(dot(v, u.centroid), r);
      if (s >= p.similarity_score_threshold) upd.set(u.id, s);
      best = Math.max(best, s);
    }
    if (best >= p.similarity_score_threshold) sto.set(c.story.id, best);
  }
  return { upd, sto };
}

/** Reciprocal rank fusion (k = RRF_K) of ranked score maps. */
function fuse(maps: Map<string, number>[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of maps) {
    const order = [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    order.forEach(([id], i) => out.set(id, (out.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
  }
  return out;
}

/** One hit per matching update (update level), else per story at its best scored or newest matching update. */
function hitsOf(candidates: Candidate[], updateLevel: boolean, scores: Scores | null): Hit[] {
  const updateScore = scores?.upd ?? null;
  const newest = (us: UpdateSummary[]) => us.reduce((a, b) => (b.ts > a.ts || (b.ts === a.ts && b.windowIndex > a.windowIndex) ? b : a));
  const hits: Hit[] = [];
  if (updateLevel) {
    for (const c of candidates) {
      for (const u of c.matching) {
        if (updateScore && !updateScore.has(u.id)) continue;
        hits.push({ story: c.story, update: u, matching: [u], score: updateScore?.get(u.id) ?? 0, growth: 0 });
      }
    }
    return hits;
  }
  for (const c of candidates) {
    const scored = updateScore ? c.matching.filter((u) => updateScore.has(u.id)) : [];
    const update = scored.length ? scored.reduce((a, b) => (updateScore!.get(b.id)! > updateScore!.get(a.id)! ? b : a)) : newest(c.matching);
    hits.push({ story: c.story, update, matching: c.matching, score: scores?.sto.get(c.story.id) ?? 0, growth: 0 });
  }
  return hits;
}

/** The hits that grew in the TOPSTORIES_HOURS before now, most first; per category or continent its fastest-growing one. */
function byStrategy(stories: StoryService, p: StoriesParams, all: Hit[], updateLevel: boolean, now: number, tie: (a: Hit, b: Hit) => number): Hit[] {
  const from = now - TOPSTORIES_HOURS * 3_600_000;
  for (const h of all) h.growth = updateLevel ? growthOf(h.update, from, now) : stories.growth(h.story.id, from, now);
  const hits = all.filter((h) => h.growth > 0).sort((a, b) => b.growth - a.growth || b.update.ts - a.update.ts || tie(a, b));
  if (p.strategy === 'topstories') return hits;
  const groups: readonly string[] =
    p.strategy === 'topstories_categories' ? STORY_CATEGORIES : ['Africa', 'Asia', 'Europe', 'Middle East', 'North America', 'South America', 'Oceania'];
  const picked = new Set<Hit>();
  for (const g of groups) {
    const best = hits.find((h) => !picked.has(h) && (p.strategy === 'topstories_categories' ? h.story.categories.includes(g) : h.update.continent === g));
    if (best) picked.add(best);
  }
  return hits.filter((h) => picked.has(h));
}

/** sort_by and sort_type, in place (strategies keep their order unless sort_by is given). */
function sortHits(p: StoriesParams, hits: Hit[], q: string, updateLevel: boolean, tie: (a: Hit, b: Hit) => number): void {
  const sortBy = p.sort_by ?? (p.strategy !== 'default' ? null : q ? 'relevance' : 'published');
  if (!sortBy) {
    if (p.sort_type === 'asc') hits.reverse();
    return;
  }
  const key = (h: Hit): number => {
    switch (sortBy) {
      case 'published':
        return h.update.ts;
      case 'coverage':
        return updateLevel ? h.update.articles.length : h.story.n;
      case 'sentiment':
        return h.update.sentiment;
      case 'confidence':
        return h.update.confidence;
      case 'relevance':
        return q ? h.score : h.update.ts;
    }
  };
  const dir = p.sort_type === 'asc' ? 1 : -1;
  hits.sort((a, b) => dir * (key(a) - key(b)) || tie(a, b));
}

function growthOf(u: UpdateSummary, from: number, to: number): number {
  return u.articles.filter((a) => a.pubDate.getTime() > from && a.pubDate.getTime() <= to).length;
}
