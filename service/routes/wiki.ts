/** GET /v1/wiki/search: encyclopedia passages (service/wiki). */
import type { GroupHandlers } from '../context.js';
import { HttpError } from '../errors.js';

export const wikiHandlers: GroupHandlers = {
  search_wiki: async (ctx) => {
    const wiki = ctx.services.wiki;
    if (!wiki) throw new HttpError(503, 503000, 'the encyclopedia store is not open in this service');
    return { documents: await wiki.search(ctx.query) };
  },
};
