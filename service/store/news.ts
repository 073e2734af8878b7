/** Articles, their children, publishers and hit events in the service store. */
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Db } from './db.js';
import { micros, stage, type ColSpec } from './bulk.js';
import type { LoadedArticle, NewsArticle } from '../article/model.js';
import { ENTITY_TYPES, type EntityType } from '../../spec/index.js';

const ARTICLE_COLS: readonly ColSpec[] = [
  ['article_id', 'varchar'],
  ['source', 'varchar'],
  ['source_key', 'varchar'],
  ['article_url', 'varchar'],
  ['domain_url', 'varchar'],
  ['title', 'varchar'],
  ['eng_title', 'varchar'],
  ['summary', 'varchar'],
  ['key_points', 'varchar[]'],
  ['keywords', 'varchar[]'],
  ['full_text', 'varchar'],
  ['language', 'varchar'],
  ['pub_date', 'bigint'],
  ['crawl_date', 'bigint'],
  ['classification', 'varchar[]'],
  ['sentiment', 'int'],
  ['provocative', 'varchar'],
  ['reporting_voice', 'varchar'],
  ['content_type', 'varchar'],
  ['bias', 'varchar'],
  ['country', 'varchar'],
  ['continent', 'varchar'],
  ['page_rank', 'int'],
  ['source_id', 'varchar'],
  ['authors', 'varchar'],
  ['is_podcast', 'bool'],
  ['is_premium', 'bool'],
  ['centroid_distance', 'double'],
  ['cluster_probability', 'double'],
  ['entities', 'varchar'],
  ['geo_coordinates', 'varchar'],
  ['n_terms', 'int'],
  ['url_derived', 'bool'],
  ['date_derived', 'bool'],
  ['content_hash', 'varchar'],
  ['image_url', 'varchar'],
  ['owner', 'varchar'],
];

function articleRow(a: NewsArticle): unknown[] {
  return [
    a.articleId,
    a.source,
    a.sourceKey,
    a.url,
    a.domain,
    a.title,
    a.engTitle,
    a.summary,
    a.keyPoints,
    a.keywords,
    a.fullText,
    a.language,
    micros(a.pubDate),
    micros(a.crawlDate),
    a.classification,
    a.sentiment,
    a.provocative,
    a.reportingVoice,
    a.contentType,
    a.bias,
    a.country,
    a.continent,
    a.pageRank,
    a.sourceId,
    a.authors ? JSON.stringify(a.authors) : null,
    a.isPodcast,
    a.isPremium,
    a.centroidDistance,
    a.clusterProbability,
    JSON.stringify(a.entities),
    a.geo ? JSON.stringify(a.geo) : null,
    a.nTerms,
    a.urlDerived,
    a.dateDerived,
    a.contentHash,
    a.imageUrl ?? null,
    a.owner ?? null,
  ];
}

const selectCols = (full: boolean) => `article_id::VARCHAR AS article_id, source, source_key, article_url, domain_url, title, eng_title, summary,
  key_points, keywords, ${full ? 'full_text' : 'NULL AS full_text'}, language, epoch_ms(pub_date) AS pub_ms, epoch_ms(crawl_date) AS crawl_ms,
  classification, sentiment, provocative, reporting_voice, content_type, bias, country, continent, page_rank, source_id,
  authors::VARCHAR AS authors, is_podcast, is_premium, centroid_distance, cluster_probability, entities::VARCHAR AS entities,
  geo_coordinates::VARCHAR AS geo, n_terms, url_derived, date_derived, content_hash, image_url, owner`;

