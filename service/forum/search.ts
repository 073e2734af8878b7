/**
 * Forum search over the index (./index.ts): kw scores the keywords with BM25 over the title
 * (twice), body and the shown comments; nl ranks by cosine of the keywords' embedding to the
 * thread's (`embeddingText`), falling back to kw when the service has no embedder. `time_filter`
 * keeps threads dated within the span before the service clock (hour, day, week, month 30 days,
 * year 365 days; all: no bound). `sort`: relevance (score), hot (Reddit's hot rank: log10 of the
 * upvotes plus the date in units of 12.5 hours), top (upvotes), new (date), comments
 * (comments_count); ties by relevance. With sorts other than relevance, nl keeps threads at or
 * above the embedder's relevant cosine. A thread shows its 25 most upvoted comments.
 */
import type { RedditThread } from '../../spec/index.js';
import type { Embedder } from '../search/embedder.js';
import { terms } from '../text/tokenize.js';
import type { ForumIndex } from './index.js';

const HOUR = 3_600_000;
export const TIME_FILTER_MS: Record<string, number | null> = {
  hour: HOUR,
  day: 24 * HOUR,
  week: 7 * 24 * HOUR,
  month: 30 * 24 * HOUR,
  year: 365 * 24 * HOUR,
  all: null,
};

export interface ForumSearchParams {
  keywords: string[];
  n_threads: number;
  method: 'nl' | 'kw';
  time_filter: 'hour' | 'day' | 'week' | 'month' | 'year' | 'all';
  sort: 'relevance' | 'hot' | 'top' | 'new' | 'comments';
}

/** Reddit's hot rank (reddit/r2 `_sorts.pyx`): sign * log10(max(|score|, 1)) + (seconds - 1134028003) / 45000. */
export function hotRank(upvotes: number, dateMs: number): number {
  const order = Math.log10(Math.max(Math.abs(upvotes), 1));
  const sign = upvotes > 0 ? 1 : upvotes < 0 ? -1 : 0;
  return sign * order + (dateMs / 1000 - 1134028003) / 45000;
}

/** Forum search (see the file comment); the threads best first, `now` the service clock. */
export async function searchForum(index: ForumIndex, embedder: Embedder | null, p: ForumSearchParams, now: number): Promise<RedditThread[]> {
  const span = TIME_FILTER_MS[p.time_filter] ?? null;
  const accept =
    span === null
      ? undefined
      : (d: number) => {
          const t = index.views[d]!.date;
          return t >= now - span && t <= now;
        };
  const text = p.keywords.join(' ');
  let hits: { docs: ArrayLike<number>; scores: ArrayLike<number> };
  if (p.method === 'nl' && embedder && index.vectors) {
    const [q] = await embedder.embed([text]);
    const qv = normalised(q!);
    hits = index.vectors.search(qv, { candidates: null, accept, threshold: p.sort === 'relevance' ? -Infinity : embedder.relevantCosine, exact: true });
  } else {
    hits = index.bm25.score(terms(text), accept);
  }
  return rank(index, hits, p.sort, p.n_threads).map((d) => index.views[d]!.dict);
}

function rank(index: ForumIndex, hits: { docs: ArrayLike<number>; scores: ArrayLike<number> }, sort: ForumSearchParams['sort'], n: number): number[] {
  const key = (d: number): number => {
    const v = index.views[d]!;
    switch (sort) {
      case 'hot':
        return hotRank(v.upvotes, v.date);
      case 'top':
        return v.upvotes;
      case 'new':
        return v.date;
      case 'comments':
        return v.commentsCount;
      default:
        return 0;
    }
  };
  const items = Array.from({ length: hits.docs.length }, (_, i) => ({ d: hits.docs[i]!, s: hits.scores[i]!, k: key(hits.docs[i]!) }));
  items.sort((a, b) => b.k - a.k || b.s - a.s || a.d - b.d);
  return items.slice(0, n).map((x) => x.d);
}

/**
 * Threads about a subject (a story update: its headline, then its keywords): threads that hold
 * at least two distinct terms of the headline (one when it has one), ranked by BM25 of the
 * headline and keywords together, best first.
 */
export function relatedThreads(index: ForumIndex, headline: string, keywords: string[], n: number): RedditThread[] {
  if (n <= 0 || index.views.length === 0) return [];
  const head = [...new Set(terms(headline))];
  if (head.length === 0) return [];
  const matched = new Map<number, number>();
  for (const t of head) {
    const { docs } = index.bm25.score([t]);
    for (const d of docs) matched.set(d, (matched.get(d) ?? 0) + 1);
  }
  const need = Math.min(2, head.length);
  const { docs, scores } = index.bm25.score([...head, ...terms(keywords.join(' '))], (d) => (matched.get(d) ?? 0) >= need);
  return rank(index, { docs, scores }, 'relevance', n).map((d) => index.views[d]!.dict);
}

function normalised(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

/** The prompt-ready string form: one `<doc>` block per thread. */
export function forumString(threads: RedditThread[]): string {
  return threads
    .map((t, i) => {
      const lines = [
        '<doc>',
        `[${i + 1}]:`,
        `Title: ${t.title}`,
        `Subreddit: r/${t.subreddit_name}`,
        `Author: ${t.author}`,
        `Date: ${t.date}`,
        `Upvotes: ${t.upvotes} | Comments: ${t.comments_count} | Sentiment: ${t.sentiment}`,
        `Summary: ${t.summary}`,
      ];
      if (t.key_takeaways.length) lines.push('Key takeaways:', ...t.key_takeaways.map((k) => `- ${k}`));
      if (t.main_speculation) lines.push(`Main speculation: ${t.main_speculation}`);
      const top = t.comments.slice(0, 5);
      if (top.length) lines.push('Top comments:', ...top.map((c) => `- (${c.upvotes} upvotes) ${cut(c.body.replace(/\s+/g, ' '), 300)}`));
      lines.push(`URL: ${t.url}`, '</doc>');
      return lines.join('\n');
    })
    .join('\n\n');
}
