/**
 * The forum store: threads and comments in the service's DuckDB (migration 9), an in-memory index
 * built from it (BM25 for kw, embedding cosine for nl, as news), and forum search.
 *
 * Loading (`load`): every source record is merged by key (a thread by its thread id, a comment by
 * its id) in batches of 1,000, one transaction each; a record whose source values did not change
 * is left alone, so loading twice changes nothing. Then the threads whose source values or
 * comments changed are enriched (./enrich.ts) in batches of 500, and the index is rebuilt.
 *
 * Search (`search`): kw scores the keywords with BM25 over the title (twice), body and the shown
 * comments; nl ranks by cosine of the keywords' embedding to the thread's (`embeddingText`),
 * falling back to kw when the service has no embedder. `time_filter` keeps threads dated within
 * the span before the service clock (hour, day, week, month 30 days, year 365 days; all: no
 * bound). `sort`: relevance (score), hot (Reddit's hot rank: log10 of the upvotes plus the date
 * in units of 12.5 hours), top (upvotes), new (date), comments (comments_count); ties by
 * relevance. With sorts other than relevance, nl keeps threads at or above the embedder's
 * relevant cosine. A thread shows its 25 most upvoted comments (comments_count counts all).
 *
 * Timeline (`retime`, or `load`'s `timeline`): the replay of a stored corpus (`newsflow start`)
 * moves forum dates the way it moves news: each source's newest thread is dated `now` and every
 * other thread and comment keeps its distance to it divided by the replay's speed (news articles
 * the replay releases get their crawl_date on the same clock; speed 1 is the news rebase, a pure
 * shift). The store keeps the source's dates; the index (search, the threads' and comments'
 * `date`, stories' reddit threads) shows the moved ones. Without a timeline a stored archive
 * answers with its own dates, so the interface's default `time_filter` (day) finds only threads of
 * the last day before the service clock.
 */
import fs from 'node:fs';
import type { Db } from '../store/db.js';
import { micros, stage, type ColSpec } from '../store/bulk.js';
import { Bm25Index } from '../search/bm25.js';
import { VectorIndex } from '../search/vectors.js';
import type { Embedder } from '../search/embedder.js';
import { terms } from '../text/tokenize.js';
import type { RedditThread } from '../../spec/index.js';
import {
  forumFiles,
  readPostCommentFile,
  readPushshift,
  rowHash,
  subredditUrl,
  UNKNOWN_AUTHOR,
  type CommentRow,
  type ForumRecord,
  type ReadProblem,
  type ThreadRow,
} from './read.js';
import { docFreqOfThreads, enrichThread, FORUM_ENRICHMENT_VERSION, REDDIT_ENTITY_KEYS, type ThreadText } from './enrich.js';

export const SHOWN_COMMENTS = 25;
const WRITE_BATCH = 1000;
const ENRICH_BATCH = 500;
const HOUR = 3_600_000;
export const TIME_FILTER_MS: Record<string, number | null> = {
  hour: HOUR,
  day: 24 * HOUR,
  week: 7 * 24 * HOUR,
  month: 30 * 24 * HOUR,
  year: 365 * 24 * HOUR,
  all: null,
};
const NO_KARMA_AUTHORS = [UNKNOWN_AUTHOR, '[deleted]', '[removed]'];

export interface ForumSearchParams {
  keywords: string[];
  n_threads: number;
  method: 'nl' | 'kw';
  time_filter: 'hour' | 'day' | 'week' | 'month' | 'year' | 'all';
  sort: 'relevance' | 'hot' | 'top' | 'new' | 'comments';
}

interface Counts {
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
}
export interface ForumLoadResult {
  files: number;
  threads: Counts;
  comments: Counts;
  /** threads (re-)enriched by this load */
  enriched: number;
  /** what the store holds after the load */
  stored: { threads: number; comments: number };
  /** unreadable lines or files (the rest was loaded) */
  problems: ReadProblem[];
}

/** How dates are moved (see the file comment): `now` (ms) the newest thread's date, `speed` the replay's. */
export interface ForumTimeline {
  now: number;
  speed: number;
}

/** A source date moved onto the timeline, given the newest thread date of its source. */
export const moveDate = (ms: number, newest: number, t: ForumTimeline | null) => (t ? t.now - (newest - ms) / t.speed : ms);

