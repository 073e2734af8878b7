/**
 * Activities of the alert runner: keep one Temporal schedule per active alert, run an alert
 * through the API and land its logs, plan and perform deliveries.
 *
 * Delivery is at-least-once with a stable Idempotency-Key per (log, trigger), recorded in the
 * warehouse ledger `alert_deliveries`: the attempt is counted before the POST and the outcome
 * after it, so a worker killed between the two repeats the POST with the same key on retry, and
 * a delivered row is never sent again.
 *
 * Webhooks are POSTed under the fetch policy (activities/webhook.ts: public addresses only unless
 * NEWSFLOW_FETCH_ALLOW lists them, DNS pinned, no redirect followed, transport headers fixed). A
 * delivery the policy refuses (or whose receiver redirects) is recorded `refused` with its reason
 * and fails without retry (ApplicationFailure type DeliveryRefused): no later run sends it again.
 */
import crypto from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { NotFoundError, type NewsClient } from '../client/index.js';
import type { AlertLog, AlertResponse } from '../spec/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { ALERTS, ALERT_LOGS } from '../warehouse/tables/alerts.js';
import { ALERT_SCHEDULE_PREFIX, applySchedules, isAlertSchedule, type ApplyResult, type ScheduleDecl } from '../temporal/schedules.js';
import { sendMail } from './smtp.js';
import type { FetchOptions } from '../lib/fetch/fetcher.js';
import { postWebhook } from './webhook.js';
import { sendThroughLedger } from './delivery.js';
import {
  alertDeliveries,
  alertDelivery,
  markAlertGone,
  newestAlertLogAt,
  pendingAlertDeliveries,
  planAlertDeliveries,
  type PlannedDelivery,
} from '../warehouse/alerts.js';
import { SETTLED } from '../warehouse/ledger.js';
import { apiFailure, failingFast } from './api-failure.js';

export interface AlertRunnerDeps {
  client: NewsClient;
  warehouse: Warehouse;
  temporal: () => Promise<Client>;
  /** task queue of the alertRun workflows the schedules start */
  taskQueue: string;
  /** smtp(s)://[user:pass@]host:port[?from=addr]; unset: email triggers are recorded as skipped */
  smtpUrl?: string | null;
  /** per-request timeout of a webhook POST */
  webhookTimeoutMs?: number;
  /**
   * The address policy and resolver of webhook POSTs (activities/webhook.ts): the worker passes
   * the project's `fetchPolicy`; default: public addresses only, and the system resolver
   */
  webhookFetch?: Pick<FetchOptions, 'policy' | 'lookup'>;
}

export interface SyncResult extends ApplyResult {
  alerts: number;
  active: number;
}
export interface RunAlertResult {
  gone: boolean;
  active: boolean;
  logs: number;
  planned: number;
}
export interface DeliveryRef {
  logId: string;
  triggerIndex: number;
}
export interface DeliverResult {
  status: 'delivered' | 'skipped' | 'refused';
  attempts: number;
  responseCode: number | null;
}

const us = (iso: string | null | undefined) => (iso ? Date.parse(iso) * 1000 : null);

/** Five-field form of the cron macros (Temporal reads plain cron fields). */
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
export const cronFields = (cron: string) => MACROS[cron.trim()] ?? cron.trim();

export function alertSchedule(a: { id: string; cron: string; title?: string | null }, taskQueue: string): ScheduleDecl {
  return {
    id: `${ALERT_SCHEDULE_PREFIX}${a.id}`,
    description: `alert ${a.title ?? a.id}: ${a.cron}`,
    workflowType: 'alertRun',
    taskQueue,
    spec: { cronExpressions: [cronFields(a.cron)] },
    // a run that is still delivering delays the next one instead of dropping it
    overlap: ScheduleOverlapPolicy.BUFFER_ONE,
    catchupWindow: '10 minutes',
    args: [{ alertId: a.id }],
  };
}

export const idempotencyKey = (logId: string, triggerIndex: number, trigger: { action: string; target: string | null }) =>
  `${logId}.${triggerIndex}.${crypto
    .createHash('sha256')
    .update(`${trigger.action}:${trigger.target ?? ''}`)
    .digest('hex')
    .slice(0, 12)}`;

function targetOf(t: { action?: unknown; params?: Record<string, unknown> }): string | null {
  if (t.action === 'webhook') return String(t.params?.url ?? '');
  if (t.action === 'email') return String(t.params?.to ?? '');
  return null;
}

function alertRow(a: AlertResponse, deleted: boolean) {
  return {
    alert_id: a.id,
    user_id: a.user_id,
    title: a.title ?? null,
    query: a.query ?? null,
    cron: a.cron,
    alert_type: a.alert_type ?? null,
    active: a.active,
    repeat: a.repeat,
    always_trigger: a.always_trigger,
    expires_at: us(a.expires_at),
    created_at: us(a.created_at),
    updated_at: us(a.updated_at),
    deleted,
    triggers: JSON.stringify(a.triggers),
    raw: JSON.stringify(a),
  };
}

