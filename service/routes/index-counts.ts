/** GET /v1/index_counts: indexed articles per UTC time bucket (service/counts/index-counts.ts). */
import type { GroupHandlers } from '../context.js';
import { indexCounts } from '../counts/index-counts.js';

export const indexCountsHandlers: GroupHandlers = {
  get_index_counts: (ctx) => indexCounts(ctx.query, ctx.services.news!, ctx.principal),
};
