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

export async function listStories(
  stories: StoryService,
  text: UpdateTextIndex,
  p: StoriesParams,
  now: number,
): Promise<{ hits: Hit[]; next: number; updateLevel: boolean }> {
  const continents = p.continent == null ? null : new Set(Array.isArray(p.continent) ? p.continent : [p.continent]);
  const cats = p.categories.length ? new Set<string>(p.categories) : null;
  const uuids = p.uuids.length ? new Set(p.uuids.map((u) => u.toLowerCase())) : null;
  const updateOk = (u: UpdateSummary) =>
    (p.start_timestamp == null || u.ts >= p.start_timestamp) &&
    (p.end_timestamp == null || u.ts <= p.end_timestamp) &&
    (!continents || continents.has(u.continent as never)) &&
    (p.provocative === 'all' || u.provocative === p.provocative);

  let candidates: { story: StorySummary; matching: UpdateSummary[] }[] = [];
  for (const rec of stories.surfaced()) {
    if (uuids && !uuids.has(rec.id)) continue;
    const story = stories.summary(rec.id)!;
    if (cats && !story.categories.some((c) => cats.has(c))) continue;
    const matching = story.updates.filter(updateOk);
    if (matching.length) candidates.push({ story, matching });
  }

  const updateLevel = p.obj_type.includes('story_update') && !p.obj_type.includes('story');
  const q = (p.query ?? '').trim();
  // relevance per update and per story (missing = not relevant)
  let updateScore: Map<string, number> | null = null;
  let storyScore: Map<string, number> | null = null;
  if (q) {
    const lists: { upd: Map<string, number>; sto: Map<string, number> }[] = [];
    if (p.method === 'kw' || p.method === 'both') {
      const bm = text.scores(q);
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
      lists.push({ upd, sto });
    }
    if (p.method === 'nl' || p.method === 'both') {
      const v = await stories.index.embedQuery(q);
      const r = stories.index.embedder?.relevantCosine ?? 0.3;
      const upd = new Map<string, number>();
      const sto = new Map<string, number>();
      if (v) {
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
      }
      lists.push({ upd, sto });
    }
    if (lists.length === 1) {
      updateScore = lists[0]!.upd;
      storyScore = lists[0]!.sto;
    } else {
      const fuse = (maps: Map<string, number>[]) => {
        const out = new Map<string, number>();
        for (const m of maps) {
          const order = [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
          order.forEach(([id], i) => out.set(id, (out.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
        }
        return out;
      };
      updateScore = fuse(lists.map((l) => l.upd));
      storyScore = fuse(lists.map((l) => l.sto));
    }
    candidates = candidates.filter((c) => (updateLevel ? c.matching.some((u) => updateScore!.has(u.id)) : storyScore!.has(c.story.id)));
  }

  const newest = (us: UpdateSummary[]) => us.reduce((a, b) => (b.ts > a.ts || (b.ts === a.ts && b.windowIndex > a.windowIndex) ? b : a));
  const from = now - TOPSTORIES_HOURS * 3_600_000;
  let hits: Hit[] = [];
  if (updateLevel) {
    for (const c of candidates) {
      for (const u of c.matching) {
        if (updateScore && !updateScore.has(u.id)) continue;
        hits.push({ story: c.story, update: u, matching: [u], score: updateScore?.get(u.id) ?? 0, growth: 0 });
      }
    }
  } else {
    for (const c of candidates) {
      const scored = updateScore ? c.matching.filter((u) => updateScore!.has(u.id)) : [];
      const update = scored.length ? scored.reduce((a, b) => (updateScore!.get(b.id)! > updateScore!.get(a.id)! ? b : a)) : newest(c.matching);
      hits.push({ story: c.story, update, matching: c.matching, score: storyScore?.get(c.story.id) ?? 0, growth: 0 });
    }
  }

  const tie = (a: Hit, b: Hit) => {
    const x = updateLevel ? a.update.id : a.story.id;
    const y = updateLevel ? b.update.id : b.story.id;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  if (p.strategy !== 'default') {
    for (const h of hits) h.growth = updateLevel ? growthOf(h.update, from, now) : stories.growth(h.story.id, from, now);
    hits = hits.filter((h) => h.growth > 0).sort((a, b) => b.growth - a.growth || b.update.ts - a.update.ts || tie(a, b));
    if (p.strategy !== 'topstories') {
      const groups: readonly string[] =
        p.strategy === 'topstories_categories' ? STORY_CATEGORIES : ['Africa', 'Asia', 'Europe', 'Middle East', 'North America', 'South America', 'Oceania'];
      const picked = new Set<Hit>();
      for (const g of groups) {
        const best = hits.find((h) => !picked.has(h) && (p.strategy === 'topstories_categories' ? h.story.categories.includes(g) : h.update.continent === g));
        if (best) picked.add(best);
      }
      hits = hits.filter((h) => picked.has(h));
    }
  }
  const sortBy = p.sort_by ?? (p.strategy !== 'default' ? null : q ? 'relevance' : 'published');
  if (sortBy) {
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
  } else if (p.sort_type === 'asc') {
    hits.reverse();
  }

  let start: number;
  if (typeof p.offset === 'number') start = p.offset;
  else {
    const id = p.offset.trim().toLowerCase();
    start = hits.findIndex((h) => (updateLevel ? h.update.id === id : h.story.id === id)) + 1;
  }
  const page = hits.slice(start, start + p.limit);
  return { hits: page, next: start + page.length, updateLevel };
}

function growthOf(u: UpdateSummary, from: number, to: number): number {
  return u.articles.filter((a) => a.pubDate.getTime() > from && a.pubDate.getTime() <= to).length;
}
