/**
 * distributionPull: split [from, to) into UTC month windows; in each, walk top_n_for_domains from
 * page 1 while next_page is set, then land hit_share and stats/metrics. Invariants per window go
 * to `_loads`.
 *
 * Since the 'walk-windows' patch one activity, `walkDistribution`, walks windows for up to
 * WALK_BUDGET_MS with landing off the request path, so the API's rate limit, not landing or
 * Temporal round trips, sets the pace; it heartbeats what is landed, and a killed worker's next
 * attempt resumes at the first page not known to be landed. Runs started before the patch keep
 * their shape: one activity per page, then one per stat, then recordWindowLoad.
 */
import { ApplicationFailure, continueAsNew, defineQuery, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DistributionActivities } from '../activities/distribution-pull.js';
import { freshProgress, type WalkWindow, type WindowProgress } from '../activities/distribution-walk.js';
import { splitMonths } from './months.js';

export interface DistributionPullInput {
  /** the named pipeline (project file) this run belongs to: its `_loads` rows carry it */
  pipeline?: string;
  domains: string[];
  /** default (scheduled refresh): month to date of the scheduled time */
  from?: string;
  to?: string;
  pageSize?: number;
  metric?: 'surface' | 'citation' | 'grounded';
  endpoints?: ('top_n_for_domains' | 'hit_share' | 'metrics')[];
  /** carried across continue-as-new (`progress`: the current window's, since the 'walk-windows' patch) */
  state?: { windowIndex: number; page: number; pagesInWindow: number; orgId: string; startedAt: string; totalPages: number; progress?: WindowProgress };
}

export const distributionProgress = defineQuery<{ windowIndex: number; windows: number; page: number; totalPages: number }>('progress');

const acts = proxyActivities<DistributionActivities>({
  startToCloseTimeout: '2 minutes',
  // a page is short: a lost worker is noticed within 10 s and the page runs again elsewhere
  heartbeatTimeout: '10 seconds',
  // a 429's Retry-After is honoured inside the client; Temporal retries on top stay slow
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 20 },
});

const walk = proxyActivities<Pick<DistributionActivities, 'walkDistribution'>>({
  // a call walks for WALK_BUDGET_MS, then lands what is still queued
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 20 },
});

const PAGES_PER_RUN = 100;
/** how long one walkDistribution call starts requests */
const WALK_BUDGET_MS = 30_000;

