/**
 * `newsflow/activities`: newsflow's activities (each a factory taking the worker's API client and
 * warehouse; their types are what a workflow's proxyActivities takes), and the contract of your own
 * pipelines (definePipelines).
 */
export { articleRows } from '../warehouse/tables/articles.js';
export { createNewsIngestActivities, type NewsIngestActivities, type IngestPageInput, type IngestPageResult } from './news-ingest.js';
export { createDistributionActivities, type DistributionActivities } from './distribution-pull.js';
export { createStoryTrackerActivities, type StoryTrackerActivities, type Tracker } from './story-tracker.js';
export { createIndexCountSamplerActivities, type IndexCountSamplerActivities } from './index-count-sampler.js';
export { createEntityGraphActivities, type EntityGraphActivities } from './entity-graph.js';
export { createDeepResearchActivities, type DeepResearchActivities, type ResearchParams } from './deep-research.js';
export { createRecordLoadActivities, type RecordLoadActivities, type WindowLoad } from './record-load.js';
export { createAlertRunnerActivities, type AlertRunnerActivities } from './alert-runner.js';
export { definePipelines, type ActivityDeps, type PipelinesModule } from './extension.js';
