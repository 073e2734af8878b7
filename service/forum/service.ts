/**
 * Forum threads and forum search (DeepNews, forecast use_reddit, stories reddit, the forum
 * routes): ForumService loads sources into the store (./store.ts, DuckDB), builds the index
 * (./index.ts) from it and searches it (./search.ts).
 */
import fs from 'node:fs';
import type { Db } from '../store/db.js';
import type { Embedder } from '../search/embedder.js';
import type { RedditThread } from '../../spec/index.js';
import { forumFiles, readPostCommentFile, readPushshift, type ForumRecord, type ReadProblem } from './read.js';
import { ForumStore, type Counts } from './store.js';
import { embeddingText, ForumIndex, type ForumTimeline } from './index.js';
import { relatedThreads, searchForum, type ForumSearchParams } from './search.js';

const WRITE_BATCH = 1000;

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

export class ForumService {
  readonly store: ForumStore;
  private index = new ForumIndex();
  /** dates are moved onto this timeline (null: the source's dates) */
  private timeline: ForumTimeline | null = null;

  private constructor(
    readonly db: Db,
    readonly embedder: Embedder | null,
    readonly clock: () => number,
    private readonly indexed: boolean,
  ) {
    this.store = new ForumStore(db);
  }

  /** Move the index's dates onto `timeline` (null: back to the source's dates); see ./index.ts. */
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
  static async open(db: Db, opts: { embedder?: Embedder | null; clock?: () => number; index?: boolean } = {}): Promise<ForumService> {
    const s = new ForumService(db, opts.embedder ?? null, opts.clock ?? Date.now, opts.index ?? true);
    if (s.indexed) await s.rebuild();
    return s;
  }

  get size(): number {
    return this.index.size;
  }

  /** Every thread, in the order of the index (tests, exports). */
  all(): RedditThread[] {
    return this.index.all();
  }

  get(id: string): RedditThread | undefined {
    return this.index.get(id);
  }

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
      const w = await this.store.write(batch);
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
    const enriched = await this.store.enrichChanged((n) => opts.onProgress?.('enrich', n));
    if (this.indexed) await this.rebuild();
    return {
      files: files.postComment.length + files.ndjson.length,
      threads,
      comments,
      enriched,
      stored: await this.store.counts(),
      problems,
    };
  }

  /** The index, rebuilt from the store; threads without a vector of the embedder's model are embedded and their vectors stored. */
  private async rebuild(): Promise<void> {
    const vectors = this.embedder ? await this.store.storedVectors(this.embedder.model) : new Map<string, Float32Array>();
    const { index, missing } = ForumIndex.build(await this.store.indexRows(), vectors, this.timeline);
    if (this.embedder && missing.length) {
      const out: [string, Float32Array][] = [];
      for (let i = 0; i < missing.length; i += 256) {
        const part = missing.slice(i, i + 256);
        const vs = await this.embedder.embed(part.map((d) => embeddingText(index.views[d]!.dict)));
        part.forEach((d, j) => {
          index.setVector(d, vs[j]!);
          out.push([index.views[d]!.dict.id, vs[j]!]);
        });
      }
      await this.store.writeVectors(out, this.embedder.model);
    }
    this.index = index;
  }

  /** Forum search (./search.ts); the threads best first. */
  search(p: ForumSearchParams, opts: { now?: number } = {}): Promise<RedditThread[]> {
    return searchForum(this.index, this.embedder, p, opts.now ?? this.clock());
  }

  /** Threads about a subject (a story update: its headline, then its keywords), best first. */
  related(headline: string, keywords: string[], n: number): RedditThread[] {
    return relatedThreads(this.index, headline, keywords, n);
  }
}
