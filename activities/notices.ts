/**
 * Activities of the notices (the project file's `notify:`, workflows/notices.ts): each round reads
 * the facts (`_loads` per watched pipeline, the failing `sources`) and the open incidents (the
 * `notices` ledger), opens and resolves incidents (activities/incidents.ts) by planning one ledger
 * row per (incident, event, channel, target), then delivers the rows not yet delivered.
 *
 * Delivery is the alert runner's: at least once, with the stable Idempotency-Key `<incident
 * id>.<event>` (the Message-ID of an email), the attempt counted in the ledger before the send and
 * the outcome after it; a delivered row is never sent again (retries of a round, later rounds),
 * so one incident makes one notice per event and channel. Webhooks go through postWebhook (the
 * fetch policy, no redirects); a refused one is recorded `refused` and never retried.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Warehouse } from '../warehouse/warehouse.js';
import type { FetchOptions } from '../lib/fetch/fetcher.js';
import { SETTLED } from '../warehouse/ledger.js';
import { failingSources, noticeRow, noticesLedger, openIncidentRows, pendingNoticeKeys, pipelineLoadFacts, planNotices } from '../warehouse/notices.js';
import { sendThroughLedger } from './delivery.js';
import { incidentEvents, noticeText, SOURCE_FAILING_MS, type Facts, type IncidentEvent, type IncidentKind, type OpenIncident } from './incidents.js';
import { sendMail } from './smtp.js';
import { postWebhook } from './webhook.js';

/** Where notices go (the project file's `notify:`). */
export interface NotifyConfig {
  webhook?: { url: string; format?: 'json' | 'slack'; headers?: Record<string, string> };
  email?: { to: string[] };
}

export interface NoticesDeps {
  warehouse: Warehouse;
  /** smtp(s)://… (NEWSFLOW_SMTP_URL); unset: email notices are recorded as skipped */
  smtpUrl?: string | null;
  webhookTimeoutMs?: number;
  /** the webhook POSTs' address policy and resolver (the worker passes the project's `fetchPolicy`; default: public addresses only, the system resolver) */
  webhookFetch?: Pick<FetchOptions, 'policy' | 'lookup'>;
  /**
   * Temporal's visibility, for the runs of the pipelines' schedules (a run failed before it recorded
   * a load: an API error, a revoked key); unset: failed runs are those whose checks failed in `_loads`
   */
  temporal?: () => Promise<Client>;
  /** the worker's project file's `notify:` (a round's own `notify` wins); kept out of the schedule's arguments, whose history would show its headers */
  notify?: NotifyConfig | null;
}

export interface NoticesRoundInput {
  /** the round's time (the workflow's clock, ms) */
  now: number;
  /** the watched pipelines, their error_after (null: never stale) and their schedules' ids (whose runs' outcomes count) */
  pipelines: { name: string; errorAfterMs: number | null; schedules?: string[] }[];
  /** where the notices go (default: the worker's `notify:`) */
  notify?: NotifyConfig;
  /** how long a source fails before it is an incident (default a day) */
  sourceFailingMs?: number;
}

export interface NoticeRef {
  incidentId: string;
  event: string;
  channel: string;
  target: string;
}

export interface DeliverNoticeResult {
  status: 'delivered' | 'skipped' | 'refused';
  attempts: number;
  responseCode: number | null;
}

/** The JSON body of a notice (format json), or Slack's `{text}` (format slack). */
export function noticeBody(e: Pick<IncidentEvent, 'id' | 'incident' | 'subject' | 'event' | 'at' | 'detail'>, format: 'json' | 'slack' = 'json'): string {
  const text = noticeText(e);
  if (format === 'slack') return JSON.stringify({ text });
  return JSON.stringify({
    idempotency_key: `${e.id}.${e.event}`,
    incident_id: e.id,
    incident: e.incident,
    subject: e.subject,
    event: e.event,
    at: new Date(e.at).toISOString(),
    detail: e.detail,
    text,
  });
}

/** The channels of a `notify:`: one (channel, target) per webhook and per email address. */
export const channelsOf = (n: NotifyConfig): { channel: 'webhook' | 'email'; target: string }[] => [
  ...(n.webhook ? [{ channel: 'webhook' as const, target: n.webhook.url }] : []),
  ...(n.email?.to ?? []).map((to) => ({ channel: 'email' as const, target: to })),
];

