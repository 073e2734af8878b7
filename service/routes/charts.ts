/** POST /v1/chat/charts: a question charted from index counts (service/charts/). */
import type { GroupHandlers } from '../context.js';
import { unavailable } from '../errors/index.js';

export const chartsHandlers: GroupHandlers = {
  create_charts_endpoint: async (ctx) => {
    const { query, filter_params } = ctx.body;
    // only the filters the caller sent: the schema's defaults (time_filter crawl_date, ...) are not asked for
    const sent = (ctx.req.body as { filter_params?: Record<string, unknown> | null } | undefined)?.filter_params;
    const given = filter_params && sent && typeof sent === 'object' ? Object.fromEntries(Object.entries(filter_params).filter(([k]) => k in sent)) : null;
    const charts = ctx.services.charts;
    if (!charts) throw unavailable('charts need the news index, which this service was started without');
    return charts.chart(query, { filters: given, principal: ctx.principal });
  },
};
