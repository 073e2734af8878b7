/**
 * GET /v1/reddit/search (the path of the official SDKs) and GET /v1/forum/search (the interface's
 * name): forum search over the stored threads (service/forum/store.ts).
 *
 * `deep=true` asks the hosted API for a live scrape; none can run here, so it is answered from
 * the store like `deep=false`, and the response says so in the header
 * `X-Forum-Deep: unavailable; answered from the stored threads`. Every answer carries
 * `X-Forum-Source: store` and `X-Forum-Threads: <threads in the store>`.
 */
import { ERROR_CODES } from '../../spec/index.js';
import type { GroupHandlers, HandlerCtx, RequestCtx } from '../context.js';
import { HttpError } from '../errors/index.js';
import { forumString } from '../forum/search.js';

export const DEEP_HEADER = 'X-Forum-Deep';
export const DEEP_UNAVAILABLE = 'unavailable; answered from the stored threads';

async function searchForum(ctx: RequestCtx & Pick<HandlerCtx<'search_forum'>, 'query'>) {
  const forum = ctx.services.forum;
  if (!forum) throw new HttpError(503, ERROR_CODES.unavailable, 'forum search is not available: this service runs without a forum store');
  const p = ctx.query;
  ctx.reply.header('X-Forum-Source', 'store');
  ctx.reply.header('X-Forum-Threads', String(forum.size));
  if (p.deep) ctx.reply.header(DEEP_HEADER, DEEP_UNAVAILABLE);
  const now = ctx.services.news?.clock() ?? forum.clock();
  const threads = await forum.search(p, { now });
  return {
    as_dicts: p.return_type !== 'string' ? threads : null,
    as_string: p.return_type !== 'dicts' ? forumString(threads) : null,
  };
}

export const forumHandlers: GroupHandlers = {
  search_reddit: searchForum,
  search_forum: searchForum,
};
