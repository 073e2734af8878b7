/**
 * What filters, sorting and search need of stories and updates, computed from their articles:
 * centrality order, headline, URL-safe title, timestamp, sentiment, confidence, provocative
 * level, continent and categories. Cheap enough to hold for every story; the full response
 * (summaries, citations, graphs) is built only for what a request returns (build.ts).
 */
import type { NewsArticle } from '../article/model.js';
import { PROVOCATIVE_LEVELS, STORY_CATEGORIES } from '../../spec/index.js';

export interface WindowStats {
  articles: number;
  domains: Set<string>;
  countries: Set<string>;
  languages: Set<string>;
}

export interface UpdateSummary {
  id: string;
  storyId: string;
  windowIndex: number;
  /** the update's window of pub_date: [windowStart, windowStart + windowMs) */
  windowStart: number;
  windowMs: number;
  /** most central first (cosine to the update centroid), ties by pub_date then id */
  articles: NewsArticle[];
  /** unit mean of the articles' embeddings */
  centroid: Float32Array | null;
  /** newest pub_date of its articles, Unix seconds */
  ts: number;
  /** mean article sentiment, rounded */
  sentiment: number;
  /** mean cosine of its articles to the story centroid (cohesion), 0..1 */
  confidence: number;
  provocative: (typeof PROVOCATIVE_LEVELS)[number];
  continent: string;
  categories: string[];
  headline: string;
  slug: string;
  /** article id -> clustering score (cluster_probability) */
  probabilities: Record<string, number>;
  cohesion: number;
}

export interface StorySummary {
  id: string;
  /** chronological */
  updates: UpdateSummary[];
  n: number;
  categories: string[];
  centroid: Float32Array | null;
}

/** Article classification -> story categories (spec/enums.ts); World and Military are International, Crime has none. */
const CATEGORY_OF: Record<string, string> = {
  Business: 'Business',
  Economy: 'Economy',
  Finance: 'Finance',
  Politics: 'Politics',
  Science: 'Science',
  Sports: 'Sports',
  Technology: 'Technology',
  Health: 'Health',
  Entertainment: 'Entertainment',
  Culture: 'Culture',
  Climate: 'Climate',
  Environment: 'Environment',
  World: 'International',
  Military: 'International',
};

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k]! * b[k]!;
  return s;
}

export function unitMean(vs: Float32Array[]): Float32Array | null {
  if (vs.length === 0) return null;
  const m = new Float32Array(vs[0]!.length);
  for (const v of vs) for (let k = 0; k < m.length; k++) m[k]! += v[k]!;
  let n = 0;
  for (const x of m) n += x * x;
  n = Math.sqrt(n);
  if (n === 0) return null;
  return m.map((x) => x / n);
}

/** Lowercase ASCII words joined by '-', at most 80 characters, cut at a word. */
export function slugify(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (s.length <= 80) return s || 'story';
  const cut = s.slice(0, 81);
  return cut.slice(0, cut.lastIndexOf('-') > 40 ? cut.lastIndexOf('-') : 80).replace(/-+$/, '');
}

/** Values counted once per article, most frequent first (ties alphabetical). */
export function ranked(values: Iterable<string[]>, k = Infinity): string[] {
  const counts = new Map<string, number>();
  const shown = new Map<string, string>();
  for (const vs of values) {
    for (const v of new Set(vs.map((x) => x.toLowerCase()))) counts.set(v, (counts.get(v) ?? 0) + 1);
    for (const v of vs) if (!shown.has(v.toLowerCase())) shown.set(v.toLowerCase(), v);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, k)
    .map(([v]) => shown.get(v)!);
}

