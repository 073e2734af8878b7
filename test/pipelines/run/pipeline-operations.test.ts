/**
 * The preflight's table of what each kind calls (the registry's operations, whose scopes come from
 * spec/routes.ts) is what its activities do call: each activity runs once against a real service,
 * and the operations its client sends are recorded.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NewsClient } from '../../../client/index.js';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { kindOperations, kindNeeds } from '../../../pipelines/run/preflight.js';
import { createNewsIngestActivities } from '../../../activities/news-ingest.js';
import { createIndexCountSamplerActivities } from '../../../activities/index-count-sampler.js';
import { createStoryTrackerActivities } from '../../../activities/story-tracker.js';
import { createDistributionActivities } from '../../../activities/distribution-pull.js';
import { freshProgress } from '../../../activities/distribution-walk.js';
import { createAlertRunnerActivities } from '../../../activities/alert-runner.js';
import { createEntityGraphActivities } from '../../../activities/entity-graph.js';
import { createDeepResearchActivities } from '../../../activities/deep-research.js';
import { api, startTestService, tempDir, type TestService } from '../../helpers/service.js';

let svc: TestService;
let whDir: string;
let warehouse: Warehouse;
beforeAll(async () => {
  svc = await startTestService();
  whDir = tempDir('newsflow-ops-');
  warehouse = await Warehouse.open(whDir);
}, 120_000);
afterAll(async () => {
  warehouse?.close();
  await svc?.stop();
  fs.rmSync(whDir, { recursive: true, force: true });
});

/** The operations `work` makes its client call. */
async function called(work: (client: NewsClient) => Promise<unknown>): Promise<string[]> {
  const ops = new Set<string>();
  const client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, onEvent: (e) => e.type === 'request' && ops.add(e.operationId) });
  try {
    await work(client);
  } finally {
    await client.close();
  }
  return [...ops].sort();
}
const run = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, ...args: A) =>
  new MockActivityEnvironment().run(fn as never, ...(args as unknown as never[])) as Promise<R>;
const day = { from: '2022-07-08T00:00:00.000Z', to: '2022-07-09T00:00:00.000Z' };
const win = { orgId: 'acme', domains: ['acme.com'], start: Date.parse(day.from), end: Date.parse(day.to), loadId: 'ops/1' };

const actual: Record<string, (c: NewsClient) => Promise<unknown>> = {
  news: (client) =>
    run(createNewsIngestActivities({ client, warehouse }).ingestPage, { loadId: 'ops/1', query: '', filters: {}, ...day, offset: 0, pageSize: 5 }),
  'index-counts': (client) =>
    run(createIndexCountSamplerActivities({ client, warehouse }).sampleIndexCounts, { loadId: 'ops/1', sampling: '1d', domain: null, filters: {}, ...day }),
  stories: (client) =>
    run(createStoryTrackerActivities({ client, warehouse }).trackStories, { tracker: { name: 'top', stories: 2 }, runAt: day.to, loadId: 'ops/1' }),
  graph: (client) => run(createEntityGraphActivities({ client, warehouse }).buildEntityGraph, { runId: 'ops', runAt: day.to, loadId: 'ops/1', query: 'flood' }),
  distribution: async (client) => {
    const a = createDistributionActivities({ client, warehouse });
    await run(a.whoAmI);
    await run(a.pullTopNPage, { ...win, page: 1, limit: 5, metric: 'surface' });
    await run(a.pullHitShare, win);
    await run(a.pullMetrics, win);
    await run(a.walkDistribution, {
      orgId: '',
      domains: win.domains,
      limit: 5,
      metric: 'surface',
      endpoints: ['top_n_for_domains', 'hit_share', 'metrics'],
      windows: [{ start: win.start, end: win.end, loadId: win.loadId, index: 0 }],
      progress: freshProgress(),
      maxPages: 1,
      budgetMs: 60_000,
      load: { workflowId: 'ops', runId: 'ops', startedAt: day.from, windows: 1, coverage: true },
    });
  },
  alerts: async (client) => {
    const alert = (await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { title: 'ops', query: 'flood', cron: '0 * * * *', triggers: [] })).body as {
      id: string;
    };
    // the sync lists the alerts, then applies schedules (not here: no Temporal server of this test's own)
    const a = createAlertRunnerActivities({ client, warehouse, taskQueue: 'none', temporal: () => Promise.reject(new Error('no Temporal in this test')) });
    await run(a.syncAlertSchedules).catch(() => undefined);
    await run(a.runAlert, { alertId: alert.id });
  },
  research: (client) =>
    run(createDeepResearchActivities({ client, warehouse }).researchRound, {
      runId: 'ops-research',
      name: null,
      params: { question: 'flood' },
      round: 1,
      rounds: 1,
      runAt: day.to,
      loadId: 'ops/1',
    }),
};

describe('what each pipeline calls', () => {
  const operations = kindOperations();
  it('every kind that calls the API has its activities here', () => expect(Object.keys(actual).sort()).toEqual(Object.keys(operations).sort()));
  for (const kind of Object.keys(operations)) {
    it(`${kind}: its activities call exactly the operations the preflight checks the key for`, async () => {
      const ops = await called(actual[kind]!);
      console.log(`${kind}: ${ops.join(', ')}; scopes ${kindNeeds(kind).scopes.join(', ')}`);
      expect(ops).toEqual([...operations[kind]!].sort());
    }, 60_000);
  }
});
