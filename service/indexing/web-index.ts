/**
 * The service's own web index: every page URL indexing fetched (articles and other pages), by
 * owner and canonical URL, in the store (`web_pages`) and in memory for search. BM25 (k1 1.2,
 * b 0.75) over the title (counted twice) and the text; a page fetched again for the same owner
 * replaces its old version. A page's owner ('' for the shared web index) is the only one who finds
 * it (`rank`'s `viewer`).
 */
import type { Db } from '../store/db.js';
import { Bm25Index } from '../search/bm25.js';
import { terms } from '../text/tokenize.js';
import { bodyHash } from './canonical.js';

export interface WebPage {
  /** who finds it: '' the shared web index, else the owner of the indexing job (`org:<id>` / `user:<id>`) */
  owner: string;
  /** canonical URL (the key, with the owner) */
  url: string;
  /** the URL the page was read from, after redirects */
  finalUrl: string;
  domain: string;
  title: string;
  text: string;
  siteName: string | null;
  language: string | null;
  published: Date | null;
  fetchedAt: Date;
  isArticle: boolean;
  articleId: string | null;
}

export interface WebPageExtras {
  jobId: string | null;
  metadata: Record<string, unknown> | null;
  enrichments: Record<string, unknown> | null;
}

/** BM25 sees at most this much of a page's text (the whole text stays stored). */
const INDEXED_CHARS = 50_000;

/** Index terms of a page: stemmed for English, unstemmed otherwise (as the news index does). */
const pageTerms = (p: WebPage) => terms(`${p.title}\n${p.title}\n${p.text.slice(0, INDEXED_CHARS)}`, p.language === 'en' ? 'en' : (p.language ?? 'en'));

/** Query terms match pages in any language: English stems and the words as written. */
export const queryTerms = (q: string): string[] => [...new Set([...terms(q, 'en'), ...terms(q, 'und')])];

type Row = Record<string, unknown>;
const keyOf = (owner: string, url: string) => `${owner}\u0000${url}`;
const fromRow = (r: Row): WebPage => ({
  owner: String(r.owner),
  url: String(r.page_url),
  finalUrl: String(r.final_url),
  domain: String(r.domain),
  title: String(r.title),
  text: String(r.text),
  siteName: (r.site_name as string | null) ?? null,
  language: (r.language as string | null) ?? null,
  published: r.pub_ms == null ? null : new Date(Number(r.pub_ms)),
  fetchedAt: new Date(Number(r.fetched_ms)),
  isArticle: !!r.is_article,
  articleId: (r.article_id as string | null) ?? null,
});

export class WebIndex {
  /** doc id -> page; a replaced page leaves null behind */
  private docs: (WebPage | null)[] = [];
  /** owner NUL canonical URL -> doc id */
  private byUrl = new Map<string, number>();
  /** owner NUL content hash (`bodyHash`) of an article page's text -> its canonical URL */
  private byBody = new Map<string, string>();
  private bm25 = new Bm25Index();

  private constructor(readonly db: Db) {}

  static async open(db: Db): Promise<WebIndex> {
    const ix = new WebIndex(db);
    const rows = await db.all<Row>(`SELECT owner, page_url, final_url, domain, title, text, site_name, language, epoch_ms(published) AS pub_ms,
      epoch_ms(fetched_at) AS fetched_ms, is_article, article_id::VARCHAR AS article_id FROM web_pages ORDER BY fetched_at, page_url`);
    for (const r of rows) ix.addToMemory(fromRow(r));
    return ix;
  }

  /** Pages held (the current version of each URL). */
  get size(): number {
    return this.byUrl.size;
  }

  /** The page of `url` in the shared web index, or `owner`'s own. */
  get(url: string, owner = ''): WebPage | undefined {
    const d = this.byUrl.get(keyOf(owner, url));
    return d === undefined ? undefined : (this.docs[d] ?? undefined);
  }

  /** The article page of `owner` ('' the shared web index) whose text has the content hash `hash`, if any. */
  articleWithBody(hash: string, owner = ''): WebPage | undefined {
    const url = this.byBody.get(keyOf(owner, hash));
    return url === undefined ? undefined : this.get(url, owner);
  }

  private addToMemory(p: WebPage): void {
    const key = keyOf(p.owner, p.url);
    const old = this.byUrl.get(key);
    if (old !== undefined) this.docs[old] = null;
    const h = p.isArticle && p.articleId ? bodyHash(p.text) : null;
    if (h && !this.byBody.has(keyOf(p.owner, h))) this.byBody.set(keyOf(p.owner, h), p.url);
    const doc = this.docs.length;
    this.docs.push(p);
    this.byUrl.set(key, doc);
    this.bm25.add(doc, pageTerms(p));
  }

  /** Store a fetched page (replacing the owner's page of the same URL) and make it searchable. */
  async put(p: WebPage, extras: WebPageExtras): Promise<void> {
    const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
    await this.db.run(
      `INSERT OR REPLACE INTO web_pages (page_url, final_url, domain, title, text, site_name, language, published, fetched_at, is_article,
         article_id, job_id, metadata, enrichments, owner)
       VALUES ($1, $2, $3, $4, $5, $6, $7, make_timestamp($8::BIGINT), make_timestamp($9::BIGINT), $10, $11::UUID, $12::UUID, $13::JSON, $14::JSON, $15)`,
      [
        p.url,
        p.finalUrl,
        p.domain,
        p.title,
        p.text,
        p.siteName,
        p.language,
        p.published ? p.published.getTime() * 1000 : null,
        p.fetchedAt.getTime() * 1000,
        p.isArticle,
        p.articleId,
        extras.jobId,
        json(extras.metadata),
        json(extras.enrichments),
        p.owner,
      ] as never,
    );
    this.addToMemory(p);
  }

  /**
   * Pages `viewer` may find (the shared ones and its own; null: the shared ones) that pass
   * `accept`, best first: BM25 over the query's terms (a page with none of them is not a match);
   * an empty query: every page, newest first. Ties by URL.
   */
  rank(query: string, accept: (p: WebPage) => boolean, viewer: string | null = null): { page: WebPage; score: number }[] {
    const mine = (p: WebPage) => p.owner === '' || p.owner === viewer;
    const ok = (p: WebPage) => mine(p) && accept(p);
    const qt = queryTerms(query);
    const out: { page: WebPage; score: number }[] = [];
    if (qt.length === 0) {
      for (const p of this.docs) if (p && ok(p)) out.push({ page: p, score: 0 });
      const when = (p: WebPage) => (p.published ?? p.fetchedAt).getTime();
      out.sort((a, b) => when(b.page) - when(a.page) || (a.page.url < b.page.url ? -1 : 1));
      return out;
    }
    const r = this.bm25.score(qt, (doc) => {
      const p = this.docs[doc];
      return !!p && ok(p);
    });
    for (let i = 0; i < r.docs.length; i++) out.push({ page: this.docs[r.docs[i]!]!, score: r.scores[i]! });
    out.sort((a, b) => b.score - a.score || (a.page.url < b.page.url ? -1 : 1));
    return out;
  }
}
