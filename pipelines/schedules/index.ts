/**
 * pipelines/schedules: the schedules newsflow declares, as a function of their configuration.
 * - declare.ts: declareSchedules(config) and one function per kind (no environment read)
 * - from-env.ts: the configuration from NEWSFLOW_* variables, read when called (schedulesFromEnv)
 * Applying them to a Temporal server (applySchedules, listOurs) is activities/schedules.ts: the
 * alert sync applies its per-alert schedules with it too.
 */
export {
  declareSchedules,
  distributionSchedules,
  indexCountSchedules,
  researchSchedules,
  storyTrackerSchedules,
  INDEX_COUNT_CADENCE,
  RESEARCH_DEFAULT_CRON,
  RESEARCH_MAX_DEPTH,
  type SchedulesConfig,
  type StandingQuestion,
} from './declare.js';
export { indexCountsFromEnv, researchFromEnv, schedulesConfigFromEnv, schedulesFromEnv, storyTrackerFromEnv } from './from-env.js';
export { applySchedules, isAlertSchedule, listOurs, type ApplyResult, type ScheduleDecl } from '../../activities/schedules.js';
