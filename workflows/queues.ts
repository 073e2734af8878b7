/**
 * Task queues: one per rate-limited scope group (the worker, pipelines/worker, sets each queue's
 * activity rate). Here because a workflow names one (alertRun's deliveries) and workflows import
 * nothing of pipelines/; pipelines/ and the tests import them from here.
 */
export const TASK_QUEUES = {
  news: 'newsflow-news',
  distribution: 'newsflow-distribution',
  /** story tracking: API calls of the stories scope */
  stories: 'newsflow-stories',
  /** alert sync and runs: API calls of the chat scope */
  alerts: 'newsflow-alerts',
  /** research runs: DeepNews calls (the deepnews limit group) */
  research: 'newsflow-research',
  /** webhook and email deliveries: no API calls, not limited by the API's rates */
  deliveries: 'newsflow-deliveries',
  /** feed polling (workflows/feed-poll.ts): fetches of feeds, politeness per host; index_urls calls through the client's limiter */
  feeds: 'newsflow-feeds',
  /** lake maintenance (workflows/maintenance.ts): no API calls, one run at a time */
  maintenance: 'newsflow-maintenance',
} as const;
