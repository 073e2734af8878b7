/** Activities of distributionPull: one page (or one stat) per call, landed idempotently. */
import { Context, log } from '@temporalio/activity';
import type { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { DIST_HIT_SHARE, DIST_METRICS, DIST_PAGES, DIST_TOP_ARTICLES } from '../warehouse/tables/distribution.js';
import type { TableDef } from '../warehouse/tables/index.js';
import { failingFast } from './apiFailure.js';

export interface WindowRef {
  orgId: string;
  domains: string[];
  /** epoch ms, half-open */
  start: number;
  end: number;
  loadId: string;
}
const domainSet = (d: string[]) => [...d].sort().join(',');
const api = (w: WindowRef) => ({ domain_names: w.domains, start_date: Math.floor(w.start / 1000), end_date: Math.ceil(w.end / 1000) - 1 });
const base = (w: WindowRef) => ({ org_id: w.orgId, domain_set: domainSet(w.domains), window_start: w.start * 1000, window_end: w.end * 1000 });

export function createDistributionActivities(deps: { client: NewsClient; warehouse: Warehouse; onPage?: (page: number) => void }) {
  const land = (t: TableDef, rows: Record<string, unknown>[], loadId: string) => deps.warehouse.land(t, rows, [], loadId);
  return failingFast({
    async whoAmI(): Promise<string> {
      const p = await deps.client.getProfile();
      return p.profile.id;
    },

    async pullTopNPage(input: WindowRef & { page: number; limit: number; metric: 'surface' | 'citation' | 'grounded' }) {
      Context.current().heartbeat({ page: input.page });
      const r = await deps.client.topNForDomains({ ...api(input), limit: input.limit, page: input.page, metric: input.metric });
      const rows = r.data.map((d, i) => ({
        ...base(input), metric: input.metric, article_id: d.article_id ?? d.article_url ?? '', article_url: d.article_url ?? null,
        hit_count: d.hit_count, page: input.page, rank: (input.page - 1) * input.limit + i + 1,
      }));
      const sum = r.data.reduce((s, d) => s + d.hit_count, 0);
      await land(DIST_TOP_ARTICLES, rows, input.loadId);
      await land(DIST_PAGES, [{ ...base(input), metric: input.metric, page: input.page, n: r.data.length, total_count: r.total_count, sum_hit_count: sum, next_page: r.next_page ?? null }], input.loadId);
      log.info('landed page', { page: input.page, rows: rows.length });
      deps.onPage?.(input.page);
      return { n: r.data.length, totalCount: r.total_count, sum, nextPage: r.next_page ?? null };
    },

    async pullHitShare(input: WindowRef) {
      const r = await deps.client.hitShare(api(input));
      await land(DIST_HIT_SHARE, r.data.map((d) => ({ ...base(input), domain: d.domain, hit_share: d.hit_share, total_share: r.total_share })), input.loadId);
      return { domains: r.data.length };
    },

    async pullMetrics(input: WindowRef) {
      const r = await deps.client.domainMetrics(api(input));
      await land(DIST_METRICS, [{ ...base(input), surfaces: r.surfaces, citations: r.citations, full_text: r.full_text, grounded: r.grounded ?? 0 }], input.loadId);
      return { surfaces: r.surfaces };
    },

    async recordWindowLoad(input: {
      loadId: string; workflowId: string; runId: string; start: number; end: number; received: number; startedAt: string; invariants: Record<string, unknown>;
    }) {
      await deps.warehouse.recordLoad(
        { loadId: input.loadId, pipeline: 'distribution-pull', workflowId: input.workflowId, runId: input.runId, windowStart: new Date(input.start), windowEnd: new Date(input.end) },
        { received: input.received, inserted: 0, updated: 0 },
        new Date(input.startedAt),
        input.invariants,
      );
    },
  });
}
export type DistributionActivities = ReturnType<typeof createDistributionActivities>;