const isTestLog = (l: AlertLog) => (l.webhook as { test?: unknown } | null | undefined)?.test === true;

/** An alert log as the warehouse keeps it. */
const alertLogRow = (l: AlertLog) => ({
  log_id: l.id,
  alert_id: l.alert_id,
  user_id: l.user_id,
  created_at: us(l.created_at),
  alert: l.alert,
  reasoning: l.reasoning,
  report: l.report ?? null,
  article_ids: l.article_ids,
  is_test: isTestLog(l),
  raw: JSON.stringify(l),
});

/** One delivery per trigger of the alert for each log that alerted (test logs deliver nothing). */
function deliveriesOf(alert: AlertResponse, logs: AlertLog[]): PlannedDelivery[] {
  const triggers = (alert.triggers ?? []) as { action?: string; params?: Record<string, unknown> }[];
  const plan: PlannedDelivery[] = [];
  for (const l of logs.filter((x) => x.alert && !isTestLog(x))) {
    triggers.forEach((t, i) => {
      const target = targetOf(t);
      const action = String(t.action);
      plan.push({
        logId: l.id,
        triggerIndex: i,
        alertId: l.alert_id,
        logCreatedAtUs: us(l.created_at),
        action,
        target,
        idempotencyKey: idempotencyKey(l.id, i, { action, target }),
      });
    });
  }
  return plan;
}

export function createAlertRunnerActivities(deps: AlertRunnerDeps) {
  const wh = deps.warehouse;
  const ledger = alertDeliveries(wh);

  async function listAll(includeDeleted: boolean): Promise<AlertResponse[]> {
    const page = await deps.client.getAlerts({ all: true, include_deleted: includeDeleted });
    return page.items as AlertResponse[];
  }

  return failingFast({
    /** One schedule per active, unexpired alert; schedules of other alerts are removed. */
    async syncAlertSchedules(): Promise<SyncResult> {
      const loadId = `alert-sync/${Context.current().info.workflowExecution?.runId ?? Date.now()}`;
      const live = await listAll(false);
      const liveIds = new Set(live.map((a) => a.id));
      const deleted = (await listAll(true)).filter((a) => !liveIds.has(a.id));
      await wh.land(ALERTS, [...live.map((a) => alertRow(a, false)), ...deleted.map((a) => alertRow(a, true))], [], loadId);
      const now = Date.now();
      const active = live.filter((a) => a.active && !(a.expires_at && Date.parse(a.expires_at) <= now));
      Context.current().heartbeat({ alerts: live.length });
      const r = await applySchedules(
        await deps.temporal(),
        active.map((a) => alertSchedule(a, deps.taskQueue)),
        isAlertSchedule,
      );
      return { ...r, alerts: live.length, active: active.length };
    },

    /** Run the alert through the API, land the alert and its new logs, plan their deliveries. */
    async runAlert(input: { alertId: string }): Promise<RunAlertResult> {
      const wf = Context.current().info.workflowExecution;
      const loadId = `alert-run/${wf?.workflowId ?? input.alertId}/${wf?.runId ?? Date.now()}`;
      let alert: AlertResponse;
      try {
        alert = await deps.client.runAlert(input.alertId);
      } catch (e) {
        if (e instanceof NotFoundError) {
          await markAlertGone(wh, input.alertId);
          return { gone: true, active: false, logs: 0, planned: 0 };
        }
        // the API refused this alert (e.g. a source it cannot reach): retrying will not help
        throw apiFailure(e, 'AlertRejected');
      }
      await wh.land(ALERTS, [alertRow(alert, false)], [], loadId);
      // logs since the newest one landed (a second of overlap; the merge on log id absorbs it)
      const last = await newestAlertLogAt(wh, input.alertId);
      const since = last ? Math.floor(last.getTime() / 1000) - 1 : undefined;
      const logs = (await deps.client.getAlertLogs(input.alertId, { all: true, ...(since !== undefined ? { start_timestamp: since } : {}) }))
        .items as AlertLog[];
      await wh.land(ALERT_LOGS, logs.map(alertLogRow), [], loadId);
      const plan = deliveriesOf(alert, logs);
      await planAlertDeliveries(wh, plan);
      return { gone: false, active: alert.active, logs: logs.length, planned: plan.length };
    },

    /** Deliveries of the alert not yet done, oldest log first (the order they must go out in). */
    async pendingDeliveries(input: { alertId: string; limit?: number }): Promise<DeliveryRef[]> {
      return pendingAlertDeliveries(wh, input.alertId, input.limit ?? 200);
    },

    async deliver(ref: DeliveryRef): Promise<DeliverResult> {
      // heartbeats for the whole delivery, the ledger writes included: a write that waits behind
      // other landings (the lake commits slower under load) must not look like a dead worker, or
      // Temporal starts a second attempt beside this one and the receiver gets the POST twice
      const beat = setInterval(() => Context.current().heartbeat(), 1000);
      try {
        return await deliverOnce(deps, ledger, ref);
      } finally {
        clearInterval(beat);
      }
    },
  });
}