export function createNoticesActivities(deps: NoticesDeps) {
  const wh = deps.warehouse;
  const ledger = noticesLedger(wh);
  const notifyOf = (n: NotifyConfig | undefined): NotifyConfig => {
    const out = n ?? deps.notify;
    if (!out)
      throw ApplicationFailure.nonRetryable(
        "no notify: in the worker's project file: set notify: (docs/operations.md, Notices) and restart the worker",
        'NoNotify',
      );
    return out;
  };

  async function openIncidents(): Promise<OpenIncident[]> {
    const rows = await openIncidentRows(wh);
    return rows.map((r) => ({ id: r.incident_id, incident: r.incident as IncidentKind, subject: r.subject }));
  }

  return {
    /** Open and resolve this round's incidents: their ledger rows, one per channel, pending. */
    async openAndResolveIncidents(input: NoticesRoundInput): Promise<{ opened: string[]; resolved: string[] }> {
      const events = incidentEvents(await roundFacts(deps, input), await openIncidents(), input.now, input.sourceFailingMs ?? SOURCE_FAILING_MS);
      const channels = channelsOf(notifyOf(input.notify));
      // inserted only when absent: a retried round (same time, same ids) adds nothing (warehouse/notices.ts)
      await planNotices(
        wh,
        events.flatMap((e) =>
          channels.map((ch) => ({
            incidentId: e.id,
            incident: e.incident,
            subject: e.subject,
            event: e.event,
            atMs: e.at,
            detail: e.detail,
            channel: ch.channel,
            target: ch.target,
            idempotencyKey: `${e.id}.${e.event}`,
          })),
        ),
      );
      return { opened: events.filter((e) => e.event === 'opened').map((e) => e.id), resolved: events.filter((e) => e.event === 'resolved').map((e) => e.id) };
    },

    /** The notices not yet delivered, oldest first (an incident's opened before its resolved). */
    async pendingNotices(): Promise<NoticeRef[]> {
      return pendingNoticeKeys(wh);
    },

    /** Deliver one notice (a row of the ledger) to its channel, unless it was delivered already. */
    async deliverNotice(input: { ref: NoticeRef; notify?: NotifyConfig }): Promise<DeliverNoticeResult> {
      const beat = setInterval(() => Context.current().heartbeat(), 1000);
      try {
        return await deliverOnce(deps, ledger, input.ref, notifyOf(input.notify));
      } finally {
        clearInterval(beat);
      }
    },
  };
}

/** What the warehouse says this round. A load's time is the later of its started_at (the run's clock) and finished_at (the lake's). */
async function roundFacts(deps: NoticesDeps, input: NoticesRoundInput): Promise<Facts> {
  const wh = deps.warehouse;
  const loads = await pipelineLoadFacts(
    wh,
    input.pipelines.map((p) => p.name),
  );
  const byName = new Map(loads.map((r) => [r.pipeline, r]));
  const runs = new Map<string, { at: number; failed: string | null }>();
  if (deps.temporal) {
    const c = await deps.temporal();
    for (const p of input.pipelines) {
      // visibility that does not answer leaves the round to the warehouse's facts (it still notices staleness)
      const r = await newestRun(c, p.schedules ?? []).catch((e: unknown) => {
        console.error(`notices: the runs of pipeline ${p.name} are not known (Temporal's visibility: ${(e as Error).message}); judged by _loads alone`);
        return null;
      });
      if (r) runs.set(p.name, r);
    }
  }
  const sources = await failingSources(wh);
  return {
    pipelines: input.pipelines.map((p) => {
      const r = byName.get(p.name);
      const load = r ? { at: Number(r.newest_at), failed: r.newest_failed || null } : null;
      // the newest of its newest load and its newest finished run (a run that failed before its load records none)
      const run = runs.get(p.name) ?? null;
      return {
        pipeline: p.name,
        errorAfterMs: p.errorAfterMs,
        lastSuccessAt: r?.last_ok == null ? null : Number(r.last_ok),
        newest: run && (!load || run.at > load.at) ? run : load,
      };
    }),
    failingSources: sources.map((s) => ({ source: s.source, failingSince: Number(s.failing_ms), lastError: s.last_error })),
  };
}

