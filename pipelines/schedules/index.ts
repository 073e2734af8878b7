/**
 * pipelines/schedules: the schedules of a project, one per named pipeline of its project file
 * (declare.ts: declareSchedules(pipelines), no environment read). Planning and applying them on a
 * Temporal server (planSchedules, applyPlan, applySchedules) is temporal/schedules.ts: the alert
 * sync applies its per-alert schedules with it too.
 */
import { isAlertSchedule } from '../../temporal/schedules.js';
import { FEED_SCHEDULE_ID } from './feeds.js';

export { declareSchedules, pipelineSchedules, INDEX_COUNT_CADENCE, RESEARCH_MAX_DEPTH } from './declare.js';
export { applyFeedSchedule, feedScheduleDecl, FEED_SCHEDULE_ID, type FeedScheduleResult } from './feeds.js';

/**
 * The schedules `schedule apply` keeps in line with the pipelines of the project file: all of
 * newsflow's but the per-alert ones (the alert sync keeps them) and the feed poller's
 * (applyFeedSchedule keeps it, with the sources in the warehouse).
 */
export const pipelineScope = (id: string): boolean => !isAlertSchedule(id) && id !== FEED_SCHEDULE_ID;
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
} from '../../temporal/schedules.js';
