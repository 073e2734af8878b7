/** Every workflow the worker registers. */
export { newsIngest } from './newsIngest.js';
export { distributionPull } from './distributionPull.js';
export { alertSync, alertRun } from './alertRunner.js';
export { indexCountSampler } from './indexCountSampler.js';
export { storyTracker } from './storyTracker.js';
export { entityGraph } from './entityGraph.js';
export { deepResearch } from './deepResearch.js';
