/**
 * Scheduled alert runs and their webhook deliveries over minutes of workflow time, on Temporal's
 * time-skipping test server (test/helpers/time-skipping.ts): the real alertRun workflow and
 * activities, a real service and warehouse, two webhook receivers on loopback, one of them down for
 * several minutes of runs. `alertMinutes` (alert-minutes-harness.ts) starts each alert's run every
 * minute as its schedule would (the schedules themselves, and alertSync, are tested on the dev
 * server in alert-runner.test.ts); retry backoffs and the minutes between runs cost no wall time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { createAlertRunnerActivities } from '../../activities/alert-runner.js';
import { api, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { holdFeed, releaseUntil } from '../helpers/pipeline.js';
import { startTimeSkipping } from '../helpers/time-skipping.js';
import type { AlertMinute, MinuteActivities } from './alert-minutes-harness.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';

const require = createRequire(import.meta.url);
const QUEUE = 'alert-minutes-test';
const FEED = path.join(repoRoot, 'test/fixtures/corpus/alerts-feed.json');
/** minutes of news (the feed's 24 articles, 4 a minute), and the minute the down receiver comes back */
const NEWS_MINUTES = 6;
const UP_AT = 6;
const MINUTES = UP_AT + 2;

interface Received {
  key: string;
  body: { log_id: string; alert_id: string; articles: { title: string | null }[] };
  at: number;
  headers: http.IncomingHttpHeaders;
}
/** A webhook receiver; after `down()` nothing listens on its port (connection refused). */
function receiver() {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      got.push({ key: String(req.headers['idempotency-key']), body: JSON.parse(data), at: Date.now(), headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  let port = 0;
  return {
    got,
    url: () => `http://127.0.0.1:${port}/hook`,
    async up() {
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    },
    async down() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let env: TestWorkflowEnvironment;
let svc: TestService;
let warehouse: Warehouse;
let client: NewsClient;
const up = receiver();
const down = receiver();
let flood: { id: string };
let quake: { id: string };
let minutes: AlertMinute[];
/** real time at which the down receiver came back, and what it had received by then */
let backAt = 0;
let gotWhileDown = -1;
/** articles the hold left pending (the replay it starts lets the first through) */
let held = 0;

const createAlert = async (body: Record<string, unknown>) => {
  const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string };
};

beforeAll(async () => {
  // the receivers listen on loopback: the service (alert creation) and the deliveries allow it
  Runtime.install({ logger: new DefaultLogger('ERROR') }); // the refused deliveries' retries are expected, not news
  env = await startTimeSkipping();
  svc = await startTestService({ limitsText: 'chat=1000:1000:50,news=1000:1000:50', fetchAllow: '127.0.0.1' });
  // the feed is held back: it arrives minute by minute once the alerts exist
  await holdFeed(svc, FEED);
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  client = new NewsClient({
    baseUrl: svc.url,
    apiKey: svc.keys.org,
    limits: { chat: { rate: 500, burst: 100, concurrency: 10 }, news: { rate: 500, burst: 100, concurrency: 10 } },
  });
  await up.up();
  await down.up();
  await down.down(); // its port now refuses connections
  flood = await createAlert({
    query: 'river flooding',
    cron: '* * * * *',
    alert_type: 'AlwaysAlertWhen',
    triggers: [{ action: 'webhook', params: { url: up.url(), headers: { 'x-team': 'weather' } } }],
  });
  quake = await createAlert({
    query: 'earthquake',
    cron: '* * * * *',
    alert_type: 'AlwaysAlertWhen',
    triggers: [{ action: 'webhook', params: { url: down.url() } }],
  });

  held = svc.services.seeder!.pendingCount;
  const perMinute = Math.ceil(held / NEWS_MINUTES);
  const clock: MinuteActivities = {
    arrive: async (minute) => {
      const before = svc.services.seeder!.pendingCount;
      if (minute < NEWS_MINUTES) await releaseUntil(svc, Math.max(0, held - (minute + 1) * perMinute));
      return before - svc.services.seeder!.pendingCount;
    },
    receiverUp: async () => {
      gotWhileDown = down.got.length;
      backAt = Date.now();
      await down.up();
    },
  };
  const activities = createAlertRunnerActivities({
    client,
    warehouse,
    temporal: async () => env.client,
    taskQueue: QUEUE,
    smtpUrl: null,
    webhookFetch: { policy: parseFetchAllow('127.0.0.1') },
  });
  const runner = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: QUEUE,
    workflowsPath: require.resolve('./alert-minutes-harness.ts'),
    activities: { ...activities, ...clock },
  });
  // the deliveries' own queue, as the worker has it (pipelines/worker/worker.ts)
  const deliveries = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUES.deliveries,
    activities,
    maxConcurrentActivityTaskExecutions: 10,
  });
  minutes = await deliveries.runUntil(
    runner.runUntil(
      env.client.workflow.execute('alertMinutes', {
        taskQueue: QUEUE,
        workflowId: `alert-minutes-${Date.now()}`,
        args: [{ alertIds: [flood.id, quake.id], minutes: MINUTES, upAt: UP_AT }],
      }),
    ),
  );
}, 600_000);

