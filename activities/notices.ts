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
import { FetchRefused, type FetchOptions } from '../lib/fetch/fetcher.js';
import { incidentEvents, noticeText, SOURCE_FAILING_MS, type Facts, type IncidentEvent, type IncidentKind, type OpenIncident } from './incidents.js';
import { sendMail } from './smtp.js';
import { WEBHOOK_REFUSALS, postWebhook } from './webhook.js';

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
  /** the webhook POSTs' address policy and resolver (default: $NEWSFLOW_FETCH_ALLOW, the system resolver) */
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

const sqlList = (xs: string[]) => xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ');

export function createNoticesActivities(deps: NoticesDeps) {
  const wh = deps.warehouse;
  const notifyOf = (n: NotifyConfig | undefined): NotifyConfig => {
    const out = n ?? deps.notify;
    if (!out)
      throw ApplicationFailure.nonRetryable(
        "no notify: in the worker's project file: set notify: (docs/operations.md, Notices) and restart the worker",
        'NoNotify',
      );
    return out;
  };

  /** What the warehouse says this round. A load's time is the later of its started_at (the run's clock) and finished_at (the lake's). */
  async function facts(input: NoticesRoundInput): Promise<Facts> {
    const names = input.pipelines.map((p) => p.name);
    const loads = names.length
      ? await wh.query<{ pipeline: string; last_ok: bigint | null; newest_at: bigint; newest_failed: string }>(
          `WITH l AS (SELECT pipeline, epoch_ms(greatest(started_at, finished_at)) AS t, check_failed FROM _loads WHERE pipeline IN (${sqlList(names)}))
           SELECT pipeline, max(t) FILTER (WHERE check_failed IS NULL) AS last_ok, max(t) AS newest_at, arg_max(coalesce(check_failed, ''), t) AS newest_failed
           FROM l GROUP BY pipeline`,
        )
      : [];
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
    const sources = await wh.query<{ source: string; failing_ms: bigint | null; last_error: string | null }>(
      "SELECT source, epoch_ms(failing_since) AS failing_ms, last_error FROM sources WHERE status = 'failing' AND failing_since IS NOT NULL ORDER BY source",
    );
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

  async function openIncidents(): Promise<OpenIncident[]> {
    const rows = await wh.query<{ incident_id: string; incident: string; subject: string }>(
      `SELECT DISTINCT incident_id, incident, subject FROM notices o WHERE event = 'opened'
       AND NOT EXISTS (SELECT 1 FROM notices r WHERE r.incident_id = o.incident_id AND r.event = 'resolved') ORDER BY incident_id`,
    );
    return rows.map((r) => ({ id: r.incident_id, incident: r.incident as IncidentKind, subject: r.subject }));
  }

  return {
    /** Open and resolve this round's incidents: their ledger rows, one per channel, pending. */
    async openAndResolveIncidents(input: NoticesRoundInput): Promise<{ opened: string[]; resolved: string[] }> {
      const events = incidentEvents(await facts(input), await openIncidents(), input.now, input.sourceFailingMs ?? SOURCE_FAILING_MS);
      const channels = channelsOf(notifyOf(input.notify));
      const stmts: [string, unknown[]][] = events.flatMap((e) =>
        channels.map((ch): [string, unknown[]] => [
          // inserted only when absent: a retried round (same time, same ids) adds nothing; the lock
          // row makes two rounds at once conflict (one retries, re-reads and finds the rows)
          `INSERT INTO notices (incident_id, incident, subject, event, event_at, detail, channel, target, idempotency_key, status, attempts)
           SELECT $1, $2, $3, $4, make_timestamp($5::BIGINT), $6, $7, $8, $9, 'pending', 0
           WHERE NOT EXISTS (SELECT 1 FROM notices WHERE incident_id = $1 AND event = $4 AND channel = $7 AND target = $8)`,
          [e.id, e.incident, e.subject, e.event, e.at * 1000, e.detail, ch.channel, ch.target, `${e.id}.${e.event}`],
        ]),
      );
      if (stmts.length) await wh.execMany(stmts, { locks: ['notices'] });
      return { opened: events.filter((e) => e.event === 'opened').map((e) => e.id), resolved: events.filter((e) => e.event === 'resolved').map((e) => e.id) };
    },

    /** The notices not yet delivered, oldest first (an incident's opened before its resolved). */
    async pendingNotices(): Promise<NoticeRef[]> {
      const rows = await wh.query<{ incident_id: string; event: string; channel: string; target: string }>(
        `SELECT incident_id, event, channel, target FROM notices WHERE status IN ('pending', 'failed')
         ORDER BY event_at, incident_id, CASE event WHEN 'opened' THEN 0 ELSE 1 END, channel, target LIMIT 500`,
      );
      return rows.map((r) => ({ incidentId: r.incident_id, event: r.event, channel: r.channel, target: r.target }));
    },

    /** Deliver one notice (a row of the ledger) to its channel, unless it was delivered already. */
    async deliverNotice(input: { ref: NoticeRef; notify?: NotifyConfig }): Promise<DeliverNoticeResult> {
      const beat = setInterval(() => Context.current().heartbeat(), 1000);
      try {
        return await deliverOnce(input.ref, notifyOf(input.notify));
      } finally {
        clearInterval(beat);
      }
    },
  };

  async function deliverOnce(ref: NoticeRef, notify: NotifyConfig): Promise<DeliverNoticeResult> {
    const where = 'WHERE incident_id = $1 AND event = $2 AND channel = $3 AND target = $4';
    const key = [ref.incidentId, ref.event, ref.channel, ref.target];
    const [d] = await wh.query<{ status: string; attempts: number; incident: string; subject: string; at_ms: bigint; detail: string; idempotency_key: string }>(
      `SELECT status, attempts, incident, subject, epoch_ms(event_at) AS at_ms, detail, idempotency_key FROM notices ${where}`,
      key,
    );
    if (!d) throw ApplicationFailure.nonRetryable(`no notice ${ref.incidentId}.${ref.event} to ${ref.channel} ${ref.target}`);
    if (d.status === 'delivered' || d.status === 'skipped' || d.status === 'refused')
      return { status: d.status, attempts: Number(d.attempts), responseCode: null };
    const event = {
      id: ref.incidentId,
      incident: d.incident as IncidentKind,
      subject: d.subject,
      event: ref.event as IncidentEvent['event'],
      at: Number(d.at_ms),
      detail: d.detail,
    };
    if (ref.channel === 'email' && !deps.smtpUrl) {
      await wh.exec(`UPDATE notices SET status = 'skipped', error = 'email not sent: NEWSFLOW_SMTP_URL is not set', last_attempt_at = now() ${where}`, key);
      return { status: 'skipped', attempts: Number(d.attempts), responseCode: null };
    }
    // count the attempt before sending: a crash after the send is then an attempt without outcome
    await wh.exec(
      `UPDATE notices SET attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, now()), last_attempt_at = now(), status = 'pending' ${where}`,
      key,
    );
    let code: number | null = null;
    try {
      Context.current().cancellationSignal.throwIfAborted();
      if (ref.channel === 'webhook') {
        // the webhook's format and headers as the file says now; its URL as the row was planned
        const hook = notify.webhook?.url === ref.target ? notify.webhook : undefined;
        const res = await postWebhook(
          { url: ref.target, body: noticeBody(event, hook?.format ?? 'json'), headers: hook?.headers ?? null, idempotencyKey: d.idempotency_key },
          { ...deps.webhookFetch, timeoutMs: deps.webhookTimeoutMs ?? 10_000, userAgent: 'newsflow-notices', signal: Context.current().cancellationSignal },
        );
        code = res.status;
      } else {
        await sendMail(deps.smtpUrl!, {
          to: ref.target,
          subject: noticeText(event).slice(0, 200),
          text: noticeText(event),
          messageId: `<${d.idempotency_key}@newsflow>`,
        });
        code = 250;
      }
    } catch (e) {
      if (e instanceof FetchRefused && WEBHOOK_REFUSALS.has(e.reason)) {
        const msg = `${e.reason}: ${e.message}`.slice(0, 500);
        await wh.exec(`UPDATE notices SET status = 'refused', response_code = $5, error = $6 ${where}`, [...key, e.status ?? null, msg]);
        throw ApplicationFailure.nonRetryable(`notice ${d.idempotency_key} to ${ref.target} refused: ${msg}`, 'DeliveryRefused');
      }
      if (e instanceof FetchRefused && e.status !== undefined) code = e.status;
      const msg = (e as Error).message.slice(0, 500);
      await wh.exec(`UPDATE notices SET status = 'failed', response_code = $5, error = $6 ${where}`, [...key, code, msg]);
      throw ApplicationFailure.retryable(`notice ${d.idempotency_key} to ${ref.target} failed: ${msg}`, 'DeliveryFailed');
    }
    await wh.exec(`UPDATE notices SET status = 'delivered', response_code = $5, delivered_at = now(), error = NULL ${where}`, [...key, code]);
    return { status: 'delivered', attempts: Number(d.attempts) + 1, responseCode: code };
  }
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
