/**
 * The alert runner on the real Temporal dev server against the real service: schedule sync (one
 * Temporal schedule per active alert), triggers it cannot send, deliveries the fetch policy
 * refuses, and an alert the API refuses to run. Scheduled runs over minutes, with a webhook
 * receiver down for several of them, are in alert-receiver-outage.test.ts (time-skipping).
 * The receivers listen on 127.0.0.1, which the fetch policy of this file's service and workers allows (NEWSFLOW_FETCH_ALLOW's form).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ScheduleNotFoundError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { isAlertSchedule, listOurs } from '../../temporal/schedules.js';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { holdFeed, startHarness, type Harness } from '../helpers/pipeline.js';
import { redirect, startPageServer } from '../helpers/page-server.js';
import { waitUntil } from '../helpers/wait-until.js';

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
  svc = await startTestService({ limitsText: LIMITS, fetchAllow: '127.0.0.1' });
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
    fetchAllow: '127.0.0.1',
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
    await waitUntil(async () => (await listOurs(temporal, isAlertSchedule)).length >= 3, { what: 'three alert schedules listed', timeoutMs: 10_000 });
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
    // the listener the refused deliveries aim at: loopback, outside the workers' allow list (127.0.0.1)
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