/** One planned delivery through its ledger row: skipped when it cannot go out, else sent once. */
async function deliverOnce(deps: AlertRunnerDeps, ledger: ReturnType<typeof alertDeliveries>, ref: DeliveryRef): Promise<DeliverResult> {
  const wh = deps.warehouse;
  const d = await alertDelivery(wh, ref.logId, ref.triggerIndex);
  if (!d) throw ApplicationFailure.nonRetryable(`no planned delivery for log ${ref.logId} trigger ${ref.triggerIndex}`);
  if (SETTLED.has(d.status)) return { status: d.status as DeliverResult['status'], attempts: Number(d.attempts), responseCode: null };
  const log = JSON.parse(d.log) as AlertLog;
  const trigger = (JSON.parse(d.triggers) as { action: string; params?: Record<string, unknown> }[])[ref.triggerIndex];
  const key = [ref.logId, ref.triggerIndex];
  const skip = async (reason: string) => {
    await ledger.skipped(key, reason);
    return { status: 'skipped' as const, attempts: Number(d.attempts), responseCode: null };
  };
  if (!trigger) return skip('the alert no longer has this trigger');
  if (trigger.action === 'email' && !deps.smtpUrl) return skip('email not sent: NEWSFLOW_SMTP_URL is not set');
  if (trigger.action !== 'webhook' && trigger.action !== 'email')
    return skip(`action ${trigger.action} cannot be performed by this runner (webhook and email only)`);

  const row = {
    attempt: () => ledger.attempt(key),
    refused: (code: number | null, msg: string) => ledger.refused(key, code, msg),
    failed: (code: number | null, msg: string) => ledger.failed(key, code, msg),
    delivered: (code: number | null) => ledger.delivered(key, code),
  };
  const code = await sendThroughLedger(row, `delivery of log ${ref.logId} trigger ${ref.triggerIndex}`, async () => {
    Context.current().cancellationSignal.throwIfAborted();
    const body = await payload(deps.client, log, d.title, d.idempotency_key, trigger.params?.payload);
    if (trigger.action === 'webhook') {
      const res = await postWebhook(
        {
          url: String(trigger.params!.url),
          body: JSON.stringify(body),
          headers: (trigger.params?.headers as Record<string, string> | null | undefined) ?? null,
          idempotencyKey: d.idempotency_key,
        },
        {
          ...deps.webhookFetch,
          timeoutMs: deps.webhookTimeoutMs ?? 10_000,
          // an attempt Temporal gave up on (timed out, cancelled) does not send: its retry does
          signal: Context.current().cancellationSignal,
        },
      );
      return res.status;
    }
    const p = trigger.params ?? {};
    await sendMail(deps.smtpUrl!, {
      to: String(p.to),
      subject: String(p.subject ?? `Alert: ${d.title ?? log.alert_id}`),
      text: mailText(body),
      messageId: `<${d.idempotency_key}@newsflow>`,
    });
    return 250;
  });
  return { status: 'delivered', attempts: Number(d.attempts) + 1, responseCode: code };
}

export type AlertRunnerActivities = ReturnType<typeof createAlertRunnerActivities>;

interface Payload {
  idempotency_key: string;
  alert_id: string;
  alert_title: string | null;
  log_id: string;
  created_at: string;
  reasoning: string;
  report: string | null;
  articles: { article_id: string; title: string | null; url: string | null; pub_date: string | null }[];
  payload?: unknown;
}

/** The JSON body: the log, the articles' titles and links, and the trigger's own `payload`. */
async function payload(client: NewsClient, log: AlertLog, title: string | null, key: string, extra: unknown): Promise<Payload> {
  const ids = log.article_ids.slice(0, 100);
  const found = ids.length ? await client.getArticles({ article_ids: ids }) : [];
  const byId = new Map(found.map((a) => [a.article_id, a]));
  return {
    idempotency_key: key,
    alert_id: log.alert_id,
    alert_title: title,
    log_id: log.id,
    created_at: log.created_at,
    reasoning: log.reasoning,
    report: log.report ?? null,
    articles: ids.map((id) => {
      const a = byId.get(id);
      return { article_id: id, title: a?.title ?? null, url: a?.article_url ?? null, pub_date: a?.pub_date ?? null };
    }),
    ...(extra != null ? { payload: extra } : {}),
  };
}

function mailText(p: Payload): string {
  return [p.reasoning, '', ...p.articles.map((a) => `- ${a.title ?? a.article_id}${a.url ? `\n  ${a.url}` : ''}`), '', p.report ?? ''].join('\n').trim();
}
