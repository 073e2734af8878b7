/**
 * The forum index: the threads of the store (./store.ts) as the API shows them, their dates moved
 * onto the replay's timeline, BM25 over the title (twice), body and shown comments, and the
 * threads' embeddings. Built whole from the store's rows (ForumService rebuilds it after a load).
 *
 * Timeline: the replay of a stored corpus (`newsflow start`) moves forum dates the way it moves
 * news: each source's newest thread is dated `now` and every other thread and comment keeps its
 * distance to it divided by the replay's speed (speed 1 is the news rebase, a pure shift). The
 * store keeps the source's dates; the index shows the moved ones. Without a timeline a stored
 * archive answers with its own dates.
 */
import type { RedditThread } from '../../spec/index.js';
import { Bm25Index } from '../search/bm25.js';
import { VectorIndex } from '../search/vectors.js';
import { terms } from '../text/tokenize.js';
import { subredditUrl, UNKNOWN_AUTHOR } from './read.js';
import { REDDIT_ENTITY_KEYS } from './enrich.js';
import type { IndexRows } from './store.js';

const NO_KARMA_AUTHORS = [UNKNOWN_AUTHOR, '[deleted]', '[removed]'];
const iso = (ms: number) => new Date(ms).toISOString();

/** How dates are moved (see the file comment): `now` (ms) the newest thread's date, `speed` the replay's. */
export interface ForumTimeline {
  now: number;
  speed: number;
}

/** A source date moved onto the timeline, given the newest thread date of its source. */
export const moveDate = (ms: number, newest: number, t: ForumTimeline | null) => (t ? t.now - (newest - ms) / t.speed : ms);

export interface View {
  dict: RedditThread;
  date: number;
  upvotes: number;
  commentsCount: number;
}

export class ForumIndex {
  readonly views: View[] = [];
  readonly bm25 = new Bm25Index();
  vectors: VectorIndex | null = null;
  readonly byId = new Map<string, number>();

  get size(): number {
    return this.views.length;
  }

  /** Every thread, in the order of the index (tests, exports). */
  all(): RedditThread[] {
    return this.views.map((v) => v.dict);
  }

  get(id: string): RedditThread | undefined {
    const i = this.byId.get(id.toLowerCase());
    return i === undefined ? undefined : this.views[i]!.dict;
  }

  setVector(doc: number, v: Float32Array): void {
    this.vectors ??= new VectorIndex(v.length, Math.max(1024, this.views.length));
    this.vectors.set(doc, v);
  }

  /** The index of the store's rows, dates moved onto `timeline`; `missing`: the docs without a stored vector. */
  static build(data: IndexRows, vectors: Map<string, Float32Array>, timeline: ForumTimeline | null): { index: ForumIndex; missing: number[] } {
    const { rows, comments, karma } = data;
    const karmaOf = new Map(karma.map((k) => [k.author, { link: Number(k.link ?? 0), comment: Number(k.comment ?? 0) }]));
    const commentsOf = new Map<string, typeof comments>();
    for (const c of comments) {
      const l = commentsOf.get(c.key) ?? [];
      l.push(c);
      commentsOf.set(c.key, l);
    }
    const index = new ForumIndex();
    const missing: number[] = [];
    // the newest thread of each source: the timeline's `now`
    const newest = new Map<string, number>();
    for (const r of rows) newest.set(r.src, Math.max(newest.get(r.src) ?? -Infinity, Number(r.ms)));
    for (const r of rows) {
      const moved = (ms: number) => Math.round(moveDate(ms, newest.get(r.src)!, timeline));
      const shown = commentsOf.get(r.key) ?? [];
      const derived = new Set(r.derived);
      const known = !NO_KARMA_AUTHORS.includes(r.author);
      const k = known ? (karmaOf.get(r.author) ?? { link: 0, comment: 0 }) : { link: 0, comment: 0 };
      if (r.lk === null) derived.add('author_link_karma');
      if (r.ck === null) derived.add('author_comment_karma');
      if (r.cc === null) derived.add('comments_count');
      for (const c of shown) for (const f of c.derived) derived.add(`comments.${f}`);
      const parsed = JSON.parse(r.entities) as Record<string, string[]>;
      const dict: RedditThread = {
        author: r.author,
        author_comment_karma: r.ck ?? k.comment,
        author_link_karma: r.lk ?? k.link,
        body: r.body,
        classification: r.classification,
        comments: shown.map((c) => ({ author: c.author, body: c.body, date: iso(moved(Number(c.ms))), upvotes: c.upvotes })),
        comments_count: r.cc ?? Number(r.n ?? 0),
        date: iso(moved(Number(r.ms))),
        entities: Object.fromEntries(REDDIT_ENTITY_KEYS.map((key) => [key, parsed[key] ?? []])) as RedditThread['entities'],
        id: r.id,
        key_takeaways: r.kt,
        keywords: r.keywords,
        sentiment: r.sentiment,
        subreddit_name: r.sub,
        subreddit_url: subredditUrl(r.sub),
        summary: r.summary,
        title: r.title,
        topic: r.topic,
        url: r.url,
        upvotes: r.upvotes,
        main_speculation: r.ms2,
        derived_fields: [...derived].sort(),
      };
      const doc = index.views.length;
      index.views.push({ dict, date: moved(Number(r.ms)), upvotes: r.upvotes, commentsCount: dict.comments_count });
      index.byId.set(r.id, doc);
      const lang = r.language === 'unknown' ? 'en' : r.language;
      index.bm25.add(doc, terms(`${r.title}\n${r.title}\n${r.body}\n${shown.map((c) => c.body).join('\n')}`, lang));
      const v = vectors.get(r.id);
      if (v) index.setVector(doc, v);
      else missing.push(doc);
    }
    return { index, missing };
  }
}

/**
 * The text a thread is embedded from: its title and the start of its post (a post states its
 * subject first), or of its summary when it has no post (a question: the summary of its comments);
 * 500 characters keep loading fast.
 */
export function embeddingText(t: RedditThread): string {
  const body = t.body.replace(/\s+/g, ' ').trim();
  return `${t.title}. ${body.length >= 40 ? body : t.summary}`.slice(0, 500);
}