interface View {
  dict: RedditThread;
  date: number;
  upvotes: number;
  commentsCount: number;
}

const THREAD_COLS: ColSpec[] = [
  ['thread_id', 'varchar'],
  ['thread_key', 'varchar'],
  ['source', 'varchar'],
  ['subreddit', 'varchar'],
  ['title', 'varchar'],
  ['body', 'varchar'],
  ['author', 'varchar'],
  ['author_link_karma', 'int'],
  ['author_comment_karma', 'int'],
  ['date', 'bigint'],
  ['upvotes', 'int'],
  ['url', 'varchar'],
  ['comments_count', 'int'],
  ['derived', 'varchar[]'],
  ['raw_hash', 'varchar'],
];
const COMMENT_COLS: ColSpec[] = [
  ['comment_key', 'varchar'],
  ['thread_key', 'varchar'],
  ['seq', 'bigint'],
  ['author', 'varchar'],
  ['body', 'varchar'],
  ['date', 'bigint'],
  ['upvotes', 'int'],
  ['derived', 'varchar[]'],
  ['raw_hash', 'varchar'],
];
const ENRICH_COLS: ColSpec[] = [
  ['thread_id', 'varchar'],
  ['summary', 'varchar'],
  ['key_takeaways', 'varchar[]'],
  ['main_speculation', 'varchar'],
  ['keywords', 'varchar[]'],
  ['entities', 'varchar'],
  ['sentiment', 'double'],
  ['classification', 'varchar[]'],
  ['topic', 'varchar'],
  ['language', 'varchar'],
  ['enriched_hash', 'varchar'],
];

const threadHash = (t: ThreadRow) =>
  rowHash([
    t.threadKey,
    t.source,
    t.subreddit,
    t.title,
    t.body,
    t.author,
    t.authorLinkKarma,
    t.authorCommentKarma,
    t.date.getTime(),
    t.upvotes,
    t.url,
    t.commentsCount,
    t.derived,
  ]);
const commentHash = (c: CommentRow) => rowHash([c.threadKey, c.author, c.body, c.date.getTime(), c.upvotes, c.derived]);
const threadRow = (t: ThreadRow) => [
  t.threadId,
  t.threadKey,
  t.source,
  t.subreddit,
  t.title,
  t.body,
  t.author,
  t.authorLinkKarma,
  t.authorCommentKarma,
  micros(t.date),
  t.upvotes,
  t.url,
  t.commentsCount,
  t.derived,
  threadHash(t),
];
const commentRow = (c: CommentRow) => [c.commentKey, c.threadKey, c.seq, c.author, c.body, micros(c.date), c.upvotes, c.derived, commentHash(c)];
const toF32 = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const iso = (ms: number) => new Date(ms).toISOString();

/** Reddit's hot rank (reddit/r2 `_sorts.pyx`): sign * log10(max(|score|, 1)) + (seconds - 1134028003) / 45000. */
export function hotRank(upvotes: number, dateMs: number): number {
  const order = Math.log10(Math.max(Math.abs(upvotes), 1));
  const sign = upvotes > 0 ? 1 : upvotes < 0 ? -1 : 0;
  return sign * order + (dateMs / 1000 - 1134028003) / 45000;
}

export class ForumStore {
  private views: View[] = [];
  private bm25 = new Bm25Index();
  private vectors: VectorIndex | null = null;
  private byId = new Map<string, number>();

  /** dates are moved onto this timeline (null: the source's dates) */
  private timeline: ForumTimeline | null = null;

  private constructor(
    readonly db: Db,
    readonly embedder: Embedder | null,
    readonly clock: () => number,
    private readonly indexed: boolean,
  ) {}

  /** Move the index's dates onto `timeline` (null: back to the source's dates); see the file comment. */
  async retime(timeline: ForumTimeline | null): Promise<void> {
    if (timeline && !(timeline.speed > 0 && Number.isFinite(timeline.speed) && Number.isFinite(timeline.now)))
      throw new Error(`a forum timeline needs a finite now and a positive speed, not ${JSON.stringify(timeline)}`);
    this.timeline = timeline;
    if (this.indexed) await this.rebuild();
  }