/** One notice through its ledger row: skipped when it cannot go out, else sent once. */
async function deliverOnce(deps: NoticesDeps, ledger: ReturnType<typeof noticesLedger>, ref: NoticeRef, notify: NotifyConfig): Promise<DeliverNoticeResult> {
  const wh = deps.warehouse;
  const d = await noticeRow(wh, ref);
  if (!d) throw ApplicationFailure.nonRetryable(`no notice ${ref.incidentId}.${ref.event} to ${ref.channel} ${ref.target}`);
  if (SETTLED.has(d.status)) return { status: d.status as DeliverNoticeResult['status'], attempts: Number(d.attempts), responseCode: null };
  const event = {
    id: ref.incidentId,
    incident: d.incident as IncidentKind,
    subject: d.subject,
    event: ref.event as IncidentEvent['event'],
    at: Number(d.at_ms),
    detail: d.detail,
  };
  if (ref.channel === 'email' && !deps.smtpUrl) {
    await ledger.skipped(ref, 'email not sent: NEWSFLOW_SMTP_URL is not set');
    return { status: 'skipped', attempts: Number(d.attempts), responseCode: null };
  }
  const row = {
    attempt: () => ledger.attempt(ref),
    refused: (code: number | null, msg: string) => ledger.refused(ref, code, msg),
    failed: (code: number | null, msg: string) => ledger.failed(ref, code, msg),
    delivered: (code: number | null) => ledger.delivered(ref, code),
  };
  const code = await sendThroughLedger(row, `notice ${d.idempotency_key} to ${ref.target}`, async () => {
    Context.current().cancellationSignal.throwIfAborted();
    if (ref.channel === 'webhook') {
      // the webhook's format and headers as the file says now; its URL as the row was planned
      const hook = notify.webhook?.url === ref.target ? notify.webhook : undefined;
      const res = await postWebhook(
        { url: ref.target, body: noticeBody(event, hook?.format ?? 'json'), headers: hook?.headers ?? null, idempotencyKey: d.idempotency_key },
        { ...deps.webhookFetch, timeoutMs: deps.webhookTimeoutMs ?? 10_000, userAgent: 'newsflow-notices', signal: Context.current().cancellationSignal },
      );
      return res.status;
    }
    await sendMail(deps.smtpUrl!, {
      to: ref.target,
      subject: noticeText(event).slice(0, 200),
      text: noticeText(event),
      messageId: `<${d.idempotency_key}@newsflow>`,
    });
    return 250;
  });
  return { status: 'delivered', attempts: Number(d.attempts) + 1, responseCode: code };
}

export type NoticesActivities = ReturnType<typeof createNoticesActivities>;

const FAILED = new Set(['FAILED', 'TIMED_OUT', 'TERMINATED']);

/** The innermost message of a failed run's error chain. */
function innermost(e: unknown): string {
  let m = (e as Error).message;
  for (let c = (e as { cause?: unknown }).cause; c; c = (c as { cause?: unknown }).cause) m = (c as Error).message || m;
  return m.slice(0, 500);
}

/** The newest finished run the schedules started (Temporal's visibility: TemporalScheduledById), with its failure; null: none. */
async function newestRun(c: Client, schedules: readonly string[]): Promise<{ at: number; failed: string | null } | null> {
  let best: { at: number; id: string; runId: string; failed: boolean } | null = null;
  for (const id of schedules) {
    const q = `TemporalScheduledById = '${id.replace(/'/g, "''")}' AND ExecutionStatus != 'Running'`;
    for await (const w of c.workflow.list({ query: q })) {
      const at = (w.closeTime ?? w.startTime).getTime();
      if (!best || at > best.at) best = { at, id: w.workflowId, runId: w.runId, failed: FAILED.has(w.status.name) };
      break; // newest first
    }
  }
  if (!best) return null;
  if (!best.failed) return { at: best.at, failed: null };
  const why = await c.workflow
    .getHandle(best.id, best.runId)
    .result()
    .then(
      () => 'failed',
      (e: unknown) => innermost(e),
    );
  return { at: best.at, failed: `run ${best.id}: ${why}` };
}