type Row = Record<string, unknown>;
function fromRow(r: Row): NewsArticle {
  const ents = JSON.parse(String(r.entities)) as Partial<Record<EntityType, string[]>>;
  const entities = Object.fromEntries(ENTITY_TYPES.map((t) => [t, ents[t] ?? []])) as Record<EntityType, string[]>;
  return {
    articleId: String(r.article_id),
    source: String(r.source),
    sourceKey: String(r.source_key),
    url: String(r.article_url),
    domain: String(r.domain_url),
    title: String(r.title),
    engTitle: String(r.eng_title),
    summary: String(r.summary),
    keyPoints: (r.key_points as string[]) ?? [],
    keywords: (r.keywords as string[]) ?? [],
    fullText: (r.full_text as string | null) ?? null,
    language: String(r.language),
    pubDate: new Date(Number(r.pub_ms)),
    crawlDate: r.crawl_ms == null ? null : new Date(Number(r.crawl_ms)),
    classification: (r.classification as string[]) ?? [],
    sentiment: Number(r.sentiment),
    provocative: String(r.provocative),
    reportingVoice: String(r.reporting_voice),
    contentType: String(r.content_type),
    bias: String(r.bias),
    country: String(r.country),
    continent: (r.continent as string | null) ?? null,
    pageRank: Number(r.page_rank),
    sourceId: String(r.source_id),
    authors: r.authors ? JSON.parse(String(r.authors)) : null,
    isPodcast: !!r.is_podcast,
    isPremium: !!r.is_premium,
    centroidDistance: Number(r.centroid_distance),
    clusterProbability: Number(r.cluster_probability),
    entities,
    geo: r.geo ? JSON.parse(String(r.geo)) : null,
    nTerms: Number(r.n_terms),
    urlDerived: !!r.url_derived,
    dateDerived: !!r.date_derived,
    contentHash: String(r.content_hash),
    imageUrl: (r.image_url as string | null) ?? null,
    owner: (r.owner as string | null) ?? null,
  };
}

const toF32 = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export interface HitEvent {
  ts: Date;
  kind: 'surface' | 'citation' | 'full_text' | 'grounded';
  keyId: string | null;
  orgId: string | null;
  domain: string;
  articleId: string;
  query: string | null;
  synthetic?: boolean;
}

interface LookupBatch {
  keys: Set<string>;
  done: Promise<Map<string, NewsArticle | null>>;
}
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** articles kept by `byIds` (a few KB each) */
const LOOKUP_CACHE = 5_000;

export class NewsStore {
  /** lookups read at the articles table's write generation `lookupGen` (see `byIds`) */
  private readonly lookups = new Map<string, NewsArticle | null>();
  private lookupGen = '';
  /** the lookup batch waiting for the connection (see `lookupBatch`) */
  private batch: LookupBatch | null = null;
  constructor(readonly db: Db) {}

  /** article_id -> content_hash and pub_date (epoch ms) of what is stored. */
  async hashes(): Promise<Map<string, { hash: string; pubMs: number }>> {
    const rows = await this.db.all<{ id: string; h: string; ms: number }>(
      'SELECT article_id::VARCHAR AS id, content_hash AS h, epoch_ms(pub_date) AS ms FROM articles',
    );
    return new Map(rows.map((r) => [r.id, { hash: r.h, pubMs: Number(r.ms) }]));
  }

