/** GET /v1/chat/forecast (spec/profile.ts `ForecastQuery`): evidence from the archive, judged by a model when the service has one (service/forecast/). */
import { ERROR_CODES, parseCutoffDate } from '../../spec/index.js';
import type { GroupHandlers } from '../context.js';
import { HttpError } from '../errors/index.js';
import { ProviderError } from '../llm/index.js';
import { forecast } from '../forecast/forecast.js';

export const forecastHandlers: GroupHandlers = {
  get_forecast: async (ctx) => {
    const q = ctx.query;
    if (!ctx.services.news) throw new HttpError(503, ERROR_CODES.unavailable, 'this service has no news store to forecast from');
    try {
      return await forecast(ctx.services, ctx.principal, { ...q, cutoff: q.cutoff_date ? parseCutoffDate(q.cutoff_date) : null });
    } catch (e) {
      if (e instanceof ProviderError) {
        ctx.req.log.error({ provider: e.provider, status: e.status, detail: e.detail }, e.message);
        throw new HttpError(502, ERROR_CODES.badGateway, e.message);
      }
      throw e;
    }
  },
};
