/**
 * The notices' SQL (tables/notices.ts; activities/notices.ts decides): the facts of a round (the
 * watched pipelines' loads, the failing sources), the open incidents, the plan of a round's
 * notices, what is pending, one notice's row. The ledger's status writes are `noticesLedger`'s
 * (ledger.ts).
 */
import type { Warehouse } from './warehouse.js';
import { DeliveryLedger } from './ledger.js';

const sqlList = (xs: readonly string[]) => xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ');

/** A notice's key: incident id, event, channel, target. */
export interface NoticeKey {
  incidentId: string;
  event: string;
  channel: string;
  target: string;
}
const keyOf = (k: NoticeKey) => [k.incidentId, k.event, k.channel, k.target];

/** A notice to plan (times epoch ms). */
export interface PlannedNotice extends NoticeKey {
  incident: string;
  subject: string;
  atMs: number;
  detail: string;
  idempotencyKey: string;
}

/** The ledger of notices, keyed by a NoticeKey. */
export function noticesLedger(wh: Warehouse) {
  const ledger = new DeliveryLedger(wh, 'notices', 'incident_id = $1 AND event = $2 AND channel = $3 AND target = $4', 4);
  return {
    skipped: (k: NoticeKey, reason: string) => ledger.skipped(keyOf(k), reason),
    attempt: (k: NoticeKey) => ledger.attempt(keyOf(k)),
    refused: (k: NoticeKey, code: number | null, error: string) => ledger.refused(keyOf(k), code, error),
    failed: (k: NoticeKey, code: number | null, error: string) => ledger.failed(keyOf(k), code, error),
    delivered: (k: NoticeKey, code: number | null) => ledger.delivered(keyOf(k), code),
  };
}

/** Per pipeline with loads: the newest successful load, the newest load and its failed check ('' none); a load's time is the later of started_at (the run's clock) and finished_at (the lake's). */
export async function pipelineLoadFacts(
  wh: Warehouse,
  pipelines: readonly string[],
): Promise<{ pipeline: string; last_ok: bigint | null; newest_at: bigint; newest_failed: string }[]> {
  if (!pipelines.length) return [];
  return wh.query(
    `WITH l AS (SELECT pipeline, epoch_ms(greatest(started_at, finished_at)) AS t, check_failed FROM _loads WHERE pipeline IN (${sqlList(pipelines)}))
     SELECT pipeline, max(t) FILTER (WHERE check_failed IS NULL) AS last_ok, max(t) AS newest_at, arg_max(coalesce(check_failed, ''), t) AS newest_failed
     FROM l GROUP BY pipeline`,
  );
}

/** The sources failing now, since when (epoch ms) and their last error. */
export function failingSources(wh: Warehouse): Promise<{ source: string; failing_ms: bigint | null; last_error: string | null }[]> {
  return wh.query(
    "SELECT source, epoch_ms(failing_since) AS failing_ms, last_error FROM sources WHERE status = 'failing' AND failing_since IS NOT NULL ORDER BY source",
  );
}

/** The incidents opened and not resolved. */
export function openIncidentRows(wh: Warehouse): Promise<{ incident_id: string; incident: string; subject: string }[]> {
  return wh.query(
    `SELECT DISTINCT incident_id, incident, subject FROM notices o WHERE event = 'opened'
     AND NOT EXISTS (SELECT 1 FROM notices r WHERE r.incident_id = o.incident_id AND r.event = 'resolved') ORDER BY incident_id`,
  );
}

/**
 * Plan notices, each inserted only when absent: a retried round (same time, same ids) adds
 * nothing; the lock row makes two rounds at once conflict (one retries, re-reads and finds the rows).
 */
export async function planNotices(wh: Warehouse, notices: readonly PlannedNotice[]): Promise<void> {
  if (!notices.length) return;
  await wh.execMany(
    notices.map((n): [string, unknown[]] => [
      `INSERT INTO notices (incident_id, incident, subject, event, event_at, detail, channel, target, idempotency_key, status, attempts)
       SELECT $1, $2, $3, $4, make_timestamp($5::BIGINT), $6, $7, $8, $9, 'pending', 0
       WHERE NOT EXISTS (SELECT 1 FROM notices WHERE incident_id = $1 AND event = $4 AND channel = $7 AND target = $8)`,
      [n.incidentId, n.incident, n.subject, n.event, n.atMs * 1000, n.detail, n.channel, n.target, n.idempotencyKey],
    ]),
    { locks: ['notices'] },
  );
}

/** The notices not yet delivered, oldest first (an incident's opened before its resolved), at most 500. */
export async function pendingNoticeKeys(wh: Warehouse): Promise<NoticeKey[]> {
  const rows = await wh.query<{ incident_id: string; event: string; channel: string; target: string }>(
    `SELECT incident_id, event, channel, target FROM notices WHERE status IN ('pending', 'failed')
     ORDER BY event_at, incident_id, CASE event WHEN 'opened' THEN 0 ELSE 1 END, channel, target LIMIT 500`,
  );
  return rows.map((r) => ({ incidentId: r.incident_id, event: r.event, channel: r.channel, target: r.target }));
}

/** One notice's row (null: not planned). */
export async function noticeRow(
  wh: Warehouse,
  k: NoticeKey,
): Promise<{ status: string; attempts: number; incident: string; subject: string; at_ms: bigint; detail: string; idempotency_key: string } | null> {
  const [d] = await wh.query<{ status: string; attempts: number; incident: string; subject: string; at_ms: bigint; detail: string; idempotency_key: string }>(
    'SELECT status, attempts, incident, subject, epoch_ms(event_at) AS at_ms, detail, idempotency_key FROM notices WHERE incident_id = $1 AND event = $2 AND channel = $3 AND target = $4',
    keyOf(k),
  );
  return d ?? null;
}
