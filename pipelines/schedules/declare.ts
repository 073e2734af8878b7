/**
 * The schedules newsflow declares, as a function of their configuration (`SchedulesConfig`): news
 * ingest every 15 minutes, and, as configured, the daily distribution refresh, the alert sync,
 * story tracking, standing research questions and index-count sampling. No environment is read
 * here: from-env.ts builds the configuration from NEWSFLOW_* variables.
 */
import { ScheduleOverlapPolicy } from '@temporalio/client';
import type { z } from 'zod';
import { Sampling } from '../../spec/index.js';
import type { ScheduleDecl } from '../../activities/schedules.js';
import { TASK_QUEUES } from '../../workflows/queues.js';

/** Most research rounds: the API's search_depth maximum (standing questions and `newsflow research --depth`). */
export const RESEARCH_MAX_DEPTH = 190;

/** A standing research question (one `research-<name>` schedule). */
export interface StandingQuestion {
  name: string;
  question: string;
  depth?: number;
  sources?: string[];
  model?: string;
  filters?: Record<string, unknown>;
  /** cron (UTC) of its runs; default daily at 06:00 */
  cron?: string;
}
export const RESEARCH_DEFAULT_CRON = '0 6 * * *';

export interface SchedulesConfig {
  /** the daily month-to-date distribution refresh over these domains; empty: none */
  distributionDomains: string[];
  /** the alert sync (one schedule per active alert), every minute */
  alerts: boolean;
  /** story tracking hourly at :05; null: none; without `trackers`, the workflow's default (the 20 top stories) */
  storyTracker: { trackers?: unknown[] } | null;
  /** standing research questions, one schedule each */
  research: StandingQuestion[];
  /** index-count sampling: one schedule per sampling, over `domains` (empty: one series over every domain) */
  indexCounts: { samplings: z.infer<typeof Sampling>[]; domains: string[] };
}

/** Every schedule of `config`, in a fixed order. */
export function declareSchedules(config: SchedulesConfig): ScheduleDecl[] {
  return [
    {
      id: 'news-ingest-15m',
      description: 'news ingest: every 15 minutes, the hour before each run',
      workflowType: 'newsIngest',
      taskQueue: TASK_QUEUES.news,
      spec: { intervals: [{ every: '15 minutes' }] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '1 hour',
      args: [{ pageSize: 100 }],
    },
    ...distributionSchedules(config.distributionDomains),
    ...(config.alerts ? [alertSyncSchedule()] : []),
    ...storyTrackerSchedules(config.storyTracker),
    ...researchSchedules(config.research),
    ...indexCountSchedules(config.indexCounts),
  ];
}

/** The daily month-to-date distribution refresh, over `domains` (none when empty). */
export function distributionSchedules(domains: string[]): ScheduleDecl[] {
  if (!domains.length) return [];
  return [
    {
      id: 'distribution-mtd-daily',
      description: 'distribution pull: month to date, daily at 02:00 UTC',
      workflowType: 'distributionPull',
      taskQueue: TASK_QUEUES.distribution,
      spec: { cronExpressions: ['0 2 * * *'] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '1 day',
      args: [{ domains, pageSize: 100 }],
    },
  ];
}

/** The alert sync: every minute, one schedule per active alert (see activities/alert-runner.ts). */
const alertSyncSchedule = (): ScheduleDecl => ({
  id: 'alerts-sync-1m',
  description: 'alert runner: keep one schedule per active alert, every minute',
  workflowType: 'alertSync',
  taskQueue: TASK_QUEUES.alerts,
  spec: { intervals: [{ every: '1 minute' }] },
  overlap: ScheduleOverlapPolicy.SKIP,
  catchupWindow: '5 minutes',
  args: [],
});

/** Story tracking, hourly at :05 (null: none). */
export function storyTrackerSchedules(c: SchedulesConfig['storyTracker']): ScheduleDecl[] {
  if (!c) return [];
  return [
    {
      id: 'story-tracker-hourly',
      description: 'story tracker: the declared story queries, hourly at :05 UTC',
      workflowType: 'storyTracker',
      taskQueue: TASK_QUEUES.stories,
      spec: { cronExpressions: ['5 * * * *'] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '3 hours',
      args: [c.trackers ? { trackers: c.trackers } : {}],
    },
  ];
}

/**
 * Standing research questions, one schedule each (`research-<name>`), daily at 06:00 UTC unless
 * the question gives a `cron`. Each run is a deepResearch workflow whose cutoff is the scheduled
 * time, landing a briefing in research_runs / research_sources.
 */
export function researchSchedules(questions: StandingQuestion[]): ScheduleDecl[] {
  return questions.map(({ name, cron, ...params }) => ({
    id: `research-${name}`,
    description: `research: "${params.question.slice(0, 60)}" (${cron ?? RESEARCH_DEFAULT_CRON} UTC)`,
    workflowType: 'deepResearch',
    taskQueue: TASK_QUEUES.research,
    spec: { cronExpressions: [cron ?? RESEARCH_DEFAULT_CRON] },
    overlap: ScheduleOverlapPolicy.SKIP,
    catchupWindow: '1 day',
    args: [{ name, ...params }],
  }));
}

/** Index-count sampling: when each sampling's schedule runs (UTC) and how far back missed runs are caught up. */
export const INDEX_COUNT_CADENCE: Record<z.infer<typeof Sampling>, { cron: string; catchupWindow: string }> = {
  '5m': { cron: '*/5 * * * *', catchupWindow: '15 minutes' },
  '1h': { cron: '0 * * * *', catchupWindow: '3 hours' },
  '12h': { cron: '0 0,12 * * *', catchupWindow: '1 day' },
  '1d': { cron: '0 0 * * *', catchupWindow: '2 days' },
  '1w': { cron: '0 0 * * 1', catchupWindow: '1 week' },
  '1m': { cron: '0 0 1 * *', catchupWindow: '1 week' },
};

/** One schedule per sampling (in the interface's order of samplings), each over `domains` (empty: one series over every domain). */
export function indexCountSchedules(c: SchedulesConfig['indexCounts']): ScheduleDecl[] {
  return Sampling.options
    .filter((x) => c.samplings.includes(x))
    .map((sampling) => ({
      id: `index-counts-${sampling}`,
      description: `index counts: ${sampling} buckets (${INDEX_COUNT_CADENCE[sampling].cron} UTC), re-sampling the lookback before each run`,
      workflowType: 'indexCountSampler',
      taskQueue: TASK_QUEUES.news,
      spec: { cronExpressions: [INDEX_COUNT_CADENCE[sampling].cron] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: INDEX_COUNT_CADENCE[sampling].catchupWindow,
      args: [c.domains.length ? { sampling, domains: c.domains } : { sampling }],
    }));
}
