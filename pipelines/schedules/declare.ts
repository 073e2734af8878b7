/**
 * The schedules of a project: one per run a named pipeline of the project file declares (its
 * kind's `runs`, pipelines/config/kinds: index-counts one per sampling), a function of the
 * pipelines alone. No environment is read here: the project (pipelines/config) has applied the
 * environment's overrides already.
 */
import { ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';
import type { ScheduleDecl } from '../../activities/schedules.js';
import type { DefaultSchedule } from '../../workflows/kinds.js';
import { durationMs, type Notify, type Pipeline, type Schedule } from '../config/schema.js';
import { freshnessOf, periodOf } from '../run/status.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { findKind, type KindDef } from '../config/kinds/index.js';

export { RESEARCH_MAX_DEPTH } from '../config/schema.js';
export { INDEX_COUNT_CADENCE } from '../config/kinds/index-counts.js';

/** A pipeline's own schedule, else its kind's default. */
function when(s: Schedule | undefined, dflt: DefaultSchedule): { spec: ScheduleSpec; catchup: string; text: string } {
  const every = s ? s.every : dflt.every;
  const cron = s ? s.cron : dflt.cron;
  const catchup = s?.catchup ?? dflt.catchup;
  const spec: ScheduleSpec = every ? { intervals: [{ every: durationMs(every) }] } : { cronExpressions: [cron!.trim()] };
  return { spec, catchup, text: every ? `every ${every}` : `cron "${cron!.trim()}" UTC` };
}

/** The kind of an entry the project file took (so a registered one). */
export function kindOf(p: { kind: string }): KindDef {
  const k = findKind(p.kind);
  if (!k) throw new Error(`pipeline kind "${p.kind}" is not registered`);
  return k.kind;
}

/** The schedules of one pipeline. */
export function pipelineSchedules(p: Pipeline): ScheduleDecl[] {
  const kind = kindOf(p);
  return kind.runs(p).map((r) => {
    const dflt = r.defaultSchedule ?? kind.defaultSchedule;
    if (!dflt) throw new Error(`kind ${kind.name}: run ${r.id ?? p.name} has no default schedule`);
    const w = when(p.schedule, dflt);
    const f = p.freshness;
    const freshness = f && {
      ...(f.warn_after ? { warnAfterMs: durationMs(f.warn_after) } : {}),
      ...(f.error_after ? { errorAfterMs: durationMs(f.error_after) } : {}),
    };
    // the checks go to the run in its argument (in the run's history, as the rest of it)
    const checks = 'checks' in p ? p.checks : undefined;
    const args = r.args && checks ? { ...r.args, checks } : r.args;
    return {
      id: r.id ?? p.name,
      pipeline: p.name,
      description: `${p.name} (${p.kind}): ${r.what}, ${w.text}`,
      workflowType: r.workflowType ?? kind.workflowType,
      taskQueue: r.taskQueue ?? kind.taskQueue,
      spec: w.spec,
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: w.catchup,
      paused: p.schedule?.paused ?? false,
      args: args ? [args] : [],
      ...(freshness ? { freshness } : {}),
    };
  });
}

/** Every schedule of the project's pipelines, in the file's order. */
export function declareSchedules(pipelines: Pipeline[]): ScheduleDecl[] {
  return pipelines.flatMap(pipelineSchedules);
}

/** The id of the notices' schedule (workflows/notices.ts), declared when the project file sets `notify:`. */
export const NOTICES_SCHEDULE_ID = 'newsflow-notices';

/**
 * The pipelines the notices watch, each with its error_after (the file's, else derived from its
 * schedule as `newsflow status` does; a pipeline of several schedules: the longest): every
 * pipeline with a schedule that is not paused.
 */
export function watchedPipelines(pipelines: Pipeline[], now = Date.now()): { name: string; errorAfterMs: number | null }[] {
  const out = new Map<string, number | null>();
  for (const d of declareSchedules(pipelines)) {
    if (d.paused) continue;
    const name = d.pipeline ?? d.id;
    const e = freshnessOf(periodOf(d, now), d.freshness).error;
    const had = out.get(name);
    out.set(name, had === undefined ? e : had === null || e === null ? null : Math.max(had, e));
  }
  return [...out].map(([name, errorAfterMs]) => ({ name, errorAfterMs }));
}

/**
 * The notices' schedule: none without `notify:`; else one round of pipelineNotices every
 * `notify.every`. Its argument is the watched pipelines only: where notices go (URL, headers,
 * addresses) is read by the worker from its project file, and stays out of Temporal's history.
 */
export function noticesSchedules(pipelines: Pipeline[], notify: Notify | undefined): ScheduleDecl[] {
  if (!notify) return [];
  const to = [notify.webhook ? `webhook (${notify.webhook.format})` : null, notify.email ? `email to ${notify.email.to.length}` : null].filter(Boolean).join(' and ');
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
      args: [{ pipelines: watchedPipelines(pipelines) }],
    },
  ];
}
