/**
 * /v1/distribution/*: analytics of the caller organization's own domains, from hit events.
 * Requested domains the organization does not own are dropped; none owned is 403 403000.
 * Responses are cached 30 seconds per key (`X-Cache: HIT` on a cached answer).
 */
import crypto from 'node:crypto';
import { DISTRIBUTION_LIMITS, normaliseDomain, type OperationId } from '../../spec/index.js';
import type { GroupHandlers, Handler, HandlerCtx, RequestCtx } from '../context.js';
import { forbidden, notFound } from '../errors/index.js';
import { DistributionStore } from '../store/distribution.js';
import { stableUuid } from '../corpus/read.js';

const cache = new Map<string, { until: number; body: unknown }>();
const norm = normaliseDomain;

function owned(ctx: RequestCtx, requested: string[]): string[] {
  const mine = (ctx.principal!.org?.domains ?? []).map(norm);
  const keep = [...new Set(requested.map(norm))].filter((d) => mine.some((m) => d === m || d.endsWith(`.${m}`)));
  if (keep.length === 0) throw forbidden(`none of the requested domains (${requested.join(', ')}) belongs to your organization`);
  return keep;
}

/** Wrap a handler with the 30 s per-key response cache; hit events are flushed before reading. */
function cached<Op extends OperationId>(fn: (ctx: HandlerCtx<Op>, store: DistributionStore) => Promise<unknown>): Handler<Op> {
  return async (ctx) => {
    const now = ctx.services.news!.clock();
    const key = crypto
      .createHash('sha1')
      .update(JSON.stringify([ctx.principal!.keyId, ctx.route.operationId, ctx.params, ctx.query]))
      .digest('hex');
    const hit = cache.get(key);
    if (hit && hit.until > now) {
      ctx.reply.header('X-Cache', 'HIT');
      return hit.body;
    }
    // a failed write is kept and tried again by the recorder: answer with what is written
    await ctx.services.news!.hits.flush().catch(() => undefined);
    const body = await fn(ctx, new DistributionStore(ctx.services.db));
    if (cache.size > 10_000) for (const [k, v] of cache) if (v.until <= now) cache.delete(k);
    cache.set(key, { until: now + DISTRIBUTION_LIMITS.cacheSeconds * 1000, body });
    ctx.reply.header('X-Cache', 'MISS');
    return body;
  };
}

const monthRange = (year: number, month: number) => ({ start: Date.UTC(year, month - 1, 1) / 1000, end: Date.UTC(year, month, 1) / 1000 - 1 });

async function publisherDomains(ctx: RequestCtx): Promise<string[]> {
  return (await ctx.services.keys.listOrgs()).filter((o) => o.publisher).flatMap((o) => o.domains);
}

