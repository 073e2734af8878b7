/** GET /v1/chat/autofilter: a description of wanted news -> search filters (service/autofilter/). */
import type { GroupHandlers } from '../context.js';
import { autofilter } from '../autofilter/index.js';

export const autofilterHandlers: GroupHandlers = {
  autofilter: (ctx) => {
    const { query } = ctx.query;
    // "now" is the search clock (the replay clock when there is one)
    const now = ctx.services.news?.clock() ?? Date.now();
    const r = autofilter(query, now);
    return { filter_params: r.filter_params, metadata: r.metadata };
  },
};
