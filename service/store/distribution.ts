/**
 * Distribution analytics over hit events. A hit is one event row (surface, citation, full_text
 * or grounded; each counts 1). Times are Unix seconds, both ends inclusive. A domain covers its
 * subdomains (cnn.com covers edition.cnn.com).
 */
import crypto from 'node:crypto';
import type { Db } from './db.js';
import { stage } from './bulk.js';
import { mulberry32, zipfSampler } from '../../lib/random.js';

export type Kind = 'surface' | 'citation' | 'full_text' | 'grounded';
const sqlList = (xs: string[]) => xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ');
/** SQL predicate: `col` is one of the domains or a subdomain of one. */
export function domainPredicate(col: string, domains: string[]): string {
  if (domains.length === 0) return 'false';
  return `(${col} IN (${sqlList(domains)}) OR ${domains.map((d) => `${col} LIKE '%.${d.replace(/'/g, "''").replace(/[%_]/g, '')}'`).join(' OR ')})`;
}
const win = (start: number, end: number) => `ts >= to_timestamp(${Math.floor(start)})::TIMESTAMP AND ts < to_timestamp(${Math.floor(end) + 1})::TIMESTAMP`;

/** Deterministic event ids: the same seed writes the same history. */
function simId(seed: number, day: number, i: number): string {
  const x = crypto.createHash('sha1').update(`sim:${seed}:${day}:${i}`).digest('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-5${x.slice(13, 16)}-8${x.slice(17, 20)}-${x.slice(20, 32)}`;
}

export class DistributionStore {
  constructor(readonly db: Db) {}

  async hitsByDomain(domains: string[], start: number, end: number): Promise<Map<string, number>> {
    const out = new Map(domains.map((d) => [d, 0]));
    for (const d of domains) {
      const r = await this.db.one<{ n: bigint }>(`SELECT count(*) AS n FROM hit_events WHERE ${win(start, end)} AND ${domainPredicate('domain', [d])}`);
      out.set(d, Number(r?.n ?? 0));
    }
    return out;
  }

  /** All hits in the window, on publisher domains only when `publisherDomains` is given. */
  async totalHits(start: number, end: number, publisherDomains: string[] | null): Promise<number> {
    const r = await this.db.one<{ n: bigint }>(
      `SELECT count(*) AS n FROM hit_events WHERE ${win(start, end)}${publisherDomains ? ` AND ${domainPredicate('domain', publisherDomains)}` : ''}`,
    );
    return Number(r?.n ?? 0);
  }

  async topArticles(
    domains: string[],
    start: number,
    end: number,
    kind: Kind | null,
    limit: number,
    page: number,
  ): Promise<{ article_id: string; article_url: string; hit_count: number }[]> {
    return (
      await this.db.all<{ article_id: string; article_url: string | null; hit_count: bigint }>(
        `SELECT h.article_id::VARCHAR AS article_id, any_value(a.article_url) AS article_url, count(*) AS hit_count
       FROM hit_events h LEFT JOIN articles a USING (article_id)
       WHERE ${win(start, end)} AND ${domainPredicate('h.domain', domains)}${kind ? ` AND h.kind = '${kind}'` : ''}
       GROUP BY h.article_id ORDER BY hit_count DESC, article_id LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
      )
    ).map((r) => ({ article_id: r.article_id, article_url: r.article_url ?? '', hit_count: Number(r.hit_count) }));
  }

  async kinds(domains: string[], start: number, end: number): Promise<Record<Kind, number>> {
    const rows = await this.db.all<{ kind: Kind; n: bigint }>(
      `SELECT kind, count(*) AS n FROM hit_events WHERE ${win(start, end)} AND ${domainPredicate('domain', domains)} GROUP BY kind`,
    );
    const out: Record<Kind, number> = { surface: 0, citation: 0, full_text: 0, grounded: 0 };
    for (const r of rows) out[r.kind] = Number(r.n);
    return out;
  }

  async kindsPerDay(domains: string[], start: number, end: number): Promise<{ day: string; kinds: Record<Kind, number> }[]> {
    const rows = await this.db.all<{ day: string; kind: Kind; n: bigint }>(
      `SELECT strftime(ts, '%Y-%m-%d') AS day, kind, count(*) AS n FROM hit_events WHERE ${win(start, end)} AND ${domainPredicate('domain', domains)} GROUP BY 1, 2 ORDER BY 1`,
    );
    const days = new Map<string, Record<Kind, number>>();
    for (const r of rows) {
      const k = days.get(r.day) ?? { surface: 0, citation: 0, full_text: 0, grounded: 0 };
      k[r.kind] = Number(r.n);
      days.set(r.day, k);
    }
    return [...days.entries()].map(([day, kinds]) => ({ day, kinds }));
  }

  async hitsSurfacedPerDay(domains: string[], start: number, end: number): Promise<{ day: string; hits: number; surfaced: number }[]> {
    return (
      await this.db.all<{ day: string; hits: bigint; surfaced: bigint }>(
        `SELECT strftime(ts, '%Y-%m-%d') AS day, count(*) AS hits, count(DISTINCT article_id) FILTER (WHERE kind = 'surface') AS surfaced
       FROM hit_events WHERE ${win(start, end)} AND ${domainPredicate('domain', domains)} GROUP BY 1 ORDER BY 1`,
      )
    ).map((r) => ({ day: r.day, hits: Number(r.hits), surfaced: Number(r.surfaced) }));
  }

  async hitsSurfaced(domains: string[], start: number, end: number): Promise<{ hits: number; surfaced: number }> {
    const r = await this.db.one<{ hits: bigint; surfaced: bigint }>(
      `SELECT count(*) AS hits, count(DISTINCT article_id) FILTER (WHERE kind = 'surface') AS surfaced FROM hit_events WHERE ${win(start, end)} AND ${domainPredicate('domain', domains)}`,
    );
    return { hits: Number(r?.hits ?? 0), surfaced: Number(r?.surfaced ?? 0) };
  }

  async topArticlesPerDay(domain: string, start: number, end: number, limit: number) {
    const rows = await this.db.all<{ day: string; article_id: string; article_url: string | null; n: bigint }>(
      `WITH per_day AS (
         SELECT strftime(h.ts, '%Y-%m-%d') AS day, h.article_id::VARCHAR AS article_id, any_value(a.article_url) AS article_url, count(*) AS n
         FROM hit_events h LEFT JOIN articles a USING (article_id)
         WHERE ${win(start, end)} AND ${domainPredicate('h.domain', [domain])} GROUP BY 1, 2)
       SELECT day, article_id, article_url, n FROM per_day
       QUALIFY row_number() OVER (PARTITION BY day ORDER BY n DESC, article_id) <= ${limit}
       ORDER BY day, n DESC, article_id`,
    );
    const days = new Map<string, { article_url: string; article_id: string; hit_count: number }[]>();
    for (const r of rows) days.set(r.day, [...(days.get(r.day) ?? []), { article_url: r.article_url ?? '', article_id: r.article_id, hit_count: Number(r.n) }]);
    return [...days.entries()].map(([day, articles]) => ({ day, articles, total_count: articles.reduce((s, a) => s + a.hit_count, 0) }));
  }

  async topDomains(start: number, end: number, names: string[] | null, limit: number) {
    return (
      await this.db.all<{ domain: string; n: bigint }>(
        `SELECT domain, count(*) AS n FROM hit_events WHERE ${win(start, end)}${names ? ` AND ${domainPredicate('domain', names)}` : ''} GROUP BY 1 ORDER BY n DESC, domain LIMIT ${limit}`,
      )
    ).map((r) => ({ domain: r.domain, hit_count: Number(r.n) }));
  }

  async queries(domains: string[], start: number, end: number, limit: number) {
    return (
      await this.db.all<{ query: string; n: bigint; articles: { article_id: string; hit_date: string }[]; category: string | null }>(
        `SELECT h.query, count(*) AS n,
              list(DISTINCT {'article_id': h.article_id::VARCHAR, 'hit_date': strftime(h.ts, '%Y-%m-%d')}) AS articles,
              mode(a.classification[1]) AS category
       FROM hit_events h LEFT JOIN articles a USING (article_id)
       WHERE ${win(start, end)} AND h.query IS NOT NULL AND h.query <> '' AND ${domainPredicate('h.domain', domains)}
       GROUP BY 1 ORDER BY n DESC, 1 LIMIT ${limit}`,
      )
    ).map((r) => ({ query: r.query, n_hits: Number(r.n), articles: r.articles, category: r.category ?? 'Uncategorized' }));
  }

  /** Synthetic history for demos and tests: events spread Zipf-like over articles, marked synthetic. */
  async simulate(opts: {
    months: number;
    seed: number;
    eventsPerDay: number;
    now: Date;
  }): Promise<{ events: number; articles: number; from: string; to: string }> {
    const arts = await this.db.all<{ id: string; domain: string; kw: string[] }>(
      `SELECT article_id::VARCHAR AS id, domain_url AS domain, keywords AS kw FROM articles ORDER BY article_id`,
    );
    if (arts.length === 0) throw new Error('the store holds no articles: seed a corpus first (newsflow seed --corpus PATH)');
    const rnd = mulberry32(opts.seed >>> 0 || 1);
    // a seeded popularity order, then Zipf (exponent 1.1) over it
    const order = arts
      .map((a, i) => ({ a, k: rnd(), i }))
      .sort((x, y) => x.k - y.k)
      .map((x) => x.a);
    const pick = zipfSampler(order, rnd, 1.1);
    const kinds: [Kind, number][] = [
      ['surface', 0.7],
      ['citation', 0.15],
      ['full_text', 0.1],
      ['grounded', 0.05],
    ];
    const kindOf = () => {
      let x = rnd();
      for (const [k, p] of kinds) if ((x -= p) < 0) return k;
      return 'surface';
    };
    const endDay = Date.UTC(opts.now.getUTCFullYear(), opts.now.getUTCMonth(), opts.now.getUTCDate());
    const startDay = Date.UTC(opts.now.getUTCFullYear(), opts.now.getUTCMonth() - opts.months, opts.now.getUTCDate());
    const rows: unknown[][] = [];
    for (let day = startDay; day < endDay; day += 86_400_000) {
      for (let i = 0; i < opts.eventsPerDay; i++) {
        const a = pick();
        const ts = day + Math.floor(rnd() * 86_400_000);
        const q = a.kw.length ? a.kw.slice(0, 2 + Math.floor(rnd() * 2)).join(' ') : null;
        rows.push([simId(opts.seed, day, i), ts * 1000, kindOf(), null, null, a.domain, a.id, q, true]);
      }
    }
    await this.db.withConnection(async (conn) => {
      const stg = await stage(
        conn,
        'sim_hits',
        [
          ['event_id', 'varchar'],
          ['ts', 'bigint'],
          ['kind', 'varchar'],
          ['key_id', 'varchar'],
          ['org_id', 'varchar'],
          ['domain', 'varchar'],
          ['article_id', 'varchar'],
          ['query', 'varchar'],
          ['synthetic', 'bool'],
        ],
        rows,
      );
      await conn.run('BEGIN TRANSACTION');
      await conn.run(
        `DELETE FROM hit_events WHERE synthetic AND ts >= make_timestamp(${startDay * 1000}::BIGINT) AND ts < make_timestamp(${endDay * 1000}::BIGINT)`,
      );
      await conn.run(
        `INSERT INTO hit_events SELECT event_id::UUID, make_timestamp(ts), kind, key_id, org_id, domain, article_id::UUID, query, synthetic FROM ${stg}`,
      );
      await conn.run('COMMIT');
    });
    return { events: rows.length, articles: arts.length, from: new Date(startDay).toISOString(), to: new Date(endDay).toISOString() };
  }
}
