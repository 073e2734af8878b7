/** The wiki tables of the service store (migration 8): articles, their chunks, chunk embeddings. */
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import { stage, micros } from '../store/bulk.js';
import type { WikiArticle } from './model.js';
import type { WikiChunk } from './chunk.js';

/** An article as the store keeps it: the loaded article without its sections (they are the chunks). */
export type StoredArticle = Omit<WikiArticle, 'sections' | 'source'> & { source: string };

export interface PreparedArticle {
  article: WikiArticle;
  chunks: WikiChunk[];
  /** one per chunk, when there is an embedder */
  vectors: Float32Array[] | null;
}

/** Hash of everything stored for an article: the same page loaded twice has the same hash. */
export function articleHash(a: WikiArticle): string {
  return crypto
    .createHash('sha1')
    .update(JSON.stringify({ ...a, timestamp: a.timestamp.getTime(), created: a.created?.getTime() ?? null }))
    .digest('hex');
}

const blob = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
const vec = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export class WikiRepo {
  constructor(readonly db: Db) {}

  /** content hashes of the given urls that are stored */
  async hashes(urls: string[]): Promise<Map<string, string>> {
    if (!urls.length) return new Map();
    const rows = await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'wiki_urls',
        [['url', 'varchar']],
        urls.map((u) => [u]),
      );
      return (await conn.runAndReadAll(`SELECT a.url, a.content_hash AS h FROM wiki_articles a JOIN ${stg} s USING (url)`)).getRowObjectsJS() as {
        url: string;
        h: string;
      }[];
    });
    return new Map(rows.map((r) => [r.url, r.h]));
  }

  /** Replace the articles (and their chunks and embeddings) in one transaction. */
  async write(batch: PreparedArticle[], model: string | null): Promise<void> {
    if (!batch.length) return;
    await this.db.withConnection(async (conn) => {
      const stgA = await stage(
        conn,
        'wiki_articles',
        [
          ['url', 'varchar'],
          ['title', 'varchar'],
          ['page_id', 'bigint'],
          ['revision_id', 'bigint'],
          ['wikibase_item', 'varchar'],
          ['categories', 'varchar[]'],
          ['ts', 'bigint'],
          ['created_at', 'bigint'],
          ['text_bytes', 'int'],
          ['links', 'varchar[]'],
          ['source', 'varchar'],
          ['content_hash', 'varchar'],
        ],
        batch.map(({ article: a }) => [
          a.url,
          a.title,
          a.pageId,
          a.revisionId,
          a.wikibaseItem,
          a.categories,
          micros(a.timestamp),
          micros(a.created),
          a.textBytes,
          a.links,
          a.source,
          articleHash(a),
        ]),
      );
      const stgC = await stage(
        conn,
        'wiki_chunks',
        [
          ['point_id', 'varchar'],
          ['url', 'varchar'],
          ['seq', 'int'],
          ['section', 'varchar'],
          ['level', 'int'],
          ['content', 'varchar'],
        ],
        batch.flatMap((b) => b.chunks.map((c) => [c.pointId, c.url, c.seq, c.section, c.level, c.content])),
      );
      const stgV = await stage(
        conn,
        'wiki_embeddings',
        [
          ['point_id', 'varchar'],
          ['model', 'varchar'],
          ['vec', 'blob'],
        ],
        model ? batch.flatMap((b) => (b.vectors ? b.chunks.map((c, i) => [c.pointId, model, blob(b.vectors![i]!)]) : [])) : [],
      );
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(`DELETE FROM wiki_embeddings WHERE point_id IN (SELECT point_id FROM wiki_chunks WHERE url IN (SELECT url FROM ${stgA}))`);
        await conn.run(`DELETE FROM wiki_chunks WHERE url IN (SELECT url FROM ${stgA})`);
        await conn.run(`DELETE FROM wiki_articles WHERE url IN (SELECT url FROM ${stgA})`);
        await conn.run(
          `INSERT INTO wiki_articles SELECT url, title, page_id, revision_id, wikibase_item, categories, make_timestamp(ts), make_timestamp(created_at), text_bytes, links, source, content_hash FROM ${stgA}`,
        );
        await conn.run(`INSERT INTO wiki_chunks SELECT * FROM ${stgC}`);
        await conn.run(`INSERT INTO wiki_embeddings SELECT * FROM ${stgV}`);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    });
  }

  async writeEmbeddings(rows: [pointId: string, v: Float32Array][], model: string): Promise<void> {
    if (!rows.length) return;
    await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'wiki_embeddings',
        [
          ['point_id', 'varchar'],
          ['model', 'varchar'],
          ['vec', 'blob'],
        ],
        rows.map(([p, v]) => [p, model, blob(v)]),
      );
      await conn.run(`DELETE FROM wiki_embeddings WHERE model = '${model.replace(/'/g, "''")}' AND point_id IN (SELECT point_id FROM ${stg})`);
      await conn.run(`INSERT INTO wiki_embeddings SELECT * FROM ${stg}`);
    });
  }

  async articles(urls?: string[]): Promise<StoredArticle[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT url, title, page_id, revision_id, wikibase_item, categories, epoch_ms(ts) AS ts, epoch_ms(created_at) AS created, text_bytes, links, source FROM wiki_articles
       ${urls ? 'WHERE url IN (SELECT unnest($1::VARCHAR[]))' : ''} ORDER BY title, url`,
      urls ? [urls as never] : undefined,
    );
    return rows.map((r) => ({
      url: r.url as string,
      title: r.title as string,
      pageId: r.page_id == null ? null : Number(r.page_id),
      revisionId: r.revision_id == null ? null : Number(r.revision_id),
      wikibaseItem: (r.wikibase_item as string | null) ?? null,
      categories: (r.categories as string[]) ?? [],
      timestamp: new Date(Number(r.ts)),
      created: r.created == null ? null : new Date(Number(r.created)),
      textBytes: Number(r.text_bytes),
      links: (r.links as string[]) ?? [],
      source: r.source as string,
    }));
  }

  async chunks(urls?: string[]): Promise<WikiChunk[]> {
    const rows = await this.db.all<{ point_id: string; url: string; seq: number; section: string; level: number; content: string }>(
      `SELECT point_id, url, seq, section, level, content FROM wiki_chunks ${urls ? 'WHERE url IN (SELECT unnest($1::VARCHAR[]))' : ''} ORDER BY url, seq`,
      urls ? [urls as never] : undefined,
    );
    return rows.map((r) => ({ pointId: r.point_id, url: r.url, seq: Number(r.seq), section: r.section, level: Number(r.level), content: r.content }));
  }

  async embeddings(model: string, urls?: string[]): Promise<Map<string, Float32Array>> {
    const rows = await this.db.all<{ p: string; vec: Uint8Array }>(
      `SELECT e.point_id AS p, e.vec FROM wiki_embeddings e ${urls ? 'JOIN wiki_chunks c USING (point_id) WHERE c.url IN (SELECT unnest($2::VARCHAR[])) AND' : 'WHERE'} e.model = $1`,
      urls ? [model, urls as never] : [model],
    );
    return new Map(rows.map((r) => [r.p, vec(r.vec)]));
  }

  async counts(): Promise<{ articles: number; chunks: number; embeddings: number }> {
    const r = await this.db.one<{ a: bigint; c: bigint; e: bigint }>(
      'SELECT (SELECT count(*) FROM wiki_articles) AS a, (SELECT count(*) FROM wiki_chunks) AS c, (SELECT count(*) FROM wiki_embeddings) AS e',
    );
    return { articles: Number(r!.a), chunks: Number(r!.c), embeddings: Number(r!.e) };
  }
}
