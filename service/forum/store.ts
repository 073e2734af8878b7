/**
 * The forum store: threads and comments in the service's DuckDB (migration 9), their enrichment
 * and embeddings. DuckDB only; the index is ./index.ts, search ./search.ts, and ./service.ts
 * (ForumService) loads, indexes and searches.
 *
 * Loading: every source record is merged by key (a thread by its thread id, a comment by its id)
 * in batches, one transaction each; a record whose source values did not change is left alone,
 * so loading twice changes nothing. Then the threads whose source values or comments changed are
 * enriched (./enrich.ts) in batches of 500.
 */
import type { Db } from '../store/db.js';
import { micros, stage, type ColSpec } from '../store/bulk.js';
import { rowHash, type CommentRow, type ForumRecord, type ThreadRow } from './read.js';
import { docFreqOfThreads, enrichThread, FORUM_ENRICHMENT_VERSION, type ThreadText } from './enrich.js';

/** Comments a thread shows (its most upvoted; comments_count counts all). */
export const SHOWN_COMMENTS = 25;
const ENRICH_BATCH = 500;

export interface Counts {
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

/** An enriched thread as the index reads it. */
export interface ThreadIndexRow {
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
}
export interface ShownCommentRow {
  key: string;
  author: string;
  body: string;
  ms: number;
  upvotes: number;
  derived: string[];
}
export interface KarmaRow {
  author: string;
  link: bigint | null;
  comment: bigint | null;
}
export interface IndexRows {
  rows: ThreadIndexRow[];
  comments: ShownCommentRow[];
  karma: KarmaRow[];
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

export class ForumStore {
  constructor(readonly db: Db) {}

  /** Merge one batch of records (last record of a key wins). */
  async write(records: ForumRecord[]): Promise<{ threads: Omit<Counts, 'read'>; comments: Omit<Counts, 'read'> }> {
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
  async enrichChanged(onProgress?: (n: number) => void): Promise<number> {
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

  /** What the index is built from: the enriched threads (oldest first) with their comment counts, the shown comments, the authors' karma. */
  async indexRows(): Promise<IndexRows> {
    const rows = await this.db.all<ThreadIndexRow>(`
      WITH n AS (SELECT thread_key, count(*) AS n FROM forum_comments GROUP BY 1)
      SELECT t.thread_id::VARCHAR AS id, t.thread_key AS key, t.source AS src, subreddit AS sub, title, body, author, author_link_karma AS lk, author_comment_karma AS ck,
        epoch_ms(date) AS ms, upvotes, url, comments_count AS cc, derived, summary, key_takeaways AS kt, main_speculation AS ms2, keywords,
        entities::VARCHAR AS entities, sentiment, classification, topic, language, n.n AS n
      FROM forum_threads t LEFT JOIN n ON n.thread_key = t.thread_key
      WHERE t.enriched_hash IS NOT NULL ORDER BY t.date, t.thread_id`);
    const comments = await this.db.all<ShownCommentRow>(`
      SELECT thread_key AS key, author, body, epoch_ms(date) AS ms, upvotes, derived FROM (
        SELECT *, row_number() OVER (PARTITION BY thread_key ORDER BY upvotes DESC, seq, comment_key) AS rn FROM forum_comments)
      WHERE rn <= ${SHOWN_COMMENTS} ORDER BY thread_key, rn`);
    const karma = await this.db.all<KarmaRow>(`
      WITH l AS (SELECT author, sum(upvotes) AS s FROM forum_threads GROUP BY 1), c AS (SELECT author, sum(upvotes) AS s FROM forum_comments GROUP BY 1)
      SELECT coalesce(l.author, c.author) AS author, l.s AS link, c.s AS comment FROM l FULL OUTER JOIN c ON l.author = c.author`);
    return { rows, comments, karma };
  }

  async storedVectors(model: string): Promise<Map<string, Float32Array>> {
    const rows = await this.db.all<{ id: string; vec: Uint8Array }>('SELECT thread_id::VARCHAR AS id, vec FROM forum_embeddings WHERE model = $1', [model]);
    return new Map(rows.map((r) => [r.id, toF32(r.vec)]));
  }

  async writeVectors(vs: [string, Float32Array][], model: string): Promise<void> {
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

  /** How many threads and comments the store holds. */
  async counts(): Promise<{ threads: number; comments: number }> {
    const [n] = await this.db.all<{ t: bigint; c: bigint }>('SELECT (SELECT count(*) FROM forum_threads) AS t, (SELECT count(*) FROM forum_comments) AS c');
    return { threads: Number(n!.t), comments: Number(n!.c) };
  }
}
