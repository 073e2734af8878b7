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

interface DistributionDeps {
  client: NewsClient;
  warehouse: Warehouse;
  onPage?: (page: number) => void;
  /**
   * This worker's share of the distribution rate for its walks, when several workers share one key
   * (NEWSFLOW_WORKERS): a walk makes many requests per activity, so the task queue's activity rate
   * no longer bounds them across workers.
   */
  walkShare?: { rate: number; burst: number };
}
type Land = (t: TableDef, rows: Record<string, unknown>[], loadId: string) => Promise<unknown>;

export function createDistributionActivities(deps: DistributionDeps) {
  const pace = deps.walkShare ? new TokenBucket(deps.walkShare.rate, deps.walkShare.burst) : null;
  const land: Land = (t, rows, loadId) => deps.warehouse.land(t, rows, [], loadId);
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

    /** Walk the windows (see `walk`). */
    async walkDistribution(input: WalkInput): Promise<WalkResult> {
      return walk(deps, pace, land, input);
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
async function walk(deps: DistributionDeps, pace: TokenBucket | null, land: Land, input: WalkInput): Promise<WalkResult> {
  const ctx = Context.current();
  const t0 = Date.now();
  const resumed = (ctx.info.heartbeatDetails as WalkPoint | undefined) ?? undefined;
  let point: WalkPoint = resumed ?? { w: 0, progress: input.progress, pages: 0 };
  const landing = new LandingQueue(deps, land, ctx, point);
  const beat = setInterval(() => ctx.heartbeat(landing.landedPoint), 2000);
  ctx.heartbeat(landing.landedPoint);
  // a new run's first call: the organization from the key's profile (another limit group)
  const orgId = input.orgId || (await deps.client.getProfile()).profile.id;
  const stop = () => landing.failure !== null || ctx.cancellationSignal.aborted || Date.now() - t0 >= input.budgetMs;
  try {
    while (point.w < input.windows.length && !stop()) {
      const win = input.windows[point.w]!;
      const ref: WindowRef = { orgId, domains: input.domains, start: win.start, end: win.end, loadId: win.loadId };
      if (!point.progress.statsDone) {
        // the window's stats first: the last requests of a walk are pages, whose landing ends it
        const stats = await fetchWindowStats(deps.client, pace, input, ref);
        point = clone(point);
        point.progress.statsDone = true;
        if (stats.length) landing.enqueue(stats, point);
        continue;
      }
      if (input.endpoints.includes('top_n_for_domains') && point.progress.page !== null) {
        if (point.pages >= input.maxPages) break;
        const fetched = await fetchTopNPage(deps.client, pace, input, ref, point);
        point = fetched.point;
        landing.enqueue(fetched.items, point);
        ctx.heartbeat(landing.landedPoint);
        continue;
      }
      const record = windowLoadRecord(input, win, point.progress);
      point = { w: point.w + 1, progress: freshProgress(), pages: point.pages };
      landing.enqueue([{ record }], point);
    }
  } finally {
    await landing.settled();
    clearInterval(beat);
  }
  if (landing.failure) throw landing.failure;
  // all of it landed and recorded; the fetch loop may have stopped mid-window (that window goes on from here)
  return { orgId, windowsDone: point.w, progress: point.progress, pages: point.pages };
}

/** Something for the landing queue: rows of a table (a page's, to be reported) or a window's load. */
type Item = { table: TableDef; loadId: string; rows: Record<string, unknown>[]; page?: number } | { record: Parameters<Warehouse['recordLoad']> };

const clone = (p: WalkPoint): WalkPoint => ({ ...p, progress: { ...p.progress, walked: [...p.progress.walked] } });

/** A window's hit_share and metrics, as requested by the walk's endpoints. */
async function fetchWindowStats(client: NewsClient, pace: TokenBucket | null, input: WalkInput, ref: WindowRef): Promise<Item[]> {
  const stats: Item[] = [];
  if (input.endpoints.includes('hit_share')) {
    await pace?.take();
    const r = await client.hitShare(api(ref));
    stats.push({ table: DIST_HIT_SHARE, loadId: ref.loadId, rows: hitShareRows(base(ref), r) });
  }
  if (input.endpoints.includes('metrics')) {
    await pace?.take();
    const r = await client.domainMetrics(api(ref));
    stats.push({ table: DIST_METRICS, loadId: ref.loadId, rows: [metricsRow(base(ref), r)] });
  }
  return stats;
}

/** The window's next top_n_for_domains page: its rows to land and the point reached once they are. */
async function fetchTopNPage(
  client: NewsClient,
  pace: TokenBucket | null,
  input: WalkInput,
  ref: WindowRef,
  at: WalkPoint,
): Promise<{ items: Item[]; point: WalkPoint }> {
  const pr = at.progress;
  const page = pr.page!;
  await pace?.take();
  const r = await client.topNForDomains({ ...api(ref), limit: input.limit, page, metric: input.metric });
  const { rows, pageRow, sum } = topNRows(base(ref), input.metric, page, input.limit, r);
  const point = clone(at);
  point.pages++;
  point.progress = {
    ...pr,
    page: r.next_page ?? null,
    walked: [...pr.walked, page],
    pagesInWindow: pr.pagesInWindow + 1,
    received: pr.received + r.data.length,
    sumsMatch: pr.sumsMatch && sum === r.total_count,
  };
  const items: Item[] = [
    { table: DIST_TOP_ARTICLES, loadId: ref.loadId, rows, page },
    { table: DIST_PAGES, loadId: ref.loadId, rows: [pageRow] },
  ];
  return { items, point };
}

/** A walked window's `_loads` row with its invariants. */
function windowLoadRecord(input: WalkInput, win: WalkInput['windows'][number], p: WindowProgress): Parameters<Warehouse['recordLoad']> {
  return [
    {
      loadId: win.loadId,
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
}

/**
 * The walk's landing queue: items land in order, behind the requests; each carries the point
 * reached once it is landed. The items that queued up during one landing go in the next, one
 * transaction per table. A failure stops the draining and is kept for the walk to throw.
 */
class LandingQueue {
  private queue: { item: Item; point: WalkPoint }[] = [];
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  failure: unknown = null;

  constructor(
    private readonly deps: DistributionDeps,
    private readonly land: Land,
    private readonly ctx: Context,
    /** the point reached by what is landed so far */
    public landedPoint: WalkPoint,
  ) {}

  enqueue(items: Item[], at: WalkPoint): void {
    items.forEach((item, i) => this.queue.push({ item, point: i === items.length - 1 ? at : this.landedPoint }));
    if (this.running) return;
    this.running = true;
    this.idle = this.drain();
  }

  /** Resolves when what is queued has landed (or the landing failed). */
  settled(): Promise<void> {
    return this.idle;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length && !this.failure) {
        const batch = this.queue;
        this.queue = [];
        await this.landBatch(batch.map((b) => b.item));
        this.landedPoint = batch[batch.length - 1]!.point;
        this.ctx.heartbeat(this.landedPoint);
      }
    } catch (e) {
      this.failure = e;
    } finally {
      this.running = false; // in the same tick as the queue was seen empty: no item is left behind
    }
  }

  private async landBatch(batch: Item[]): Promise<void> {
    // one transaction per table for the whole batch, each row keeping its window's load id
    const groups = new Map<TableDef, { loadId: string; rows: Record<string, unknown>[] }>();
    for (const item of batch) {
      if (!('table' in item)) continue;
      const g = groups.get(item.table) ?? groups.set(item.table, { loadId: item.loadId, rows: [] }).get(item.table)!;
      for (const r of item.rows) g.rows.push({ ...r, last_load_id: item.loadId });
    }
    for (const [table, g] of groups) await this.land(table, g.rows, g.loadId);
    for (const item of batch) if ('record' in item) await this.deps.warehouse.recordLoad(...item.record);
    for (const item of batch) {
      if (!('page' in item) || item.page === undefined) continue;
      log.info('landed page', { page: item.page, rows: item.rows.length });
      this.deps.onPage?.(item.page);
    }
  }
}
