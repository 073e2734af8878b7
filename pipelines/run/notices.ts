/**
 * The notices' schedule (docs/operations.md, Notices; workflows/notices.ts): declared beside the
 * pipelines' when the project file sets `notify:`, by `newsflow start`, `schedule apply` and
 * `config check`. The watched pipelines' error_after is the one `newsflow status` judges by
 * (status.ts: freshnessOf).
 */
import { ScheduleOverlapPolicy } from '@temporalio/client';
import type { ScheduleDecl } from '../../temporal/schedules.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { durationMs, type Notify } from '../config/schema.js';
import { freshnessOf, periodOf } from './status.js';

/** The id of the notices' schedule (workflows/notices.ts), declared when the project file sets `notify:`. */
export const NOTICES_SCHEDULE_ID = 'newsflow-notices';

/**
 * The pipelines the notices watch (of the pipelines' declared schedules, declareSchedules), each with its error_after (the file's, else derived from its
 * schedule as `newsflow status` does; a pipeline of several schedules: the longest): every
 * pipeline with a schedule that is not paused.
 */
export function watchedPipelines(schedules: readonly ScheduleDecl[], now = Date.now()): { name: string; errorAfterMs: number | null; schedules: string[] }[] {
  const out = new Map<string, { errorAfterMs: number | null; schedules: string[] }>();
  for (const d of schedules) {
    if (d.paused) continue;
    const name = d.pipeline ?? d.id;
    const e = freshnessOf(periodOf(d, now), d.freshness).error;
    const had = out.get(name);
    if (!had) out.set(name, { errorAfterMs: e, schedules: [d.id] });
    else out.set(name, { errorAfterMs: had.errorAfterMs === null || e === null ? null : Math.max(had.errorAfterMs, e), schedules: [...had.schedules, d.id] });
  }
  return [...out].map(([name, w]) => ({ name, ...w }));
}

/**
 * The notices' schedule: none without `notify:`; else one round of pipelineNotices every
 * `notify.every`. Its argument is the watched pipelines only: where notices go (URL, headers,
 * addresses) is read by the worker from its project file, and stays out of Temporal's history.
 */
export function noticesSchedules(schedules: readonly ScheduleDecl[], notify: Notify | undefined): ScheduleDecl[] {
  if (!notify) return [];
  const to = [notify.webhook ? `webhook (${notify.webhook.format})` : null, notify.email ? `email to ${notify.email.to.length}` : null]
    .filter(Boolean)
    .join(' and ');
  return [
    {
      id: NOTICES_SCHEDULE_ID,
      description: `notices: failed runs, pipelines past error_after, sources failing for a day, and recoveries, to ${to}, every ${notify.every}`,
      workflowType: 'pipelineNotices',
      taskQueue: TASK_QUEUES.deliveries,
      spec: { intervals: [{ every: durationMs(notify.every) }] },
      overlap: ScheduleOverlapPolicy.SKIP,
      // a round judges the present: rounds missed while nothing ran are not caught up
      catchupWindow: '1m',
      args: [{ pipelines: watchedPipelines(schedules) }],
    },
  ];
}