export async function distributionPull(input: DistributionPullInput): Promise<{ windows: number; pages: number }> {
  const info = workflowInfo();
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const at = scheduled ? new Date(scheduled as string | Date) : info.startTime;
  const to = input.to ? Date.parse(input.to) : at.getTime();
  const from = input.from ? Date.parse(input.from) : Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  let windows: ReturnType<typeof splitMonths>;
  try {
    windows = splitMonths(from, to);
  } catch (e) {
    throw ApplicationFailure.nonRetryable((e as Error).message, 'WindowError');
  }
  const coverage =
    windows.length > 0 &&
    windows[0]!.start === from &&
    windows[windows.length - 1]!.end === to &&
    windows.every((w, i) => i === 0 || w.start === windows[i - 1]!.end);
  const endpoints = input.endpoints ?? ['top_n_for_domains', 'hit_share', 'metrics'];
  const limit = input.pageSize ?? 100;
  const metric = input.metric ?? 'surface';
  // runs started before the patch keep their shape (whoAmI first, one activity per page, ...)
  const walkShape = patched('walk-windows');
  // orgId '' : the first walk call asks for it
  const s = input.state ?? {
    windowIndex: 0,
    page: 1,
    pagesInWindow: 0,
    orgId: walkShape ? '' : await acts.whoAmI(),
    startedAt: info.startTime.toISOString(),
    totalPages: 0,
  };
  setHandler(distributionProgress, () => ({ windowIndex: s.windowIndex, windows: windows.length, page: s.page, totalPages: s.totalPages }));
  if (walkShape) {
    // the window in progress: resumed after continue-as-new, pages walked in this run start again
    let progress: WindowProgress = s.progress
      ? { ...s.progress, firstPage: s.progress.page ?? s.page, walked: [] }
      : { ...freshProgress(), page: s.page, firstPage: s.page, pagesInWindow: s.pagesInWindow };
    let runPages = 0;
    while (s.windowIndex < windows.length) {
      if (runPages >= PAGES_PER_RUN)
        return continueAsNew<typeof distributionPull>({
          ...input,
          state: { ...s, page: progress.page ?? s.page, pagesInWindow: progress.pagesInWindow, progress },
        });
      const rest: WalkWindow[] = windows
        .slice(s.windowIndex)
        .map((w, i) => ({ start: w.start, end: w.end, loadId: `${info.workflowId}/w${w.start}`, index: s.windowIndex + i }));
      const r = await walk.walkDistribution({
        orgId: s.orgId,
        domains: input.domains,
        limit,
        metric,
        endpoints,
        windows: rest,
        progress,
        maxPages: PAGES_PER_RUN - runPages,
        budgetMs: WALK_BUDGET_MS,
        load: { workflowId: info.workflowId, runId: info.runId, startedAt: s.startedAt, windows: windows.length, coverage, pipeline: input.pipeline },
      });
      s.orgId = r.orgId;
      runPages += r.pages;
      s.totalPages += r.pages;
      s.windowIndex += r.windowsDone;
      progress = r.progress;
      s.page = progress.page ?? s.page;
      s.pagesInWindow = progress.pagesInWindow;
      delete s.progress;
    }
    return { windows: windows.length, pages: s.totalPages };
  }
  let runPages = 0;
  for (; s.windowIndex < windows.length; s.windowIndex++, s.page = 1, s.pagesInWindow = 0) {
    const w = windows[s.windowIndex]!;
    const ref = { orgId: s.orgId, domains: input.domains, start: w.start, end: w.end, loadId: `${info.workflowId}/w${w.start}` };
    let received = 0;
    let sumsMatch = true;
    const walked: number[] = [];
    // the first page this run walks in this window: 1, or the saved page after continue-as-new
    const firstPage = s.page;
    if (endpoints.includes('top_n_for_domains')) {
      for (let page: number | null = s.page; page !== null; ) {
        if (runPages >= PAGES_PER_RUN) return continueAsNew<typeof distributionPull>({ ...input, state: { ...s, page } });
        const r: { n: number; totalCount: number; sum: number; nextPage: number | null } = await acts.pullTopNPage({ ...ref, page, limit, metric });
        walked.push(page);
        if (r.sum !== r.totalCount) sumsMatch = false;
        received += r.n;
        runPages++;
        s.totalPages++;
        s.pagesInWindow++;
        page = r.nextPage;
        s.page = page ?? s.page;
      }
    }
    if (endpoints.includes('hit_share')) await acts.pullHitShare(ref);
    if (endpoints.includes('metrics')) await acts.pullMetrics(ref);
    await acts.recordWindowLoad({
      loadId: ref.loadId,
      pipeline: input.pipeline,
      workflowId: info.workflowId,
      runId: info.runId,
      start: w.start,
      end: w.end,
      received,
      startedAt: s.startedAt,
      invariants: {
        pages: s.pagesInWindow,
        // pages firstPage, firstPage+1, ... with no gap (firstPage is 1 unless resumed after continue-as-new)
        pages_contiguous: walked.length === 0 ? null : walked[0] === firstPage && walked.every((p, i) => i === 0 || p === walked[i - 1]! + 1),
        sum_equals_total_count: sumsMatch,
        windows_cover_range_once: coverage,
        window_index: s.windowIndex,
        windows: windows.length,
      },
    });
  }
  return { windows: windows.length, pages: s.totalPages };
}
