/**
 * An alert whose query matches an item added to a feed fires within one poll interval, with the
 * worker's time under test control: Temporal's time-skipping test server (test/helpers/time-skipping.ts),
 * the real feedPoll and alertRun workflows and activities, a real service and warehouse, the real
 * Guardian feed on loopback (its newest items added at a chosen minute).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createFeedPollActivities } from '../../activities/feed-poll.js';
import { createAlertRunnerActivities } from '../../activities/alert-runner.js';
import { SourceStore } from '../../warehouse/sources.js';
import { api, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { startTimeSkipping } from '../helpers/time-skipping.js';
import { waitUntil } from '../helpers/wait-until.js';
import type { ClockActivities, Minute } from './feed-alert-harness.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';

const LOOPBACK = parseFetchAllow('127.0.0.1');

const require = createRequire(import.meta.url);
const QUEUE = 'feed-alert-test';
const INTERVAL_MIN = 15;

let env: TestWorkflowEnvironment;
let server: FeedServer;
let svc: TestService;
let warehouse: Warehouse;
let client: NewsClient;
let minutes: Minute[];
let query: string;
let revealAt: number;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  env = await startTimeSkipping();
  server = await startFeedServer({ files: ['rss2/guardian-us.rss', 'atom/heise-developer.atom'], stages: 2, pages: 0 });
  svc = await startTestService({ limitsText: 'news=1000:1000:100,chat=1000:1000:50', fetchAllow: '127.0.0.1' });
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org! });
  // the query: a word of an item that only stage 2 shows, in no item stage 1 shows
  const guardian = server.feed('rss2/guardian-us.rss');
  const before = new Set(
    [...guardian.visibleAt(1), ...server.feed('atom/heise-developer.atom').items].flatMap(
      (i) => `${i.title} ${i.summary}`.toLowerCase().match(/\p{L}+/gu) ?? [],
    ),
  );
  const added = guardian.visibleAt(2).slice(0, guardian.items.length - guardian.visibleAt(1).length);
  query = added.flatMap((i) => i.title.toLowerCase().match(/\p{L}{8,}/gu) ?? []).find((w) => !before.has(w))!;
  expect(query).toBeTruthy();
  const store = new SourceStore(warehouse);
  await store.declare(
    server.feeds.map((f) => ({ source: f.file.replace(/[/.]/g, '-'), url: f.url, language: null, tags: [], pollIntervalS: INTERVAL_MIN * 60 })),
    'file',
    await env.currentTimeMs(),
  );
  const alert = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
    query,
    cron: '* * * * *',
    triggers: [],
    sources: [{ identifier: 'asknews', params: { method: 'kw' } }],
  });
  expect(alert.status, JSON.stringify(alert.body)).toBe(201);
  const clock: ClockActivities = {
    reveal: async (stage) => server.reveal(stage),
    settle: () =>
      waitUntil(
        async () => svc.services.web!.indexer.pending === 0 && (await svc.services.db.all('SELECT 1 FROM url_jobs WHERE finished_at IS NULL')).length === 0,
        {
          what: 'index_urls jobs finished',
          timeoutMs: 300_000,
          intervalMs: 100,
        },
      ).then(() => undefined),
    fired: async (id) =>
      ((await api(svc.url, 'GET', `/v1/chat/alerts/${id}/logs?per_page=100`, svc.keys.org)).body.items as { alert: boolean }[]).some((l) => l.alert),
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: QUEUE,
    workflowsPath: require.resolve('./feed-alert-harness.ts'),
    activities: {
      ...createFeedPollActivities({ client, warehouse, delayMs: 0, fetch: { policy: LOOPBACK } }),
      ...createAlertRunnerActivities({
        client,
        warehouse,
        temporal: async () => env.client,
        taskQueue: QUEUE,
        smtpUrl: null,
        webhookFetch: { policy: LOOPBACK },
      }),
      ...clock,
    },
  });
  revealAt = 3;
  minutes = await worker.runUntil(
    env.client.workflow.execute('feedsAndAlertClock', {
      taskQueue: QUEUE,
      workflowId: `feeds-and-alert-${Date.now()}`,
      args: [{ alertId: alert.body.id, minutes: revealAt + INTERVAL_MIN + 3, revealAt, stage: 2 }],
    }),
  );
}, 900_000);

afterAll(async () => {
  warehouse?.close();
  await client?.close();
  await svc?.stop();
  await server?.close();
  await env?.teardown();
});

describe('an alert on items added to a feed', () => {
  it('fires within one poll interval of the item showing in the feed, in workflow time', () => {
    for (const m of minutes) if (m.polled || m.fired) console.log(`minute ${m.minute}: polled ${m.polled}, sent ${m.sent}, fired ${m.fired}`);
    console.log(`query "${query}", items added at minute ${revealAt}`);
    // the first round polled both feeds and sent their first items, which do not match
    expect(minutes[0]).toMatchObject({ polled: 2, fired: false });
    expect(minutes[0]!.sent).toBeGreaterThan(0);
    expect(minutes.filter((m) => m.minute < revealAt).some((m) => m.fired)).toBe(false);
    const first = minutes.find((m) => m.fired)!;
    expect(first).toBeDefined();
    expect(first.minute - revealAt).toBeLessThanOrEqual(INTERVAL_MIN);
    expect(first.at - minutes[revealAt]!.at).toBeLessThanOrEqual(INTERVAL_MIN * 60_000);
    // the round that found it polled the sources due at their interval, not before (the first
    // round's own work runs in real time, which moves the due minute by up to one)
    const found = minutes.find((m) => m.sent > 0 && m.minute >= revealAt)!;
    expect(found.minute).toBeGreaterThanOrEqual(INTERVAL_MIN - 1);
    expect(found.minute).toBeLessThanOrEqual(INTERVAL_MIN);
    expect(first.minute).toBe(found.minute);
    // time was skipped: the workflow saw the minutes pass
    expect(minutes.at(-1)!.at - minutes[0]!.at).toBeGreaterThanOrEqual((minutes.length - 1) * 60_000);
  });
});