export const distributionHandlers: GroupHandlers = {
  domain_hit_share: cached(async (ctx, store) => {
    const q = ctx.query;
    const domains = owned(ctx, q.domain_names);
    const denominator = await store.totalHits(q.start_date, q.end_date, q.is_publisher ? [...new Set([...(await publisherDomains(ctx)), ...domains])] : null);
    const hits = await store.hitsByDomain(domains, q.start_date, q.end_date);
    const data = domains.map((d) => ({ domain: d, hit_share: denominator ? hits.get(d)! / denominator : 0 }));
    return { data, total_share: data.reduce((s, x) => s + x.hit_share, 0) };
  }),
  top_n_articles_for_domains: cached(async (ctx, store) => {
    const q = ctx.query;
    const data = await store.topArticles(owned(ctx, q.domain_names), q.start_date, q.end_date, q.metric, q.limit, q.page);
    return { data, total_count: data.reduce((s, x) => s + x.hit_count, 0), page: q.page, next_page: data.length === q.limit ? q.page + 1 : null };
  }),
  top_n_articles_by_hits: cached(async (ctx, store) => {
    const q = ctx.query;
    const domains = owned(ctx, q.domain_names?.length ? q.domain_names : (ctx.principal!.org?.domains ?? []));
    const rows = await store.topArticles(domains, q.start_date, q.end_date, null, q.limit, q.page);
    const data = rows.map((r) => ({ article_url: r.article_url, hit_count: r.hit_count }));
    return { data, total_count: data.reduce((s, x) => s + x.hit_count, 0), page: q.page, next_page: data.length === q.limit ? q.page + 1 : null };
  }),
  get_domain_hits_surface: cached(async (ctx, store) => {
    const q = ctx.query;
    const { start, end } = monthRange(q.year, q.month);
    return store.hitsSurfaced(owned(ctx, q.domain_names), start, end);
  }),
  get_domain_hits_surface_timewindow: cached(async (ctx, store) => {
    const q = ctx.query;
    const { start, end } = monthRange(q.year, q.month);
    const data = await store.hitsSurfacedPerDay(owned(ctx, q.domain_names), start, end);
    return { data, total_hits: data.reduce((s, x) => s + x.hits, 0), total_surfaced: data.reduce((s, x) => s + x.surfaced, 0) };
  }),
  get_domain_queries: cached(async (ctx, store) => {
    const q = ctx.query;
    const rows = await store.queries(owned(ctx, q.domain_names), q.start_date, q.end_date, q.limit * 10);
    // clusters: queries grouped by the main category of the articles they surfaced; 2-D coordinates
    // are a fixed hash projection of the query text (a stable layout, not a learned embedding)
    const coords = (s: string): [number, number] => {
      const h = crypto.createHash('sha1').update(s).digest();
      return [h.readUInt16BE(0) / 65535, h.readUInt16BE(2) / 65535];
    };
    const groups = new Map<string, typeof rows>();
    for (const r of rows) groups.set(r.category, [...(groups.get(r.category) ?? []), r]);
    const data = [...groups.entries()].slice(0, q.limit).map(([label, qs]) => {
      const cs = qs.map((x) => coords(x.query));
      return {
        cluster_label: label,
        cluster_description: `queries whose surfaced articles are mostly ${label}`,
        cluster_classification: label,
        centroid_coords: [cs.reduce((s, c) => s + c[0], 0) / cs.length, cs.reduce((s, c) => s + c[1], 0) / cs.length] as [number, number],
        cluster_queries: qs.map((x, i) => ({ query: x.query, coords: cs[i]!, n_hits: x.n_hits, articles: x.articles })),
      };
    });
    return { data };
  }),
  top_n_articles_for_domain_timeseries: cached(async (ctx, store) => {
    const q = ctx.query;
    const [d] = owned(ctx, [q.domain_name]);
    const data = await store.topArticlesPerDay(d!, q.start_date, q.end_date, q.limit);
    return { data, total_count: data.reduce((s, x) => s + x.total_count, 0) };
  }),
  top_n_domains_by_hits: cached(async (ctx, store) => {
    const q = ctx.query;
    const domains = owned(ctx, q.names?.length ? q.names : (ctx.principal!.org?.domains ?? []));
    const data = await store.topDomains(q.start_date, q.end_date, domains, q.limit);
    return { data, total_count: data.reduce((s, x) => s + x.hit_count, 0) };
  }),
  get_article_hits: cached(async (ctx, store) => {
    const q = ctx.query;
    const k = await store.kinds(owned(ctx, [q.domain_name]), q.start_date, q.end_date);
    return { count: k.surface + k.citation + k.full_text + k.grounded };
  }),
  get_domain_metrics: cached(async (ctx, store) => {
    const q = ctx.query;
    const k = await store.kinds(owned(ctx, q.domain_names), q.start_date, q.end_date);
    return { surfaces: k.surface, citations: k.citation, full_text: k.full_text, grounded: k.grounded };
  }),
  get_domain_metrics_timeseries: cached(async (ctx, store) => {
    const q = ctx.query;
    const days = await store.kindsPerDay(owned(ctx, q.domain_names), q.start_date, q.end_date);
    const data = days.map(({ day, kinds: k }) => ({ day, surfaces: k.surface, citations: k.citation, full_text: k.full_text, grounded: k.grounded }));
    const sum = (f: (x: (typeof data)[number]) => number) => data.reduce((s, x) => s + f(x), 0);
    return {
      data,
      total_surfaces: sum((x) => x.surfaces),
      total_citations: sum((x) => x.citations),
      total_full_text: sum((x) => x.full_text),
      total_grounded: sum((x) => x.grounded),
    };
  }),
  find_domains: cached(async (ctx) => {
    const q = ctx.query;
    const all = await domainRecords(ctx);
    const items = all.filter(
      (d) =>
        (!q.names?.length || q.names.map(norm).includes(d.name)) &&
        (q.publisher == null || d.publisher === q.publisher) &&
        (q.is_tollbit == null || !q.is_tollbit) &&
        (q.full_text == null || q.full_text),
    );
    const page = items.slice((q.page - 1) * q.per_page, q.page * q.per_page);
    return {
      items: page,
      count: items.length,
      next_page: q.page * q.per_page < items.length ? q.page + 1 : null,
      previous_page: q.page > 1 ? q.page - 1 : null,
    };
  }),
  get_domain: cached(async (ctx) => {
    const name = norm(ctx.params.name);
    const d = (await domainRecords(ctx)).find((x) => x.name === name);
    if (!d) throw notFound(`no domain ${name} among your organization's domains`);
    return d;
  }),
};

/** The caller organization's domains as ReadDomainResponse records. */
async function domainRecords(ctx: RequestCtx) {
  const org = ctx.principal!.org!;
  const pubs = new Map((await ctx.services.db.all<{ domain: string }>('SELECT domain FROM publishers')).map((r) => [r.domain, true]));
  return org.domains.map((name) => ({
    id: stableUuid(`domain:${name}`),
    name,
    owner: org.name,
    is_tollbit: false,
    publisher: org.publisher,
    full_text: true,
    created_at: new Date(0).toISOString(),
    updated_at: null,
    in_corpus: pubs.has(name),
  }));
}
