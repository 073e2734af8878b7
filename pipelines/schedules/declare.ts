/**
 * The schedules of a project: one per run a named pipeline of the project file declares (its
 * kind's `runs`, pipelines/config/kinds: index-counts one per sampling), a function of the
 * pipelines alone. No environment is read here: the project (pipelines/config) has applied the
 * environment's overrides already.
 */
import { ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';
import type { ScheduleDecl } from '../../temporal/schedules.js';
import type { DefaultSchedule } from '../../workflows/kinds.js';
import { durationMs, type Pipeline, type Schedule } from '../config/schema.js';
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