afterAll(async () => {
  await up.down().catch(() => undefined);
  await down.down().catch(() => undefined);
  warehouse?.close();
  await client?.close();
  await svc?.stop();
  await env?.teardown();
});

describe('scheduled alert runs while news arrives', () => {
  it('one POST per triggered log; a receiver down for minutes of runs gets everything once back, in order', async () => {
    for (const m of minutes)
      console.log(
        `minute ${m.minute}: ${m.arrived} arrived; ` +
          Object.entries(m.runs)
            .map(([id, r]) => `${id === flood.id ? 'flood' : 'quake'} logs ${r.logs}, delivered ${r.delivered}, pending ${r.pending}`)
            .join('; '),
      );
    // every article arrived, and the minutes passed in workflow time
    expect(held).toBeGreaterThan(20);
    expect(minutes.reduce((n, m) => n + m.arrived, 0)).toBe(held);
    expect(minutes.at(-1)!.at - minutes[0]!.at).toBeGreaterThanOrEqual((MINUTES - 1) * 60_000);
    // while the earthquake receiver was down, runs triggered and delivered nothing: their deliveries stayed owed, run after run
    const outage = minutes.filter((m) => m.minute < UP_AT).map((m) => m.runs[quake.id]!);
    expect(outage.filter((r) => r.pending > 0).length).toBeGreaterThanOrEqual(3);
    expect(outage.every((r) => r.delivered === 0)).toBe(true);
    expect(gotWhileDown).toBe(0);
    // the first run after it came back delivered all that was owed, and nothing was left
    expect(minutes[UP_AT]!.runs[quake.id]).toMatchObject({ pending: 0 });
    expect(minutes[UP_AT]!.runs[quake.id]!.delivered).toBeGreaterThanOrEqual(2);
    for (const m of minutes) expect(m.runs[flood.id]!.pending, `flood minute ${m.minute}`).toBe(0);
    const owed = await warehouse.query<{ n: bigint }>(`SELECT count(*) AS n FROM alert_deliveries WHERE status <> 'delivered'`);
    expect(Number(owed[0]!.n)).toBe(0);

    for (const [alert, rec, wasDown] of [
      [flood, up, false],
      [quake, down, true],
    ] as const) {
      const logs = (await api(svc.url, 'GET', `/v1/chat/alerts/${alert.id}/logs?all=true`, svc.keys.org)).body.items as {
        id: string;
        alert: boolean;
        created_at: string;
      }[];
      const triggered = logs.filter((l) => l.alert).sort((x, y) => x.created_at.localeCompare(y.created_at) || x.id.localeCompare(y.id));
      expect(triggered.length, alert.id).toBeGreaterThanOrEqual(2);
      // every log landed in the warehouse (merge on log id: no duplicates)
      const landed = await warehouse.query<{ id: string }>(`SELECT log_id::VARCHAR AS id FROM alert_logs WHERE alert_id = $1::UUID`, [alert.id]);
      expect(landed.map((x) => x.id).sort()).toEqual(logs.map((l) => l.id).sort());
      // one POST per triggered log, in log order, each with its own key naming the log
      expect(new Set(rec.got.map((g) => g.key)).size).toBe(triggered.length);
      expect(rec.got.map((g) => g.body.log_id)).toEqual(triggered.map((l) => l.id));
      for (const g of rec.got) {
        expect(g.key.startsWith(`${g.body.log_id}.0.`)).toBe(true);
        expect(g.body.alert_id).toBe(alert.id);
        expect(g.body.articles.length).toBeGreaterThan(0);
        expect(g.body.articles.every((a) => typeof a.title === 'string')).toBe(true);
      }
      const ledger = await warehouse.query<{ log_id: string; status: string; attempts: number; response_code: number }>(
        `SELECT log_id::VARCHAR AS log_id, status, attempts, response_code FROM alert_deliveries WHERE alert_id = $1::UUID ORDER BY log_created_at`,
        [alert.id],
      );
      expect(ledger.map((x) => x.log_id)).toEqual(triggered.map((l) => l.id));
      for (const row of ledger) expect(row).toMatchObject({ status: 'delivered', response_code: 200 });
      console.log(
        `alert ${wasDown ? 'quake (receiver down)' : 'flood (receiver up)'}: ${logs.length} logs, ${triggered.length} triggered, ${rec.got.length} POSTs, attempts ${ledger.map((x) => Number(x.attempts)).join('/')}`,
      );
      if (wasDown) {
        // the oldest log was retried within each run (6 attempts) and again in the next runs (the
        // later ones wait behind it, to keep the order); all arrived after the receiver came back
        expect(Number(ledger[0]!.attempts)).toBeGreaterThan(6);
        expect(rec.got.every((g) => g.at >= backAt)).toBe(true);
      } else {
        expect(ledger.every((x) => Number(x.attempts) === 1)).toBe(true);
      }
    }
    expect(up.got.every((g) => g.headers['x-team'] === 'weather' && g.headers['content-type'] === 'application/json')).toBe(true);
  });
});