  /**
   * Build the index from what the store holds (embedding threads that have no vector of the
   * embedder's model yet). `index: false` (loading from the command line) keeps no index.
   */
  static async open(db: Db, opts: { embedder?: Embedder | null; clock?: () => number; index?: boolean } = {}): Promise<ForumStore> {
    const s = new ForumStore(db, opts.embedder ?? null, opts.clock ?? Date.now, opts.index ?? true);
    if (s.indexed) await s.rebuild();
    return s;
  }

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

  // ---- loading

  /**
   * Load a file or a directory (see ./read.ts for the formats); rebuilds the index after, its dates
   * moved onto `timeline` when given (the replay: see the file comment).
   */
  async load(
    p: string,
    opts: { onProgress?: (phase: string, done: number) => void; timeline?: { now?: number; speed: number } } = {},
  ): Promise<ForumLoadResult> {
    if (!fs.existsSync(p)) throw new Error(`${p}: no such file or directory`);
    if (opts.timeline) this.timeline = { now: opts.timeline.now ?? this.clock(), speed: opts.timeline.speed };
    const files = forumFiles(p);
    const problems: ReadProblem[] = [];
    const threads: Counts = { read: 0, inserted: 0, updated: 0, unchanged: 0 };
    const comments: Counts = { read: 0, inserted: 0, updated: 0, unchanged: 0 };
    let batch: ForumRecord[] = [];
    const flush = async () => {
      const w = await this.write(batch);
      for (const k of ['inserted', 'updated', 'unchanged'] as const) {
        threads[k] += w.threads[k];
        comments[k] += w.comments[k];
      }
      batch = [];
      opts.onProgress?.('read', threads.read + comments.read);
    };
    const take = async (r: ForumRecord) => {
      if (r.kind === 'thread') threads.read++;
      else comments.read++;
      batch.push(r);
      if (batch.length >= WRITE_BATCH) await flush();
    };
    for (const f of files.postComment) {
      let recs: ForumRecord[];
      try {
        recs = readPostCommentFile(f);
      } catch (e) {
        problems.push({ file: f, line: null, message: (e as Error).message });
        continue;
      }
      for (const r of recs) await take(r);
    }
    for (const f of files.ndjson) {
      for await (const r of readPushshift(f, (x) => problems.push(x))) await take(r);
    }
    await flush();
    const enriched = await this.enrichChanged((n) => opts.onProgress?.('enrich', n));
    if (this.indexed) await this.rebuild();
    const [n] = await this.db.all<{ t: bigint; c: bigint }>('SELECT (SELECT count(*) FROM forum_threads) AS t, (SELECT count(*) FROM forum_comments) AS c');
    return {
      files: files.postComment.length + files.ndjson.length,
      threads,
      comments,
      enriched,
      stored: { threads: Number(n!.t), comments: Number(n!.c) },
      problems,
    };
  }

