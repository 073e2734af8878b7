/**
 * The encyclopedia capability: the wiki tables of the store, their in-memory index, loading and
 * search. The service opens it (Services.wiki); the DeepNews agent calls `search` directly.
 */
import type { Db } from '../store/db.js';
import type { Embedder } from '../search/embedder.js';
import { WikiRepo, type PreparedArticle } from './store.js';
import { WikiIndex, wikiParams, type WikiDoc, type WikiSearchParams } from './search.js';
import { loadWiki, type LoadReport } from './load.js';
import { embeddingText } from './chunk.js';

/** The current or last load started through the service (POST /v1/admin/wiki/load). */
export interface WikiLoadJob {
  state: 'idle' | 'running' | 'done' | 'failed';
  path: string | null;
  started_at: string | null;
  finished_at: string | null;
  report: LoadReport | null;
  error: string | null;
}

export class WikiService {
  readonly repo: WikiRepo;
  private job: WikiLoadJob = { state: 'idle', path: null, started_at: null, finished_at: null, report: null, error: null };
  private running: Promise<void> | null = null;
  readonly index = new WikiIndex();
  private constructor(
    db: Db,
    readonly embedder: Embedder | null,
  ) {
    this.repo = new WikiRepo(db);
  }

  /** Build the index from the store; chunks without vectors of this model are embedded now. */
  static async open(db: Db, opts: { embedder: Embedder | null }): Promise<WikiService> {
    const w = new WikiService(db, opts.embedder);
    const articles = await w.repo.articles();
    if (!articles.length) return w;
    const chunks = await w.repo.chunks();
    const vectors = w.embedder ? await w.repo.embeddings(w.embedder.model) : new Map<string, Float32Array>();
    if (w.embedder) {
      const titles = new Map(articles.map((a) => [a.url, a.title]));
      const missing = chunks.filter((c) => !vectors.has(c.pointId));
      for (let i = 0; i < missing.length; i += 128) {
        const part = missing.slice(i, i + 128);
        const vs = await w.embedder.embed(part.map((c) => embeddingText(titles.get(c.url) ?? '', c)));
        await w.repo.writeEmbeddings(
          part.map((c, k) => [c.pointId, vs[k]!]),
          w.embedder.model,
        );
        part.forEach((c, k) => vectors.set(c.pointId, vs[k]!));
      }
    }
    const byUrl = new Map<string, typeof chunks>();
    for (const c of chunks) (byUrl.get(c.url) ?? byUrl.set(c.url, []).get(c.url)!).push(c);
    for (const a of articles) {
      const cs = byUrl.get(a.url) ?? [];
      w.index.put(
        a,
        cs,
        cs.map((c) => vectors.get(c.pointId) ?? null),
      );
    }
    return w;
  }

  /** Load a dump, a saved page or a folder of them into the store and the index. */
  async load(target: string, opts: { onProgress?: (r: LoadReport, file: string) => void } = {}): Promise<LoadReport> {
    return loadWiki(this.repo, target, {
      embedder: this.embedder,
      onProgress: opts.onProgress,
      onWritten: (b) => this.indexBatch(b),
      signal: this.stopping.signal,
    });
  }

  /** The load in the background (one at a time); its state is `loadStatus()`. False when one runs already. */
  startLoad(target: string): boolean {
    if (this.running) return false;
    this.job = { state: 'running', path: target, started_at: new Date().toISOString(), finished_at: null, report: null, error: null };
    const job = this.job;
    this.running = this.load(target, { onProgress: (r) => (job.report = { ...r, problems: [...r.problems] }) })
      .then((r) => {
        job.state = 'done';
        job.report = r;
      })
      .catch((e: Error) => {
        job.state = 'failed';
        job.error = e.message;
      })
      .finally(() => {
        job.finished_at = new Date().toISOString();
        this.running = null;
      });
    return true;
  }

  loadStatus(): WikiLoadJob {
    return { ...this.job };
  }

  private readonly stopping = new AbortController();
  /** Stop a background load at its next page and wait for it (service shutdown). */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private indexBatch(batch: PreparedArticle[]): void {
    for (const { article: a, chunks, vectors } of batch) {
      this.index.put(
        {
          url: a.url,
          title: a.title,
          pageId: a.pageId,
          revisionId: a.revisionId,
          wikibaseItem: a.wikibaseItem,
          categories: a.categories,
          timestamp: a.timestamp,
          created: a.created,
          textBytes: a.textBytes,
          links: a.links,
          source: a.source,
        },
        chunks,
        vectors ?? chunks.map(() => null),
      );
    }
  }

  /**
   * Search: the parameters of GET /v1/wiki/search (absent ones take the interface's defaults), or,
   * as the DeepNews agent calls capabilities, a question and `{limit}` (= n_documents); items then
   * carry the passage as `text` too.
   */
  async search(q: Partial<{ [K in keyof WikiSearchParams]: WikiSearchParams[K] | null }>): Promise<WikiDoc[]>;
  async search(q: string, opts?: { limit?: number }): Promise<(WikiDoc & { text: string })[]>;
  async search(q: string | Partial<{ [K in keyof WikiSearchParams]: WikiSearchParams[K] | null }>, opts: { limit?: number } = {}): Promise<WikiDoc[]> {
    const asked = typeof q === 'string';
    const p = wikiParams(asked ? { query: q, n_documents: Math.min(20, Math.max(1, Math.floor(opts.limit ?? 5))) } : q);
    const qv = p.query.trim() && this.embedder && this.index.vectors ? (await this.embedder.embed([p.query.trim()]))[0]! : null;
    const docs = this.index.search(p, qv);
    return asked ? docs.map((d) => ({ ...d, text: d.content })) : docs;
  }
}
