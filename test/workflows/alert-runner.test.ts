/**
 * The alert runner on the real Temporal dev server against the real service, with local webhook
 * receivers: schedule sync, end-to-end delivery while articles arrive through replay, a receiver
 * that is down for several minutes of scheduled runs, and deliveries the fetch policy refuses.
 * The receivers listen on 127.0.0.1, which NEWSFLOW_FETCH_ALLOW lists for this file.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ScheduleNotFoundError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { isAlertSchedule, listOurs } from '../../activities/schedules.js';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { holdFeed, startHarness, type Harness } from '../helpers/pipeline.js';
import { redirect, startPageServer } from '../helpers/page-server.js';

const NS = 'nf-alerts';
const FEED = path.join(repoRoot, 'test/fixtures/corpus/alerts-feed.json');
const LIMITS = 'chat=1000:1000:50,news=1000:1000:50';

let svc: TestService;
let h: Harness;
let warehouse: Warehouse;
let temporal: Client;
/** a public-looking name the worker's resolver (its fetch policy's hook) answers with a loopback address outside the allow list */
const REBOUND = 'hooks.public-receiver.com';

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  svc = await startTestService({ limitsText: LIMITS });
  // the feed is held back: it arrives through replay once the alerts exist
  await holdFeed(svc, FEED);
  const client = new NewsClient({
    baseUrl: svc.url,
    apiKey: svc.keys.org,
    limits: { chat: { rate: 500, burst: 100, concurrency: 10 }, news: { rate: 500, burst: 100, concurrency: 10 } },
  });
  h = await startHarness({
    namespace: NS,
    client,
    smtpUrl: null,
    webhookFetch: { lookup: async (host) => (host === REBOUND ? [{ address: '127.0.0.2', family: 4 }] : dnsLookup(host, { all: true })) },
  });
  ({ warehouse, temporal } = h);
}, 180_000);
afterAll(async () => {
  for (const s of await listOurs(temporal, isAlertSchedule))
    await temporal.schedule
      .getHandle(s.id)
      .delete()
      .catch(() => undefined);
  await h?.stop();
  await svc?.stop();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

const sync = () =>
  temporal.workflow.execute('alertSync', { taskQueue: TASK_QUEUES.alerts, workflowId: `sync-${Date.now()}-${Math.random()}`, args: [] }) as Promise<{
    created: string[];
    updated: string[];
    deleted: string[];
    unchanged: string[];
    active: number;
  }>;
const createAlert = async (body: Record<string, unknown>) => {
  const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, body);
  expect(r.status).toBe(201);
  return r.body as { id: string; cron: string };
};
const scheduleOf = async (id: string) => {
  try {
    return await temporal.schedule.getHandle(`alert-${id}`).describe();
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) return null;
    throw e;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Received {
  key: string;
  body: { log_id: string; alert_id: string; articles: { title: string | null }[] };
  at: number;
  headers: http.IncomingHttpHeaders;
}
/** A webhook receiver; `up` false means nothing listens on its port (connection refused). */
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

describe('alert sync', () => {
  it('keeps exactly one schedule per active alert: created, updated with the cron, removed when deleted, inactive or expired', async () => {
    const hook = { action: 'webhook', params: { url: 'https://hooks.example.com/x' } };
    const a = await createAlert({ query: 'sync a', cron: '*/5 * * * *', triggers: [hook] });
    const b = await createAlert({ query: 'sync b', cron: '@hourly', triggers: [hook] });
    const c = await createAlert({ query: 'sync c', cron: '0 9 * * 1', triggers: [hook], active: false });
    const d = await createAlert({ query: 'sync d', cron: '0 * * * *', triggers: [hook], expires_at: '2020-01-01T00:00:00Z' });
    const r1 = await sync();
    expect(r1.created.sort()).toEqual([`alert-${a.id}`, `alert-${b.id}`].sort());
    // Temporal keeps a cron spec as calendars; what it will run is what counts
    const next = (await scheduleOf(a.id))!.info.nextActionTimes.map((t) => t.getTime());
    expect(next.length).toBeGreaterThan(1);
    for (const t of next) expect(new Date(t).getUTCMinutes() % 5).toBe(0);
    const nextB = (await scheduleOf(b.id))!.info.nextActionTimes;
    for (const t of nextB) expect(t.getUTCMinutes()).toBe(0);
    expect(await scheduleOf(c.id)).toBeNull();
    expect(await scheduleOf(d.id)).toBeNull();
    const action = (await scheduleOf(a.id))!.action as { workflowType: string; args?: unknown[]; taskQueue: string };
    expect(action).toMatchObject({ workflowType: 'alertRun', taskQueue: TASK_QUEUES.alerts, args: [{ alertId: a.id }] });

    expect(await sync()).toMatchObject({ created: [], updated: [], deleted: [] });

    await api(svc.url, 'PUT', `/v1/chat/alerts/${a.id}`, svc.keys.org, { cron: '30 2 * * *' });
    await api(svc.url, 'PUT', `/v1/chat/alerts/${c.id}`, svc.keys.org, { active: true });
    const r3 = await sync();
    expect(r3.updated).toEqual([`alert-${a.id}`]);
    expect(r3.created).toEqual([`alert-${c.id}`]);
    for (const t of (await scheduleOf(a.id))!.info.nextActionTimes) expect([t.getUTCHours(), t.getUTCMinutes()]).toEqual([2, 30]);

    // listing is eventually consistent; deletions come from the listing
    for (let i = 0; i < 100 && (await listOurs(temporal, isAlertSchedule)).length < 3; i++) await sleep(100);
    const del = await fetch(`${svc.url}/v1/chat/alerts/${b.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${svc.keys.org}` } });
    expect(del.status).toBe(204);
    await api(svc.url, 'PUT', `/v1/chat/alerts/${c.id}`, svc.keys.org, { active: false });
    const r4 = await sync();
    expect(r4.deleted.sort()).toEqual([`alert-${b.id}`, `alert-${c.id}`].sort());
    expect(await scheduleOf(b.id)).toBeNull();
    expect(await scheduleOf(c.id)).toBeNull();
    expect(await scheduleOf(a.id)).not.toBeNull();
    // the warehouse knows the alerts, the deleted one flagged
    const rows = await warehouse.query<{ id: string; deleted: boolean; active: boolean }>('SELECT alert_id::VARCHAR AS id, deleted, active FROM alerts');
    expect(rows.find((x) => x.id === b.id)).toMatchObject({ deleted: true });
    expect(rows.find((x) => x.id === c.id)).toMatchObject({ deleted: false, active: false });
    // leave no schedules behind for the next test
    await fetch(`${svc.url}/v1/chat/alerts/${a.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${svc.keys.org}` } });
    await sync();
    expect(await scheduleOf(a.id)).toBeNull();
  });
});