  /** Merge one batch of records (last record of a key wins). */
  private async write(records: ForumRecord[]): Promise<{ threads: Omit<Counts, 'read'>; comments: Omit<Counts, 'read'> }> {
    const ts = new Map<string, ThreadRow>();
    const cs = new Map<string, CommentRow>();
    for (const r of records) {
      if (r.kind === 'thread') ts.set(r.row.threadId, r.row);
      else cs.set(r.row.commentKey, r.row);
    }
    const zero = { inserted: 0, updated: 0, unchanged: 0 };
    if (ts.size === 0 && cs.size === 0) return { threads: zero, comments: zero };
    return this.db.withConnection(async (conn) => {
      const stgT = await stage(conn, 'forum_threads', THREAD_COLS, [...ts.values()].map(threadRow));
      const stgC = await stage(conn, 'forum_comments', COMMENT_COLS, [...cs.values()].map(commentRow));
      const expr = (c: string, kind: string) =>
        c === 'thread_id' ? 's.thread_id::UUID' : c === 'date' ? 'make_timestamp(s.date)' : kind === 'varchar[]' ? `s.${c}` : `s.${c}`;
      const merge = async (table: string, stg: string, cols: ColSpec[], key: string, keyExpr: string, seen: number) => {
        const [c] = (
          await conn.runAndReadAll(`SELECT count(*) FILTER (WHERE t.raw_hash = s.raw_hash) AS same, count(*) FILTER (WHERE t.raw_hash <> s.raw_hash) AS changed
          FROM ${stg} s JOIN ${table} t ON t.${key} = ${keyExpr}`)
        ).getRowObjectsJS() as { same: bigint; changed: bigint }[];
        const names = cols.map(([n]) => n);
        const rest = cols.filter(([n]) => n !== key);
        await conn.run(`MERGE INTO ${table} t USING ${stg} s ON t.${key} = ${keyExpr}
          WHEN MATCHED AND t.raw_hash <> s.raw_hash THEN UPDATE SET ${rest.map(([n, k]) => `${n} = ${expr(n, k)}`).join(', ')}${table === 'forum_threads' ? ', loaded_at = now()' : ''}
          WHEN NOT MATCHED THEN INSERT (${names.join(', ')}${table === 'forum_threads' ? ', loaded_at' : ''}) VALUES (${cols.map(([n, k]) => expr(n, k)).join(', ')}${table === 'forum_threads' ? ', now()' : ''})`);
        const same = Number(c!.same);
        const changed = Number(c!.changed);
        return { inserted: seen - same - changed, updated: changed, unchanged: same };
      };
      await conn.run('BEGIN TRANSACTION');
      try {
        const threads = ts.size ? await merge('forum_threads', stgT, THREAD_COLS, 'thread_id', 's.thread_id::UUID', ts.size) : zero;
        const comments = cs.size ? await merge('forum_comments', stgC, COMMENT_COLS, 'comment_key', 's.comment_key', cs.size) : zero;
        await conn.run('COMMIT');
        return { threads, comments };
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    });
  }

  /** Enrich the threads whose source values or comments changed since they were enriched. */
  private async enrichChanged(onProgress?: (n: number) => void): Promise<number> {
    const todo = await this.db.all<{ id: string; want: string }>(`
      WITH c AS (SELECT thread_key, md5(string_agg(comment_key || ':' || raw_hash, ',' ORDER BY comment_key)) AS h FROM forum_comments GROUP BY 1)
      SELECT t.thread_id::VARCHAR AS id, md5(t.raw_hash || ':' || coalesce(c.h, '') || ':${FORUM_ENRICHMENT_VERSION}') AS want
      FROM forum_threads t LEFT JOIN c ON c.thread_key = t.thread_key
      WHERE t.enriched_hash IS DISTINCT FROM md5(t.raw_hash || ':' || coalesce(c.h, '') || ':${FORUM_ENRICHMENT_VERSION}')
      ORDER BY t.thread_id`);
    let done = 0;
    for (let i = 0; i < todo.length; i += ENRICH_BATCH) {
      const part = todo.slice(i, i + ENRICH_BATCH);
      const ids = part.map((x) => x.id).join(',');
      const rows = await this.db.all<{ id: string; key: string; title: string; body: string; subreddit: string }>(
        `SELECT thread_id::VARCHAR AS id, thread_key AS key, title, body, subreddit FROM forum_threads WHERE thread_id IN (SELECT unnest(string_split($1, ','))::UUID)`,
        [ids],
      );
      const cm = await this.db.all<{ key: string; bodies: string[] }>(
        `SELECT thread_key AS key, list(body ORDER BY upvotes DESC, seq, comment_key) AS bodies FROM (
           SELECT *, row_number() OVER (PARTITION BY thread_key ORDER BY upvotes DESC, seq, comment_key) AS rn FROM forum_comments
           WHERE thread_key IN (SELECT thread_key FROM forum_threads WHERE thread_id IN (SELECT unnest(string_split($1, ','))::UUID)))
         WHERE rn <= 10 GROUP BY 1`,
        [ids],
      );
      const byKey = new Map(cm.map((r) => [r.key, r.bodies]));
      const want = new Map(part.map((x) => [x.id, x.want]));
      const texts: (ThreadText & { id: string })[] = rows.map((r) => ({
        id: r.id,
        title: r.title,
        body: r.body,
        subreddit: r.subreddit,
        comments: byKey.get(r.key) ?? [],
      }));
      const df = docFreqOfThreads(texts);
      const out = texts.map((t) => {
        const e = enrichThread(t, df);
        return [
          t.id,
          e.summary,
          e.keyTakeaways,
          e.mainSpeculation,
          e.keywords,
          JSON.stringify(e.entities),
          e.sentiment,
          e.classification,
          e.topic,
          e.language,
          want.get(t.id)!,
        ];
      });
      await this.db.withConnection(async (conn) => {
        const stg = await stage(conn, 'forum_enrich', ENRICH_COLS, out);
        await conn.run(`MERGE INTO forum_threads t USING ${stg} s ON t.thread_id = s.thread_id::UUID
          WHEN MATCHED THEN UPDATE SET ${ENRICH_COLS.slice(1)
            .map(([n]) => `${n} = s.${n}${n === 'entities' ? '::JSON' : ''}`)
            .join(', ')}`);
      });
      done += out.length;
      onProgress?.(done);
    }
    return done;
  }

  // ---- the index

  private async rebuild(): Promise<void> {
    type Row = {
      id: string;
      key: string;
      src: string;
      sub: string;
      title: string;
      body: string;
      author: string;
      lk: number | null;
      ck: number | null;
      ms: number;
      upvotes: number;
      url: string;
      cc: number | null;
      derived: string[];
      summary: string;
      kt: string[];
      ms2: string;
      keywords: string[];
      entities: string;
      sentiment: number;
      classification: string[];
      topic: string;
      language: string;
      n: bigint | null;
    };
    const rows = await this.db.all<Row>(`
      WITH n AS (SELECT thread_key, count(*) AS n FROM forum_comments GROUP BY 1)
      SELECT t.thread_id::VARCHAR AS id, t.thread_key AS key, t.source AS src, subreddit AS sub, title, body, author, author_link_karma AS lk, author_comment_karma AS ck,
        epoch_ms(date) AS ms, upvotes, url, comments_count AS cc, derived, summary, key_takeaways AS kt, main_speculation AS ms2, keywords,
        entities::VARCHAR AS entities, sentiment, classification, topic, language, n.n AS n
      FROM forum_threads t LEFT JOIN n ON n.thread_key = t.thread_key
      WHERE t.enriched_hash IS NOT NULL ORDER BY t.date, t.thread_id`);
    const comments = await this.db.all<{ key: string; author: string; body: string; ms: number; upvotes: number; derived: string[] }>(`
      SELECT thread_key AS key, author, body, epoch_ms(date) AS ms, upvotes, derived FROM (
        SELECT *, row_number() OVER (PARTITION BY thread_key ORDER BY upvotes DESC, seq, comment_key) AS rn FROM forum_comments)
      WHERE rn <= ${SHOWN_COMMENTS} ORDER BY thread_key, rn`);
    const karma = await this.db.all<{ author: string; link: bigint | null; comment: bigint | null }>(`
      WITH l AS (SELECT author, sum(upvotes) AS s FROM forum_threads GROUP BY 1), c AS (SELECT author, sum(upvotes) AS s FROM forum_comments GROUP BY 1)
      SELECT coalesce(l.author, c.author) AS author, l.s AS link, c.s AS comment FROM l FULL OUTER JOIN c ON l.author = c.author`);
    const karmaOf = new Map(karma.map((k) => [k.author, { link: Number(k.link ?? 0), comment: Number(k.comment ?? 0) }]));
    const commentsOf = new Map<string, typeof comments>();
    for (const c of comments) {
      const l = commentsOf.get(c.key) ?? [];
      l.push(c);
      commentsOf.set(c.key, l);
    }
    const vectors = this.embedder ? await this.storedVectors(this.embedder.model) : new Map<string, Float32Array>();
    this.views = [];
    this.byId = new Map();
    this.bm25 = new Bm25Index();
    this.vectors = null;
    const missing: number[] = [];
    // the newest thread of each source: the timeline's `now`
    const newest = new Map<string, number>();
    for (const r of rows) newest.set(r.src, Math.max(newest.get(r.src) ?? -Infinity, Number(r.ms)));
    for (const r of rows) {
      const moved = (ms: number) => Math.round(moveDate(ms, newest.get(r.src)!, this.timeline));
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
      const doc = this.views.length;
      this.views.push({ dict, date: moved(Number(r.ms)), upvotes: r.upvotes, commentsCount: dict.comments_count });
      this.byId.set(r.id, doc);
      const lang = r.language === 'unknown' ? 'en' : r.language;
      this.bm25.add(doc, terms(`${r.title}\n${r.title}\n${r.body}\n${shown.map((c) => c.body).join('\n')}`, lang));
      const v = vectors.get(r.id);
      if (v) this.setVector(doc, v);
      else missing.push(doc);
    }
    if (this.embedder && missing.length) {
      const out: [string, Float32Array][] = [];
      for (let i = 0; i < missing.length; i += 256) {
        const part = missing.slice(i, i + 256);
        const vs = await this.embedder.embed(part.map((d) => embeddingText(this.views[d]!.dict)));
        part.forEach((d, j) => {
          this.setVector(d, vs[j]!);
          out.push([this.views[d]!.dict.id, vs[j]!]);
        });
      }
      await this.writeVectors(out, this.embedder.model);
    }
  }

  private setVector(doc: number, v: Float32Array): void {
    this.vectors ??= new VectorIndex(v.length, Math.max(1024, this.views.length));
    this.vectors.set(doc, v);
  }

  private async storedVectors(model: string): Promise<Map<string, Float32Array>> {
    const rows = await this.db.all<{ id: string; vec: Uint8Array }>('SELECT thread_id::VARCHAR AS id, vec FROM forum_embeddings WHERE model = $1', [model]);
    return new Map(rows.map((r) => [r.id, toF32(r.vec)]));
  }

  private async writeVectors(vs: [string, Float32Array][], model: string): Promise<void> {
    if (!vs.length) return;
    await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'forum_embeddings',
        [
          ['thread_id', 'varchar'],
          ['model', 'varchar'],
          ['dim', 'int'],
          ['vec', 'blob'],
        ],
        vs.map(([id, v]) => [id, model, v.length, new Uint8Array(v.buffer, v.byteOffset, v.byteLength)]),
      );
      await conn.run(`MERGE INTO forum_embeddings t USING ${stg} s ON t.thread_id = s.thread_id::UUID
        WHEN MATCHED THEN UPDATE SET model = s.model, dim = s.dim, vec = s.vec
        WHEN NOT MATCHED THEN INSERT (thread_id, model, dim, vec) VALUES (s.thread_id::UUID, s.model, s.dim, s.vec)`);
    });
  }

  // ---- search

  /** Forum search (see the file comment); the threads best first. */
  async search(p: ForumSearchParams, opts: { now?: number } = {}): Promise<RedditThread[]> {
    const now = opts.now ?? this.clock();
    const span = TIME_FILTER_MS[p.time_filter] ?? null;
    const accept =
      span === null
        ? undefined
        : (d: number) => {
            const t = this.views[d]!.date;
            return t >= now - span && t <= now;
          };
    const text = p.keywords.join(' ');
    let hits: { docs: ArrayLike<number>; scores: ArrayLike<number> };
    if (p.method === 'nl' && this.embedder && this.vectors) {
      const [q] = await this.embedder.embed([text]);
      const qv = normalised(q!);
      hits = this.vectors.search(qv, { candidates: null, accept, threshold: p.sort === 'relevance' ? -Infinity : this.embedder.relevantCosine, exact: true });
    } else {
      hits = this.bm25.score(terms(text), accept);
    }
    return this.rank(hits, p.sort, p.n_threads).map((d) => this.views[d]!.dict);
  }

  private rank(hits: { docs: ArrayLike<number>; scores: ArrayLike<number> }, sort: ForumSearchParams['sort'], n: number): number[] {
    const key = (d: number): number => {
      const v = this.views[d]!;
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
  related(headline: string, keywords: string[], n: number): RedditThread[] {
    if (n <= 0 || this.views.length === 0) return [];
    const head = [...new Set(terms(headline))];
    if (head.length === 0) return [];
    const matched = new Map<number, number>();
    for (const t of head) {
      const { docs } = this.bm25.score([t]);
      for (const d of docs) matched.set(d, (matched.get(d) ?? 0) + 1);
    }
    const need = Math.min(2, head.length);
    const { docs, scores } = this.bm25.score([...head, ...terms(keywords.join(' '))], (d) => (matched.get(d) ?? 0) >= need);
    return this.rank({ docs, scores }, 'relevance', n).map((d) => this.views[d]!.dict);
  }
}

function normalised(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
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
