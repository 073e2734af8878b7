/**
 * What distributionPull's workflow and its walkDistribution activity pass each other (no runtime
 * imports: the workflow bundle takes it). Here, beside the activity, because workflows import
 * activities' types and pure helpers, never the reverse.
 */

/** One window of a walk: the window and what the workflow carried into it. */
export interface WalkWindow {
  start: number;
  end: number;
  loadId: string;
  /** the window's index among the run's windows (for the invariants) */
  index: number;
}

/** Where a window stands: the workflow carries it between calls and across continue-as-new. */
export interface WindowProgress {
  /** the next page to fetch; null: every page walked */
  page: number | null;
  /** the first page walked in this run of the workflow (1 unless resumed after continue-as-new) */
  firstPage: number;
  /** pages walked in this run, in order */
  walked: number[];
  /** pages of the window in all runs */
  pagesInWindow: number;
  received: number;
  sumsMatch: boolean;
  /** the window's hit_share and metrics are landed */
  statsDone: boolean;
}

export interface WalkInput {
  /** '' : the walk asks the API (get profile) and returns it */
  orgId: string;
  domains: string[];
  limit: number;
  metric: 'surface' | 'citation' | 'grounded';
  endpoints: ('top_n_for_domains' | 'hit_share' | 'metrics')[];
  /** the windows still to walk, in order; the first one at `progress` */
  windows: WalkWindow[];
  progress: WindowProgress;
  /** stop fetching pages after this many (the run's page budget) */
  maxPages: number;
  /** stop starting requests after this long; the workflow calls again */
  budgetMs: number;
  /** for `_loads` */
  load: { workflowId: string; runId: string; startedAt: string; windows: number; coverage: boolean; pipeline?: string };
}

export interface WalkResult {
  orgId: string;
  /** windows walked to the end, their loads recorded */
  windowsDone: number;
  /** the window after them, where it stands */
  progress: WindowProgress;
  /** pages fetched in this call */
  pages: number;
}

/** A window's first progress. */
export const freshProgress = (): WindowProgress => ({ page: 1, firstPage: 1, walked: [], pagesInWindow: 0, received: 0, sumsMatch: true, statsDone: false });
