/** Every workflow the worker registers. */
export { newsIngest } from './news-ingest.js';
export { distributionPull } from './distribution-pull.js';
export { alertSync, alertRun } from './alert-runner.js';
export { indexCountSampler } from './index-count-sampler.js';
export { storyTracker } from './story-tracker.js';
export { entityGraph } from './entity-graph.js';
export { deepResearch } from './deep-research.js';
export { feedPoll } from './feed-poll.js';
export { lakeMaintenance } from './maintenance.js';
export { pipelineNotices } from './notices.js';
