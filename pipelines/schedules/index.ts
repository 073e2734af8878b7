/**
 * pipelines/schedules: the schedules of a project, one per named pipeline of its project file
 * (declare.ts: declareSchedules(pipelines), no environment read). Planning and applying them on a
 * Temporal server (planSchedules, applyPlan, applySchedules) is activities/schedules.ts: the alert
 * sync applies its per-alert schedules with it too.
 */
export { declareSchedules, pipelineSchedules, INDEX_COUNT_CADENCE, RESEARCH_MAX_DEPTH } from './declare.js';
export {
  applyPlan,
  applySchedules,
  changedFields,
  isAlertSchedule,
  listOurs,
  planSchedules,
  type ApplyResult,
  type ScheduleDecl,
  type SchedulePlan,
} from '../../activities/schedules.js';
