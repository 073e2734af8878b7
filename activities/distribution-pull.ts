/**
 * Activities of distributionPull. `walkDistribution` walks windows page by page with landing off
 * the request path (the client's limiter sets the pace); the one-call-per-page activities stay for
 * runs started before it (their histories replay with them). Every landing is idempotent.
 */
import { Context, log } from '@temporalio/activity';
import type { NewsClient } from '../client/index.js';
import { TokenBucket } from '../client/limiter.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { DIST_HIT_SHARE, DIST_METRICS, DIST_PAGES, DIST_TOP_ARTICLES, hitShareRows, metricsRow, topNRows } from '../warehouse/tables/distribution.js';
import type { TableDef } from '../warehouse/tables/index.js';
import { failingFast } from './api-failure.js';
import { freshProgress, type WalkInput, type WalkResult, type WindowProgress } from './distribution-walk.js';

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

/** What is landed so far: a retried attempt starts here (heartbeat details). */
interface WalkPoint {
  w: number;
  progress: WindowProgress;
  pages: number;
}

export function createDistributionActivities(deps: {
  client: NewsClient;
  warehouse: Warehouse;
  onPage?: (page: number) => void;
  /**
   * This worker's share of the distribution rate for its walks, when several workers share one key
   * (NEWSFLOW_WORKERS): a walk makes many requests per activity, so the task queue's activity rate
   * no longer bounds them across workers.
   */
  walkShare?: { rate: number; burst: number };
}) {
  const pace = deps.walkShare ? new TokenBucket(deps.walkShare.rate, deps.walkShare.burst) : null;
  const land = (t: TableDef, rows: Record<string, unknown>[], loadId: string) => deps.warehouse.land(t, rows, [], loadId);
  return failingFast({
    async whoAmI(): Promise<string> {
      const p = await deps.client.getProfile();
      return p.profile.id;
    },

    async pullTopNPage(input: WindowRef & { page: number; limit: number; metric: 'surface' | 'citation' | 'grounded' }) {
      Context.current().heartbeat({ page: input.page });
      const r = await deps.client.topNForDomains({ ...api(input), limit: input.limit, page: input.page, metric: input.metric });
      const { rows, pageRow, sum } = topNRows(base(input), input.metric, input.page, input.limit, r);
      await land(DIST_TOP_ARTICLES, rows, input.loadId);
      await land(DIST_PAGES, [pageRow], input.loadId);
      log.info('landed page', { page: input.page, rows: rows.length });
      deps.onPage?.(input.page);
      return { n: r.data.length, totalCount: r.total_count, sum, nextPage: r.next_page ?? null };
    },

    /**
     * Walk the windows: per window the pages of top_n_for_domains, then hit_share and metrics, then
     * the window's `_loads` row. A request goes out as soon as the previous response is in (the
     * client's limiter sets the pace); landing runs behind on its own queue, the rows that queued
     * up during one landing go in the next (one lake transaction per table). A window's load is
     * recorded after all its rows landed. Progress goes to the heartbeat after each landing: a
     * killed worker's next attempt resumes at the first page not known to be landed (a page landed
     * again changes nothing). Returns when the windows are done, the page budget is spent, the
     * time budget is over or the activity is cancelled (the workflow calls again with the progress).
     */
    async walkDistribution(input: WalkInput): Promise<WalkResult> {
      const ctx = Context.current();
      const t0 = Date.now();
      const resumed = (ctx.info.heartbeatDetails as WalkPoint | undefined) ?? undefined;
      let point: WalkPoint = resumed ?? { w: 0, progress: input.progress, pages: 0 };
      let landedPoint = point;
      const beat = setInterval(() => ctx.heartbeat(landedPoint), 2000);
      ctx.heartbeat(landedPoint);
      // the landing queue: items land in order; each carries the point reached once it is landed
      type Item = { table: TableDef; loadId: string; rows: Record<string, unknown>[]; page?: number } | { record: Parameters<Warehouse['recordLoad']> };
      let queue: { item: Item; point: WalkPoint }[] = [];
      let failure: unknown = null;
      let idle: Promise<void> = Promise.resolve();
      let running = false;
      const drain = async () => {
        try {
          await drainAll();
        } catch (e) {
          failure = e;
        } finally {
          running = false; // in the same tick as the queue was seen empty: no item is left behind
        }
      };
      const drainAll = async () => {
        while (queue.length && !failure) {
          const batch = queue;
          queue = [];
          // one transaction per table for the whole batch, each row keeping its window's load id
          const groups = new Map<TableDef, { loadId: string; rows: Record<string, unknown>[] }>();
          for (const { item } of batch) {
            if (!('table' in item)) continue;
            const g = groups.get(item.table) ?? groups.set(item.table, { loadId: item.loadId, rows: [] }).get(item.table)!;
            for (const r of item.rows) g.rows.push({ ...r, last_load_id: item.loadId });
          }
          for (const [table, g] of groups) await land(table, g.rows, g.loadId);
          for (const { item } of batch) if ('record' in item) await deps.warehouse.recordLoad(...item.record);
          for (const { item } of batch) {
            if (!('page' in item) || item.page === undefined) continue;
            log.info('landed page', { page: item.page, rows: item.rows.length });
            deps.onPage?.(item.page);
          }
          landedPoint = batch[batch.length - 1]!.point;
          ctx.heartbeat(landedPoint);
        }
      };
      const enqueue = (items: Item[], at: WalkPoint) => {
        items.forEach((item, i) => queue.push({ item, point: i === items.length - 1 ? at : landedPoint }));
        if (running) return;
        running = true;
        idle = drain();
      };
      const clone = (p: WalkPoint): WalkPoint => ({ ...p, progress: { ...p.progress, walked: [...p.progress.walked] } });
      // a new run's first call: the organization from the key's profile (another limit group)
      const orgId = input.orgId || (await deps.client.getProfile()).profile.id;
      const stop = () => failure !== null || ctx.cancellationSignal.aborted || Date.now() - t0 >= input.budgetMs;
      try {
        while (point.w < input.windows.length && !stop()) {
          const win = input.windows[point.w]!;
          const ref: WindowRef = { orgId, domains: input.domains, start: win.start, end: win.end, loadId: win.loadId };
          const pr = point.progress;
          if (!pr.statsDone) {
            // the window's stats first: the last requests of a walk are pages, whose landing ends it
            const stats: Item[] = [];
            if (input.endpoints.includes('hit_share')) {
              await pace?.take();
              const r = await deps.client.hitShare(api(ref));
              stats.push({
                table: DIST_HIT_SHARE,
                loadId: ref.loadId,
                rows: hitShareRows(base(ref), r),
              });
            }
            if (input.endpoints.includes('metrics')) {
              await pace?.take();
              const r = await deps.client.domainMetrics(api(ref));
              stats.push({
                table: DIST_METRICS,
                loadId: ref.loadId,
                rows: [metricsRow(base(ref), r)],
              });
            }
            point = clone(point);
            point.progress.statsDone = true;
            if (stats.length) enqueue(stats, point);
            continue;
          }
          if (input.endpoints.includes('top_n_for_domains') && pr.page !== null) {
            if (point.pages >= input.maxPages) break;
            const page = pr.page;
            await pace?.take();
            const r = await deps.client.topNForDomains({ ...api(ref), limit: input.limit, page, metric: input.metric });
            const { rows, pageRow, sum } = topNRows(base(ref), input.metric, page, input.limit, r);
            point = clone(point);
            point.pages++;
            point.progress = {
              ...pr,
              page: r.next_page ?? null,
              walked: [...pr.walked, page],
              pagesInWindow: pr.pagesInWindow + 1,
              received: pr.received + r.data.length,
              sumsMatch: pr.sumsMatch && sum === r.total_count,
            };
            enqueue(
              [
                { table: DIST_TOP_ARTICLES, loadId: ref.loadId, rows, page },
                { table: DIST_PAGES, loadId: ref.loadId, rows: [pageRow] },
              ],
              point,
            );
            ctx.heartbeat(landedPoint);
            continue;
          }
          const p = point.progress;
          const record: Parameters<Warehouse['recordLoad']> = [
            {
              loadId: ref.loadId,
              pipeline: input.load.pipeline ?? 'distribution',
              kind: 'distribution',
              workflowId: input.load.workflowId,
              runId: input.load.runId,
              windowStart: new Date(win.start),
              windowEnd: new Date(win.end),
            },
            { received: p.received, inserted: 0, updated: 0 },
            new Date(input.load.startedAt),
            {
              pages: p.pagesInWindow,
              // pages firstPage, firstPage+1, ... with no gap (firstPage is 1 unless resumed after continue-as-new)
              pages_contiguous: p.walked.length === 0 ? null : p.walked[0] === p.firstPage && p.walked.every((x, i) => i === 0 || x === p.walked[i - 1]! + 1),
              sum_equals_total_count: p.sumsMatch,
              windows_cover_range_once: input.load.coverage,
              window_index: win.index,
              windows: input.load.windows,
            },
          ];
          point = { w: point.w + 1, progress: freshProgress(), pages: point.pages };
          enqueue([{ record }], point);
        }
      } finally {
        await idle;
        clearInterval(beat);
      }
      if (failure) throw failure;
      // all of it landed and recorded; the fetch loop may have stopped mid-window (that window goes on from here)
      return { orgId, windowsDone: point.w, progress: point.progress, pages: point.pages };
    },

    async pullHitShare(input: WindowRef) {
      const r = await deps.client.hitShare(api(input));
      await land(DIST_HIT_SHARE, hitShareRows(base(input), r), input.loadId);
      return { domains: r.data.length };
    },

    async pullMetrics(input: WindowRef) {
      const r = await deps.client.domainMetrics(api(input));
      await land(DIST_METRICS, [metricsRow(base(input), r)], input.loadId);
      return { surfaces: r.surfaces };
    },

    async recordWindowLoad(input: {
      loadId: string;
      pipeline?: string;
      workflowId: string;
      runId: string;
      start: number;
      end: number;
      received: number;
      startedAt: string;
      invariants: Record<string, unknown>;
    }) {
      await deps.warehouse.recordLoad(
        {
          loadId: input.loadId,
          pipeline: input.pipeline ?? 'distribution',
          kind: 'distribution',
          workflowId: input.workflowId,
          runId: input.runId,
          windowStart: new Date(input.start),
          windowEnd: new Date(input.end),
        },
        { received: input.received, inserted: 0, updated: 0 },
        new Date(input.startedAt),
        input.invariants,
      );
    },
  });
}
export type DistributionActivities = ReturnType<typeof createDistributionActivities>;
