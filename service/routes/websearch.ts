/** GET /v1/chat/websearch (spec/profile.ts `WebSearchQuery`): the web capability's search (service/websearch/). */
import { ERROR_CODES } from '../../spec/index.js';
import type { GroupHandlers } from '../context.js';
import { ownerOf } from '../auth/principal.js';
import { HttpError, validationError } from '../errors/index.js';
import { WebSearchParamError } from '../websearch/service.js';
import { WebSearchProviderError } from '../websearch/providers.js';

export const websearchHandlers: GroupHandlers = {
  live_web_search: async (ctx) => {
    const web = ctx.services.web;
    if (!web) throw new HttpError(503, ERROR_CODES.unavailable, 'web search is not available on this server (no news store)');
    try {
      return await web.search(ctx.query, ctx.principal ? ownerOf(ctx.principal) : null);
    } catch (e) {
      if (e instanceof WebSearchParamError) throw validationError([{ loc: e.loc, msg: e.message, type: 'value_error' }]);
      if (e instanceof WebSearchProviderError) {
        ctx.req.log.error({ provider: e.provider }, e.message);
        throw new HttpError(502, ERROR_CODES.badGateway, e.message);
      }
      throw e;
    }
  },
};