/** Categories held by at least a third of the articles, else the most common one. */
export function categoriesOf(articles: NewsArticle[]): string[] {
  const per = articles.map((a) => [...new Set(a.classification.map((c) => CATEGORY_OF[c]).filter((c): c is string => !!c))]);
  const counts = new Map<string, number>();
  for (const cs of per) for (const c of cs) counts.set(c, (counts.get(c) ?? 0) + 1);
  const order = (c: string) => STORY_CATEGORIES.indexOf(c as (typeof STORY_CATEGORIES)[number]);
  const held = [...counts.entries()].filter(([, n]) => n * 3 >= articles.length).map(([c]) => c);
  const out = held.length ? held : ranked(per, 1);
  return out.sort((a, b) => order(a) - order(b));
}

/** Where the articles' places are (gazetteer continents), else where their publishers are. */
function continentOf(articles: NewsArticle[]): string {
  const places = ranked(
    articles.map((a) =>
      Object.values(a.geo ?? {})
        .map((g) => String(g.metadata.continent ?? ''))
        .filter(Boolean),
    ),
    1,
  );
  if (places.length) return places[0]!;
  return (
    ranked(
      articles.map((a) => (a.continent ? [a.continent] : [])),
      1,
    )[0] ?? ''
  );
}

/** What summarizeUpdate needs: the update's identity and window, its articles, and lookups. */
export interface UpdateInput extends Pick<UpdateSummary, 'id' | 'storyId' | 'windowIndex' | 'windowStart' | 'windowMs' | 'articles'> {
  storyCentroid: Float32Array | null;
  vectorOf: (id: string) => Float32Array | null;
  memberOf: (id: string) => { score: number } | undefined;
}

export function summarizeUpdate(u: UpdateInput): UpdateSummary {
  const vecs = new Map(u.articles.map((a) => [a.articleId, u.vectorOf(a.articleId)]));
  const centroid = unitMean([...vecs.values()].filter((v): v is Float32Array => !!v));
  const central = new Map(u.articles.map((a) => [a.articleId, centroid && vecs.get(a.articleId) ? dot(vecs.get(a.articleId)!, centroid) : 0]));
  const articles = [...u.articles].sort(
    (a, b) => central.get(b.articleId)! - central.get(a.articleId)! || a.pubDate.getTime() - b.pubDate.getTime() || (a.articleId < b.articleId ? -1 : 1),
  );
  const n = Math.max(1, articles.length);
  let confidence = 0;
  if (u.storyCentroid) for (const v of vecs.values()) if (v) confidence += Math.max(0, dot(v, u.storyCentroid));
  const levels = new Map<string, number>();
  for (const a of articles) levels.set(a.provocative, (levels.get(a.provocative) ?? 0) + 1);
  const provocative = [...PROVOCATIVE_LEVELS]
    .reverse()
    .reduce((best, l) => ((levels.get(l) ?? 0) > (levels.get(best) ?? 0) ? l : best), 'unknown' as UpdateSummary['provocative']);
  const headline = articles[0]?.title ?? '';
  return {
    id: u.id,
    storyId: u.storyId,
    windowIndex: u.windowIndex,
    windowStart: u.windowStart,
    windowMs: u.windowMs,
    articles,
    centroid,
    ts: Math.floor(Math.max(...articles.map((a) => a.pubDate.getTime())) / 1000),
    sentiment: Math.round(articles.reduce((s, a) => s + a.sentiment, 0) / n) || 0, // never -0
    confidence: round(confidence / n, 4),
    provocative,
    continent: continentOf(articles),
    categories: categoriesOf(articles),
    headline,
    slug: `${slugify(headline)}-${u.id.slice(0, 8)}`,
    probabilities: Object.fromEntries(articles.map((a) => [a.articleId, round(u.memberOf(a.articleId)?.score ?? 0, 4)])),
    cohesion: round([...central.values()].reduce((s, c) => s + c, 0) / n, 4),
  };
}

export function summarizeStory(id: string, updates: UpdateSummary[], centroid: Float32Array | null): StorySummary {
  const articles = updates.flatMap((u) => u.articles);
  return { id, updates, n: articles.length, categories: categoriesOf(articles), centroid };
}

export const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