describe('scheduled runs and deliveries', () => {
  it('articles arrive through replay: one POST per triggered log; a receiver down for minutes gets everything after, in order', async () => {
    const up = receiver();
    await up.up();
    const down = receiver();
    await down.up();
    await down.down(); // its port now refuses connections
    const flood = await createAlert({
      query: 'river flooding',
      cron: '* * * * *',
      alert_type: 'AlwaysAlertWhen',
      triggers: [{ action: 'webhook', params: { url: up.url(), headers: { 'x-team': 'weather' } } }],
    });
    const quake = await createAlert({
      query: 'earthquake',
      cron: '* * * * *',
      alert_type: 'AlwaysAlertWhen',
      triggers: [{ action: 'webhook', params: { url: down.url() } }],
    });
    const s = await sync();
    expect(s.created.sort()).toEqual([`alert-${flood.id}`, `alert-${quake.id}`].sort());

    // 115 minutes of news in about two minutes: several scheduled (every minute) runs see new articles
    const t0 = Date.now();
    svc.services.news!.startReplay(60);
    while (svc.services.news!.pendingCount > 0) await sleep(500);
    // the earthquake receiver stays down for at least three minutes of scheduled runs
    while (Date.now() - t0 < 185_000) await sleep(1000);
    const logsDuringOutage = (await api(svc.url, 'GET', `/v1/chat/alerts/${quake.id}/logs?all=true`, svc.keys.org)).body.items.filter(
      (l: { alert: boolean }) => l.alert,
    );
    expect(logsDuringOutage.length).toBeGreaterThanOrEqual(2);
    expect(down.got).toHaveLength(0);
    const backAt = Date.now();
    await down.up();

    // one more scheduled run of each delivers what is owed; wait for both to finish
    const lastRuns = await Promise.all(
      [flood.id, quake.id].map(async (id) => {
        const h = temporal.schedule.getHandle(`alert-${id}`);
        const before = (await h.describe()).info.recentActions.length;
        await h.trigger();
        for (let i = 0; i < 600; i++) {
          const acts = (await h.describe()).info.recentActions;
          if (acts.length > before) return acts[acts.length - 1]!.action.workflow;
          await sleep(200);
        }
        throw new Error('no run started');
      }),
    );
    // a buffered run may start behind one in progress: wait for every run of both schedules
    for (const wf of lastRuns) await temporal.workflow.getHandle(wf.workflowId, wf.firstExecutionRunId).result();
    const owed = async () => Number((await warehouse.query<{ n: bigint }>(`SELECT count(*) AS n FROM alert_deliveries WHERE status <> 'delivered'`))[0]!.n);
    for (let i = 0; i < 120 && (await owed()) > 0; i++) await sleep(1000);
    expect(await owed()).toBe(0);

    for (const [alert, rec, outage] of [
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
      // one POST per triggered log, each with its own key naming the log
      const keys = rec.got.map((g) => g.key);
      expect(new Set(keys).size).toBe(triggered.length);
      expect(rec.got.map((g) => g.body.log_id)).toEqual(triggered.map((l) => l.id));
      for (const g of rec.got) {
        expect(g.key.startsWith(`${g.body.log_id}.0.`)).toBe(true);
        expect(g.body.alert_id).toBe(alert.id);
        expect(g.body.articles.length).toBeGreaterThan(0);
        expect(g.body.articles.every((a) => typeof a.title === 'string')).toBe(true);
      }
      const ledger = await warehouse.query<{
        log_id: string;
        status: string;
        attempts: number;
        response_code: number;
        first_attempt_at: Date;
        last_attempt_at: Date;
      }>(
        `SELECT log_id::VARCHAR AS log_id, status, attempts, response_code, first_attempt_at, last_attempt_at FROM alert_deliveries WHERE alert_id = $1::UUID ORDER BY log_created_at`,
        [alert.id],
      );
      expect(ledger.map((x) => x.log_id)).toEqual(triggered.map((l) => l.id));
      for (const row of ledger) expect(row).toMatchObject({ status: 'delivered', response_code: 200 });
      console.log(
        `alert ${outage ? 'quake (receiver down)' : 'flood (receiver up)'}: ${logs.length} logs, ${triggered.length} triggered, ${rec.got.length} POSTs, ${new Set(rec.got.map((g) => g.key)).size} keys, attempts ${ledger.map((x) => Number(x.attempts)).join('/')}`,
      );
      if (outage) {
        // the oldest log was retried with backoff across scheduled runs while the receiver was down
        // (the later ones wait behind it, to keep the order); all arrived after it came back
        expect(Number(ledger[0]!.attempts)).toBeGreaterThan(6);
        expect(new Date(ledger[0]!.last_attempt_at).getTime()).toBeGreaterThan(new Date(ledger[0]!.first_attempt_at).getTime() + 60_000);
        expect(rec.got.every((g) => g.at >= backAt)).toBe(true);
      } else {
        expect(ledger.every((x) => Number(x.attempts) === 1)).toBe(true);
      }
    }
    expect(up.got.every((g) => g.headers['x-team'] === 'weather' && g.headers['content-type'] === 'application/json')).toBe(true);
    await up.down();
    await down.down();
  }, 480_000);
});

describe('triggers the runner cannot send', () => {
  it('email without NEWSFLOW_SMTP_URL and other actions are recorded as skipped, with the reason', async () => {
    const a = await createAlert({
      query: 'anything',
      cron: '0 0 1 1 *',
      alert_type: 'ReportAbout',
      report: { prompt: 'digest' },
      triggers: [
        { action: 'email', params: { to: 'team@example.com' } },
        { action: 'resend_broadcast', params: { sender: 'A <a@example.com>', audience_id: 'aud', resend_api_key: 're_x' } },
      ],
    });
    const r = (await temporal.workflow.execute('alertRun', {
      taskQueue: TASK_QUEUES.alerts,
      workflowId: `alert-skip-${Date.now()}`,
      args: [{ alertId: a.id }],
    })) as { logs: number; delivered: number; skipped: number; pending: number };
    expect(r).toMatchObject({ logs: 1, delivered: 0, skipped: 2, pending: 0 });
    const rows = await warehouse.query<{ action: string; status: string; error: string; attempts: number }>(
      'SELECT action, status, error, attempts FROM alert_deliveries WHERE alert_id = $1::UUID ORDER BY trigger_index',
      [a.id],
    );
    expect(rows).toEqual([
      { action: 'email', status: 'skipped', error: 'email not sent: NEWSFLOW_SMTP_URL is not set', attempts: 0 },
      {
        action: 'resend_broadcast',
        status: 'skipped',
        error: 'action resend_broadcast cannot be performed by this runner (webhook and email only)',
        attempts: 0,
      },
    ]);
    // a second run owes nothing for the first log
    const r2 = (await temporal.workflow.execute('alertRun', {
      taskQueue: TASK_QUEUES.alerts,
      workflowId: `alert-skip2-${Date.now()}`,
      args: [{ alertId: a.id }],
    })) as { skipped: number };
    expect(r2.skipped).toBe(2);
    expect(Number((await warehouse.query<{ n: bigint }>('SELECT count(*) AS n FROM alert_deliveries WHERE alert_id = $1::UUID', [a.id]))[0]!.n)).toBe(4);
  });
});

describe('webhooks under the fetch policy', () => {
  it('a name resolving to loopback and a redirect to loopback are refused at delivery, in the ledger with the reason, never retried; nothing reaches the listener', async () => {
    // the listener the refused deliveries aim at: loopback, outside NEWSFLOW_FETCH_ALLOW (127.0.0.1)
    const inside = await startPageServer('127.0.0.2');
    inside.routes.set('/hook', (_req, res) => res.writeHead(200).end('reached'));
    // an allowed receiver that bounces the POST to it
    const bouncer = await startPageServer('127.0.0.1');
    bouncer.routes.set('/bounce', redirect(`${inside.origin}/hook`, 307));
    try {
      const a = await createAlert({
        query: 'anything',
        cron: '0 0 1 1 *',
        alert_type: 'ReportAbout',
        triggers: [
          { action: 'webhook', params: { url: `http://${REBOUND}:${inside.port}/hook` } },
          { action: 'webhook', params: { url: `${bouncer.origin}/bounce` } },
        ],
      });
      const run = (n: number) =>
        temporal.workflow.execute('alertRun', {
          taskQueue: TASK_QUEUES.alerts,
          workflowId: `alert-policy-${n}-${Date.now()}`,
          args: [{ alertId: a.id }],
        }) as Promise<{ logs: number; delivered: number; refused: number; pending: number }>;
      expect(await run(1)).toMatchObject({ logs: 1, delivered: 0, refused: 2, pending: 0 });
      const ledger = () =>
        warehouse.query<{ status: string; attempts: number; error: string; response_code: number | null }>(
          'SELECT status, attempts, error, response_code FROM alert_deliveries WHERE alert_id = $1::UUID ORDER BY trigger_index',
          [a.id],
        );
      const rows = await ledger();
      expect(rows).toMatchObject([
        { status: 'refused', attempts: 1, response_code: null },
        { status: 'refused', attempts: 1, response_code: 307 },
      ]);
      expect(rows[0]!.error).toMatch(new RegExp(`^forbidden_address: ${REBOUND.replace(/\./g, '\\.')}: .*127\\.0\\.0\\.2 \\(loopback\\)`));
      expect(rows[1]!.error).toMatch(/^redirect: the webhook answered HTTP 307 to http:\/\/127\.0\.0\.2:\d+\/hook; webhooks do not follow redirects/);
      // a second run (ReportAbout: a new log) refuses the new log's deliveries and does not try the first log's again
      expect(await run(2)).toMatchObject({ delivered: 0, refused: 2, pending: 0 });
      const after = await ledger();
      expect(after.map((r) => [r.status, Number(r.attempts)])).toEqual(Array(4).fill(['refused', 1]));
      // one POST per log reached the allowed bouncer; its redirect was not followed
      expect(bouncer.requests).toBe(2);
      expect(inside.connections).toBe(0);
      expect(inside.requests).toBe(0);
    } finally {
      await inside.close();
      await bouncer.close();
    }
  });
});

describe('an alert the API refuses to run', () => {
  it("fails its run at once with the API's reason instead of retrying", async () => {
    const a = await createAlert({
      query: 'x',
      cron: '0 0 1 1 *',
      triggers: [{ action: 'webhook', params: { url: 'https://hooks.example.com/x' } }],
      sources: [{ identifier: 'telegram', params: { channel_name: 'news' } }],
    });
    const run = temporal.workflow.execute('alertRun', { taskQueue: TASK_QUEUES.alerts, workflowId: `alert-refused-${Date.now()}`, args: [{ alertId: a.id }] });
    const err = await run.then(
      () => null,
      (e: Error & { cause?: { retryState?: unknown; cause?: { message?: string; type?: string } } }) => e,
    );
    expect(err).not.toBeNull();
    // the activity was not retried: its failure is non-retryable, typed, and names the source
    expect(err!.cause?.retryState).toBe(RetryState.NON_RETRYABLE_FAILURE);
    expect(err!.cause?.cause).toMatchObject({ type: 'AlertRejected' });
    expect(err!.cause?.cause?.message).toMatch(/telegram/);
  });
});
