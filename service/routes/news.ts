/** GET /v1/news/search, GET /v1/news, GET /v1/news/{article_id}. */
import type { GroupHandlers } from '../context.js';
import { notFound } from '../errors/index.js';

export const newsHandlers: GroupHandlers = {
  search_news: async (ctx) => {
    // the names sent decide which defaults apply (hours_back counts only when sent)
    const given = new Set(Object.keys((ctx.req.query ?? {}) as object));
    const { body, cache } = await ctx.services.news!.search(ctx.query, ctx.principal, given);
    if (cache) ctx.reply.header('X-Cache', cache);
    return body;
  },

  get_articles: async (ctx) => {
    const { article_ids, full_text } = ctx.query;
    return ctx.services.news!.articles(article_ids, full_text, ctx.principal);
  },

  get_article: async (ctx) => {
    const id = ctx.params.article_id.toLowerCase();
    // a well-formed UUID (spec ArticlePath)
    const a = await ctx.services.news!.article(id, ctx.query.full_text, ctx.principal);
    if (!a) throw notFound(`no article ${id}`);
    return a;
  },
};
