/**
 * The worker: all workflows and activities, one task queue per rate-limited scope group, each with
 * maxTaskQueueActivitiesPerSecond matching the API's limit (on top of the client's own limiter).
 */
import { createRequire } from 'node:module';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DEFAULT_LIMITS, parseLimits, type LimitsConfig } from '../spec/index.js';
import { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createNewsIngestActivities } from '../activities/newsIngest.js';
import { createDistributionActivities } from '../activities/distributionPull.js';
import { createIndexCountSamplerActivities } from '../activities/indexCountSampler.js';

const require = createRequire(import.meta.url);
export const TASK_QUEUES = { news: 'newsflow-news', distribution: 'newsflow-distribution' } as const;

export interface WorkerDeps {
  address: string;
  namespace: string;
  client: NewsClient;
  warehouse: Warehouse;
  /** per-group rates for maxTaskQueueActivitiesPerSecond (default: $NEWSFLOW_LIMITS over the interface defaults) */
  limits?: LimitsConfig;
  onPage?: (page: number) => void;
}

export async function createWorkers(deps: WorkerDeps): Promise<{ run(): Promise<void>; shutdown(): void }> {
  const connection = await NativeConnection.connect({ address: deps.address });
  const limits = deps.limits ?? parseLimits(process.env.NEWSFLOW_LIMITS, DEFAULT_LIMITS);
  const activities = {
    ...createNewsIngestActivities({ client: deps.client, warehouse: deps.warehouse }),
    ...createDistributionActivities({ client: deps.client, warehouse: deps.warehouse, onPage: deps.onPage }),
    ...createIndexCountSamplerActivities({ client: deps.client, warehouse: deps.warehouse }),
  };
  const workflowsPath = require.resolve('../workflows/index.ts');
  const news = await Worker.create({
    connection, namespace: deps.namespace, taskQueue: TASK_QUEUES.news, workflowsPath, activities,
    maxTaskQueueActivitiesPerSecond: limits.news.rate,
  });
  const distribution = await Worker.create({
    connection, namespace: deps.namespace, taskQueue: TASK_QUEUES.distribution, workflowsPath, activities,
    maxTaskQueueActivitiesPerSecond: limits.distribution.rate,
    maxConcurrentActivityTaskExecutions: limits.distribution.concurrency,
  });
  const workers = [news, distribution];
  return {
    run: async () => {
      await Promise.all(workers.map((w) => w.run()));
      await connection.close();
    },
    shutdown: () => workers.forEach((w) => w.shutdown()),
  };
}