  /** Move dates of unchanged articles (a rebased reload); crawl_date follows pub_date unless held back. */
  async moveDates(rows: { id: string; pubMs: number }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'dates',
        [
          ['article_id', 'varchar'],
          ['pub', 'bigint'],
        ],
        rows.map((r) => [r.id, r.pubMs * 1000]),
      );
      await conn.run(`UPDATE articles SET pub_date = make_timestamp(s.pub), crawl_date = CASE WHEN articles.crawl_date IS NULL THEN NULL ELSE make_timestamp(s.pub) END
        FROM ${stg} s WHERE articles.article_id = s.article_id::UUID`);
    });
  }

  /**
   * Upsert articles with their entities, postings and embeddings in one transaction: appender
   * into staging, then MERGE for articles and replace-by-article for the children.
   */
  async write(batch: LoadedArticle[], model: string | null): Promise<{ inserted: number; updated: number }> {
    if (batch.length === 0) return { inserted: 0, updated: 0 };
    return this.db.withConnection(async (conn) => {
      const stgA = await stage(
        conn,
        'articles',
        ARTICLE_COLS,
        batch.map((b) => articleRow(b.article)),
      );
      const ents: unknown[][] = [];
      const posts: unknown[][] = [];
      const vecs: unknown[][] = [];
      for (const { article: a, terms, embedding } of batch) {
        for (const t of ENTITY_TYPES) for (const v of a.entities[t]) ents.push([a.articleId, t, v]);
        const tf = new Map<string, number>();
        for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
        for (const [t, n] of tf) posts.push([t, a.articleId, n]);
        if (embedding && model) vecs.push([a.articleId, model, embedding.length, new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength)]);
      }
      const stgE = await stage(
        conn,
        'entities',
        [
          ['article_id', 'varchar'],
          ['type', 'varchar'],
          ['value', 'varchar'],
        ],
        ents,
      );
      const stgP = await stage(
        conn,
        'postings',
        [
          ['term', 'varchar'],
          ['article_id', 'varchar'],
          ['tf', 'int'],
        ],
        posts,
      );
      const stgV = await stage(
        conn,
        'embeddings',
        [
          ['article_id', 'varchar'],
          ['model', 'varchar'],
          ['dim', 'int'],
          ['vec', 'blob'],
        ],
        vecs,
      );
      await conn.run('BEGIN TRANSACTION');
      try {
        const before = Number(
          (await conn.runAndReadAll(`SELECT count(*) AS n FROM articles WHERE article_id IN (SELECT article_id::UUID FROM ${stgA})`)).getRowObjectsJS()[0]!.n,
        );
        const cols = ARTICLE_COLS.map(([c]) => c);
        const expr = (c: string) =>
          c === 'article_id'
            ? 's.article_id::UUID'
            : c === 'pub_date' || c === 'crawl_date'
              ? `make_timestamp(s.${c})`
              : c === 'authors' || c === 'entities' || c === 'geo_coordinates'
                ? `s.${c}::JSON`
                : `s.${c}`;
        await conn.run(`MERGE INTO articles t USING ${stgA} s ON t.article_id = s.article_id::UUID
          WHEN MATCHED THEN UPDATE SET ${cols
            .filter((c) => c !== 'article_id')
            .map((c) => `${c} = ${expr(c)}`)
            .join(', ')}, enriched_at = now()
          WHEN NOT MATCHED THEN INSERT (${cols.join(', ')}, enriched_at) VALUES (${cols.map(expr).join(', ')}, now())`);
        for (const [table, stg] of [
          ['article_entities', stgE],
          ['postings', stgP],
        ] as const) {
          await conn.run(`DELETE FROM ${table} WHERE article_id IN (SELECT article_id::UUID FROM ${stgA})`);
          await conn.run(`INSERT INTO ${table} SELECT * REPLACE (article_id::UUID AS article_id) FROM ${stg}`);
        }
        if (vecs.length) {
          await conn.run(`DELETE FROM embeddings WHERE article_id IN (SELECT article_id::UUID FROM ${stgV})`);
          await conn.run(`INSERT INTO embeddings SELECT article_id::UUID, model, dim, vec FROM ${stgV}`);
        }
        await conn.run('COMMIT');
        return { inserted: batch.length - before, updated: before };
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    });
  }

  async count(): Promise<{ total: number; indexed: number }> {
    const r = await this.db.one<{ total: bigint; indexed: bigint }>('SELECT count(*) AS total, count(crawl_date) AS indexed FROM articles');
    return { total: Number(r?.total ?? 0), indexed: Number(r?.indexed ?? 0) };
  }

  /** The newest enriched_at of the articles (epoch microseconds, 0 when none): what a saved index is as new as. */
  async watermark(): Promise<number> {
    const r = await this.db.one<{ w: bigint | null }>('SELECT epoch_us(max(enriched_at)) AS w FROM articles');
    return Number(r?.w ?? 0);
  }

  /**
   * What the search index is built from, streamed in chunks on a connection of its own (no read
   * of the whole corpus into JS at once, and the store's connection stays free meanwhile): first
   * `count`, then every article with its full text and its place `doc` in (crawl, pub, id)
   * order (the indexed ones first: doc < first + indexed), then each article's terms (a term
   * repeated tf times), then its embedding of `model`. Each handler gets one chunk (up to 2,048
   * rows) at a time; the next is read after it returns.
   *
   * `saved`: the documents a saved index holds (its doc, id and dates) and the watermark it was
   * saved at: only what it lacks is streamed (articles it does not hold, or whose row changed:
   * written after the watermark, or dates moved), placed from `first` on; `gone` first gets the
   * saved docs to take out of search (no longer stored, changed, or past the retention).
   * `retainFromMs`: indexed articles published before it are left out (the retention).
   */
  async streamIndex(
    model: string | null,
    on: {
      count(indexed: number, total: number): void;
      gone?(docs: number[]): void;
      articles(rows: { doc: number; a: NewsArticle }[]): void | Promise<void>;
      terms(rows: { doc: number; terms: string[] }[]): void | Promise<void>;
      vectors(rows: { doc: number; v: Float32Array }[]): void | Promise<void>;
    },
    opts: {
      saved?: { docs: { doc: number; id: string; pubMs: number; crawlMs: number | null }[]; watermarkUs: number; first: number };
      retainFromMs?: number | null;
    } = {},
  ): Promise<void> {
    const conn = await this.db.instance.connect();
    try {
      const each = async (sql: string, params: unknown[], fn: (rows: Row[]) => void | Promise<void>) => {
        const r = await conn.stream(sql, params as never);
        for await (const rows of r.yieldRowObjectJs()) await fn(rows as Row[]);
      };
      // held-back articles (no crawl_date yet) are kept whatever their date: a replay rebases it
      const retainOn = (t: string) =>
        opts.retainFromMs == null ? 'TRUE' : `(${t}crawl_date IS NULL OR ${t}pub_date >= make_timestamp(${Math.round(opts.retainFromMs) * 1000}::BIGINT))`;
      const retain = retainOn('');
      const saved = opts.saved;
      let first = 0;
      if (saved) {
        first = saved.first;
        const stg = await stage(
          conn,
          'saved_docs',
          [
            ['doc', 'int'],
            ['article_id', 'varchar'],
            ['pub', 'bigint'],
            ['crawl', 'bigint'],
          ],
          saved.docs.map((d) => [d.doc, d.id, d.pubMs, d.crawlMs]),
        );
        // the saved docs whose row is as saved (and within the retention): kept as they are
        await conn.run(`CREATE OR REPLACE TEMP TABLE index_kept AS
          SELECT s.doc, a.article_id FROM ${stg} s JOIN articles a ON a.article_id = s.article_id::UUID
          WHERE a.enriched_at <= make_timestamp(${Math.round(saved.watermarkUs)}::BIGINT) AND epoch_ms(a.pub_date) = s.pub
            AND a.crawl_date IS NOT NULL AND epoch_ms(a.crawl_date) = s.crawl AND ${retainOn('a.')}`);
        const gone = (await conn.runAndReadAll(`SELECT doc FROM ${stg} WHERE doc NOT IN (SELECT doc FROM index_kept) ORDER BY doc`)).getRowObjectsJS();
        on.gone?.(gone.map((r) => Number(r.doc)));
        await conn.run(`CREATE OR REPLACE TEMP TABLE index_order AS
          SELECT article_id, (${first} + row_number() OVER (ORDER BY crawl_date NULLS LAST, pub_date, article_id) - 1)::INTEGER AS doc FROM articles
          WHERE article_id NOT IN (SELECT article_id FROM index_kept) AND ${retain}`);
        await conn.run('DROP TABLE index_kept');
        await conn.run(`DELETE FROM ${stg}`);
      } else {
        await conn.run(`CREATE OR REPLACE TEMP TABLE index_order AS
          SELECT article_id, (row_number() OVER (ORDER BY crawl_date NULLS LAST, pub_date, article_id) - 1)::INTEGER AS doc FROM articles WHERE ${retain}`);
      }
      const c = (
        await conn.runAndReadAll('SELECT count(*) AS total, count(crawl_date) AS indexed FROM articles JOIN index_order USING (article_id)')
      ).getRowObjectsJS()[0]!;
      on.count(Number(c.indexed), Number(c.total));
      await each(`SELECT o.doc, ${selectCols(true)} FROM articles JOIN index_order o USING (article_id)`, [], (rows) =>
        on.articles(rows.map((r) => ({ doc: Number(r.doc), a: fromRow(r) }))),
      );
      await each('SELECT o.doc, list(term) AS terms, list(tf) AS tfs FROM postings JOIN index_order o USING (article_id) GROUP BY o.doc', [], (rows) =>
        on.terms(
          rows.map((r) => {
            const terms: string[] = [];
            (r.terms as string[]).forEach((t, i) => {
              for (let k = 0; k < Number((r.tfs as number[])[i]); k++) terms.push(t);
            });
            return { doc: Number(r.doc), terms };
          }),
        ),
      );
      if (model !== null) {
        await each('SELECT o.doc, vec FROM embeddings JOIN index_order o USING (article_id) WHERE model = $1', [model], (rows) =>
          on.vectors(rows.map((r) => ({ doc: Number(r.doc), v: toF32(r.vec as Uint8Array) }))),
        );
      }
      await conn.run('DROP TABLE index_order');
    } finally {
      conn.closeSync();
    }
  }

  /**
   * Export the indexed articles published before `beforeMs` (every column, full text included) to
   * one Parquet file in `dir`, then delete them and their entities, postings and embeddings from
   * the store (`newsflow serve --archive`: what is past the retention leaves the store for the
   * archive). Returns the file (null: nothing to archive) and how many articles it holds.
   */
  async archiveBefore(beforeMs: number, dir: string, stamp: string): Promise<{ file: string | null; articles: number }> {
    const before = `make_timestamp(${Math.round(beforeMs) * 1000}::BIGINT)`;
    const where = `crawl_date IS NOT NULL AND pub_date < ${before}`;
    const n = Number((await this.db.one<{ n: bigint }>(`SELECT count(*) AS n FROM articles WHERE ${where}`))?.n ?? 0);
    if (n === 0) return { file: null, articles: 0 };
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `articles-${stamp}.parquet`);
    const tmp = `${file}.tmp`;
    await this.db.withConnection(async (conn) => {
      await conn.run(`CREATE OR REPLACE TEMP TABLE archiving AS SELECT article_id FROM articles WHERE ${where}`);
      await conn.run(
        `COPY (SELECT * FROM articles WHERE article_id IN (SELECT article_id FROM archiving) ORDER BY pub_date, article_id) TO '${tmp.replaceAll("'", "''")}' (FORMAT parquet)`,
      );
      fs.renameSync(tmp, file);
      await conn.run('BEGIN TRANSACTION');
      try {
        for (const t of ['article_entities', 'postings', 'embeddings', 'articles'])
          await conn.run(`DELETE FROM ${t} WHERE article_id IN (SELECT article_id FROM archiving)`);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
      await conn.run('DROP TABLE archiving');
    });
    return { file, articles: n };
  }

  /**
   * Indexed articles (crawl_date set) by id, without full text unless `fullText`. Without full
   * text, what lookups read is kept (up to LOOKUP_CACHE articles, the oldest dropped first) for
   * as long as the articles table's write generation is the one it was read at (any statement
   * that may write the table drops it all), and the ids of concurrent lookups not kept are read
   * together, in one statement when the connection is free: DuckDB reads one wide row in
   * milliseconds, and lookups (GET /v1/news/{id}) queued one by one on the store's connection.
   */
  async byIds(ids: string[], fullText: boolean): Promise<NewsArticle[]> {
    if (ids.length === 0) return [];
    // kept under the canonical form only (any other spelling is read from the table); an id
    // asked twice (in two cases) is one article, as the table read gives it
    const keys = fullText ? null : [...new Set(ids.map((id) => id.toLowerCase()))];
    if (keys === null || !keys.every((k) => UUID_RE.test(k))) return this.readByIds(ids, fullText);
    const gen = this.db.generation('articles');
    if (this.lookupGen !== gen) {
      this.lookups.clear();
      this.lookupGen = gen;
    }
    let got = keys.map((k) => this.lookups.get(k));
    const missing = keys.filter((_, i) => got[i] === undefined);
    if (missing.length) {
      const read = await this.lookupBatch(missing);
      got = keys.map((k, i) => got[i] ?? read.get(k) ?? null);
    }
    return got.filter((a): a is NewsArticle => !!a);
  }

  private readByIds(ids: string[], fullText: boolean, conn?: DuckDBConnection): Promise<NewsArticle[]> {
    const sql = `SELECT ${selectCols(fullText)} FROM articles WHERE article_id IN (SELECT unnest(string_split($1, ','))::UUID) AND crawl_date IS NOT NULL`;
    if (conn) return conn.runAndReadAll(sql, [ids.join(',')]).then((r) => (r.getRowObjectsJS() as Row[]).map(fromRow));
    return this.db.all<Row>(sql, [ids.join(',')]).then((rows) => rows.map(fromRow));
  }

  /**
   * Read `keys` (canonical ids) with every other lookup waiting for the connection: the batch
   * open when this is called takes them, or a new one. Resolves to what was read (an id not
   * there: absent); kept for later lookups while the table's write generation stays the one the
   * batch read at.
   */
  private lookupBatch(keys: string[]): Promise<Map<string, NewsArticle | null>> {
    let b = this.batch;
    if (!b) {
      const batch: LookupBatch = { keys: new Set(), done: null! };
      batch.done = this.db.read(async (conn) => {
        if (this.batch === batch) this.batch = null; // closed: lookups from now on start the next one
        const gen = this.db.generation('articles');
        const ids = [...batch.keys];
        const found = new Map<string, NewsArticle | null>(ids.map((k) => [k, null]));
        for (const a of await this.readByIds(ids, false, conn)) found.set(a.articleId, a);
        if (this.db.generation('articles') === gen) {
          if (this.lookupGen !== gen) {
            this.lookups.clear();
            this.lookupGen = gen;
          }
          for (const [k, a] of found) {
            this.lookups.delete(k);
            this.lookups.set(k, a);
          }
          for (const k of this.lookups.keys()) {
            if (this.lookups.size <= LOOKUP_CACHE) break;
            this.lookups.delete(k);
          }
        }
        return found;
      });
      b = this.batch = batch;
    }
    for (const k of keys) b.keys.add(k);
    return b.done;
  }

  /** Postings grouped per article (the BM25 index is rebuilt from them at start). */
  async postings(): Promise<Map<string, string[]>> {
    const rows = await this.db.all<{ id: string; terms: string[]; tfs: number[] }>(
      `SELECT article_id::VARCHAR AS id, list(term) AS terms, list(tf) AS tfs FROM postings GROUP BY article_id`,
    );
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const terms: string[] = [];
      r.terms.forEach((t, i) => {
        for (let k = 0; k < Number(r.tfs[i]); k++) terms.push(t);
      });
      out.set(r.id, terms);
    }
    return out;
  }

  async embeddings(model: string): Promise<Map<string, Float32Array>> {
    const rows = await this.db.all<{ id: string; vec: Uint8Array }>(`SELECT article_id::VARCHAR AS id, vec FROM embeddings WHERE model = $1`, [model]);
    return new Map(rows.map((r) => [r.id, toF32(r.vec)]));
  }

  async postingsOf(ids: string[]): Promise<Map<string, string[]>> {
    const rows = await this.db.all<{ id: string; terms: string[]; tfs: number[] }>(
      `SELECT article_id::VARCHAR AS id, list(term) AS terms, list(tf) AS tfs FROM postings
       WHERE article_id IN (SELECT unnest(string_split($1, ','))::UUID) GROUP BY article_id`,
      [ids.join(',')],
    );
    return new Map(rows.map((r) => [r.id, r.terms.flatMap((t, i) => Array<string>(Number(r.tfs[i])).fill(t))]));
  }

  async embeddingsOf(ids: string[], model: string): Promise<Map<string, Float32Array>> {
    const rows = await this.db.all<{ id: string; vec: Uint8Array }>(
      `SELECT article_id::VARCHAR AS id, vec FROM embeddings WHERE model = $2 AND article_id IN (SELECT unnest(string_split($1, ','))::UUID)`,
      [ids.join(','), model],
    );
    return new Map(rows.map((r) => [r.id, toF32(r.vec)]));
  }

  async writeEmbeddings(rows: [string, Float32Array][], model: string): Promise<void> {
    if (rows.length === 0) return;
    await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'embeddings',
        [
          ['article_id', 'varchar'],
          ['model', 'varchar'],
          ['dim', 'int'],
          ['vec', 'blob'],
        ],
        rows.map(([id, v]) => [id, model, v.length, new Uint8Array(v.buffer, v.byteOffset, v.byteLength)]),
      );
      await conn.run('BEGIN TRANSACTION');
      await conn.run(`DELETE FROM embeddings WHERE article_id IN (SELECT article_id::UUID FROM ${stg})`);
      await conn.run(`INSERT INTO embeddings SELECT article_id::UUID, model, dim, vec FROM ${stg}`);
      await conn.run('COMMIT');
    });
  }

  /** Mark held-back articles as indexed now (replay). */
  async release(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.run(`UPDATE articles SET crawl_date = make_timestamp($2::BIGINT) WHERE article_id IN (SELECT unnest(string_split($1, ','))::UUID)`, [
      ids.join(','),
      at.getTime() * 1000,
    ]);
  }

  async writePublishers(
    rows: {
      domain: string;
      country: string;
      countrySource: string;
      continent: string | null;
      pageRank: number;
      articles: number;
      isPodcast: boolean;
      isPremium: boolean;
    }[],
  ): Promise<void> {
    await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'publishers',
        [
          ['domain', 'varchar'],
          ['country', 'varchar'],
          ['country_source', 'varchar'],
          ['continent', 'varchar'],
          ['page_rank', 'int'],
          ['articles', 'int'],
          ['is_podcast', 'bool'],
          ['is_premium', 'bool'],
        ],
        rows.map((r) => [r.domain, r.country, r.countrySource, r.continent, r.pageRank, r.articles, r.isPodcast, r.isPremium]),
      );
      await conn.run('BEGIN TRANSACTION');
      await conn.run('DELETE FROM publishers');
      await conn.run(`INSERT INTO publishers SELECT * FROM ${stg}`);
      await conn.run('COMMIT');
    });
  }

  /**
   * Hit events in one statement: the events go to DuckDB as one JSON parameter, grouped (a
   * search's page shares its time, kind, key, org and query: one group with its lists of domains
   * and articles), and DuckDB parses, unnests and inserts them in its own threads. The JS side is
   * one JSON.stringify, a few microseconds per search page, where an appender took ~7 us per event
   * on the event loop (bench/_micro figures in the commit message).
   */
  async recordHits(events: HitEvent[]): Promise<void> {
    if (events.length === 0) return;
    const groups: HitGroup[] = [];
    let g: HitGroup | null = null;
    let last: HitEvent | null = null;
    for (const e of events) {
      if (
        !g ||
        !last ||
        e.ts.getTime() !== last.ts.getTime() ||
        e.kind !== last.kind ||
        e.keyId !== last.keyId ||
        e.orgId !== last.orgId ||
        e.query !== last.query ||
        !!e.synthetic !== !!last.synthetic
      ) {
        g = { t: micros(e.ts)!, k: e.kind, y: wellFormed(e.keyId), o: wellFormed(e.orgId), q: wellFormed(e.query), s: !!e.synthetic, d: [], a: [] };
        groups.push(g);
      }
      g.d.push(wellFormed(e.domain)!);
      g.a.push(e.articleId);
      last = e;
    }
    await this.db.run(
      `INSERT INTO hit_events
       SELECT gen_random_uuid(), make_timestamp(g.t), g.k, g.y, g.o, unnest(g.d), unnest(g.a)::UUID, g.q, g.s
       FROM (SELECT unnest(from_json($1::JSON, '[{"t":"BIGINT","k":"VARCHAR","y":"VARCHAR","o":"VARCHAR","q":"VARCHAR","s":"BOOLEAN","d":["VARCHAR"],"a":["VARCHAR"]}]')) AS g)`,
      [JSON.stringify(groups)],
    );
  }
}

interface HitGroup {
  t: number;
  k: string;
  y: string | null;
  o: string | null;
  q: string | null;
  s: boolean;
  d: string[];
  a: string[];
}

/** DuckDB's JSON parser rejects a lone surrogate (as in a hostile query): U+FFFD instead, as an appender would store. */
const wellFormed = (s: string | null): string | null => (s === null ? null : s.replace(/\p{Surrogate}/gu, '\ufffd'));
