/** GET /v1/news/search, GET /v1/news, GET /v1/news/{article_id}. */
import crypto from 'node:crypto';
import { TRY_CACHE_TTLS, SEARCH_LIMITS, type SearchParamsParsed } from '../../spec/index.js';
import type { GroupHandlers, HandlerCtx } from '../context.js';
import { notFound } from '../errors.js';
import { toDict, toStringBlock } from '../search/format.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { NewsIndex } from '../search/engine.js';

/** Credits per search by method (documented in docs/service.md, "Search"); a try_cache hit costs 0.25 of it. */
export const SEARCH_CREDITS = { kw: 1, recency: 1, nl: 2, both: 3 } as const;

const onlyDomains = (p: Principal | null) => (p?.org?.publisher ? p.org.domains : null);
/** The caller's own pages (URL indexing) are seen besides the shared corpus. */
const viewer = (p: Principal | null) => (p ? ownerOf(p) : null);

function surface(ctx: HandlerCtx, articles: { id: string; domain: string }[], query: string | null, kind: 'surface' | 'full_text' = 'surface') {
  const p = ctx.principal;
  ctx.services.news!.hits.record(
    articles.map((a) => ({
      ts: new Date(ctx.services.news!.clock()),
      kind,
      keyId: p?.keyId ?? null,
      orgId: p?.org?.id ?? null,
      domain: a.domain,
      articleId: a.id,
      query,
    })),
  );
}

export const newsHandlers: GroupHandlers = {
  search_news: async (ctx) => {
    const p = ctx.query as SearchParamsParsed;
    const news = ctx.services.news!;
    const now = news.clock();
    const given = new Set(Object.keys((ctx.req.query ?? {}) as object));
    let cacheKey: string | null = null;
    if (p.try_cache) {
      const { try_cache: _ttl, ...rest } = p;
      cacheKey = crypto
        .createHash('sha1')
        .update(JSON.stringify([ctx.principal?.keyId, rest, [...given].sort()]))
        .digest('hex');
      const hit = news.searchCache.get(cacheKey);
      if (hit && hit.until > now) {
        ctx.reply.header('X-Cache', 'HIT');
        surface(ctx, hit.articles, p.query || null);
        return { ...hit.body, usage: { credits: hit.credits * SEARCH_LIMITS.cachedCreditFactor } };
      }
    }
    const r = await news.index.search(p, { now, given, onlyDomains: onlyDomains(ctx.principal), viewer: viewer(ctx.principal) });
    const dicts = p.return_type !== 'string' ? r.docs.map((a) => toDict(a, { graphs: p.return_graphs, geo: p.return_geo, fullText: false })) : null;
    const asString = p.return_type !== 'dicts' ? r.docs.map((a, i) => toStringBlock(a, i, p.doc_start_delimiter, p.doc_end_delimiter)).join('\n\n') : null;
    const credits = SEARCH_CREDITS[r.method];
    const body = { as_dicts: dicts, as_string: asString, offset: r.nextOffset, usage: { credits } };
    const articles = r.docs.map((a) => ({ id: a.articleId, domain: a.domain }));
    if (cacheKey) {
      news.cacheSearch(cacheKey, { until: now + TRY_CACHE_TTLS[p.try_cache!] * 1000, body, credits, articles });
      ctx.reply.header('X-Cache', 'MISS');
    }
    surface(ctx, articles, p.query || null);
    return body;
  },

  get_articles: async (ctx) => {
    const { article_ids, full_text } = ctx.query as { article_ids: string[]; full_text: boolean };
    const own = onlyDomains(ctx.principal);
    const found = await ctx.services.news!.store.byIds([...new Set(article_ids)], full_text);
    const me = viewer(ctx.principal);
    const visible = found.filter((a) => NewsIndex.visible(a, me) && (!own || own.some((d) => a.domain === d || a.domain.endsWith(`.${d}`))));
    const order = new Map(article_ids.map((id, i) => [id.toLowerCase(), i]));
    visible.sort((a, b) => order.get(a.articleId)! - order.get(b.articleId)!);
    if (full_text)
      surface(
        ctx,
        visible.map((a) => ({ id: a.articleId, domain: a.domain })),
        null,
        'full_text',
      );
    return visible.map((a) => toDict(a, { graphs: false, geo: false, fullText: full_text }));
  },

  get_article: async (ctx) => {
    const id = String((ctx.params as { article_id: string }).article_id).toLowerCase();
    const fullText = (ctx.query as { full_text: boolean }).full_text;
    const own = onlyDomains(ctx.principal);
    const [a] = await ctx.services.news!.store.byIds([id], fullText); // a well-formed UUID (spec ArticlePath)
    if (!a || !NewsIndex.visible(a, viewer(ctx.principal)) || (own && !own.some((d) => a.domain === d || a.domain.endsWith(`.${d}`))))
      throw notFound(`no article ${id}`);
    if (fullText) surface(ctx, [{ id: a.articleId, domain: a.domain }], null, 'full_text');
    return toDict(a, { graphs: false, geo: false, fullText });
  },
};
