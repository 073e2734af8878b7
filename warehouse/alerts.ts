/**
 * The alert runner's SQL (tables/alerts.ts): an alert gone from the API, the newest log landed,
 * the deliveries' plan, what is pending, and one delivery's row with its log and trigger. The
 * ledger's status writes are `ALERT_DELIVERY_LEDGER`'s (ledger.ts).
 */
import type { Warehouse } from './warehouse.js';
import { DeliveryLedger } from './ledger.js';

/** A planned delivery: one per (log, trigger). */
export interface PlannedDelivery {
  logId: string;
  triggerIndex: number;
  alertId: string;
  /** the log's time, µs */
  logCreatedAtUs: number | null;
  action: string;
  target: string | null;
  idempotencyKey: string;
}

/** The row of one delivery, with its log's raw JSON and its alert's triggers and title. */
export interface DeliveryRow {
  status: string;
  attempts: number;
  idempotency_key: string;
  action: string;
  log: string;
  triggers: string;
  title: string | null;
}

/** A delivery's key in `alert_deliveries`: [log id, trigger index]. */
export const alertDeliveries = (wh: Warehouse) => new DeliveryLedger(wh, 'alert_deliveries', 'log_id = $1::UUID AND trigger_index = $2', 2);

/** The API says the alert is gone: it stays in the warehouse, deleted and inactive. */
export function markAlertGone(wh: Warehouse, alertId: string): Promise<void> {
  return wh.exec('UPDATE alerts SET deleted = true, active = false WHERE alert_id = $1::UUID', [alertId]);
}

/** The time of the newest log landed for the alert (null: none). */
export async function newestAlertLogAt(wh: Warehouse, alertId: string): Promise<Date | null> {
  const [last] = await wh.query<{ t: Date | null }>('SELECT max(created_at) AS t FROM alert_logs WHERE alert_id = $1::UUID', [alertId]);
  return last?.t ? new Date(last.t) : null;
}

/**
 * Plan deliveries, each inserted only when its (log, trigger) is absent (the lake has no keys);
 * the lock row makes two workers planning the same deliveries at once conflict (one retries and
 * finds them).
 */
export async function planAlertDeliveries(wh: Warehouse, plan: readonly PlannedDelivery[]): Promise<void> {
  if (!plan.length) return;
  await wh.execMany(
    plan.map((p): [string, unknown[]] => [
      `INSERT INTO alert_deliveries (log_id, trigger_index, alert_id, log_created_at, action, target, idempotency_key, status, attempts)
       SELECT $1::UUID, $2, $3::UUID, make_timestamp($4::BIGINT), $5, $6, $7, 'pending', 0
       WHERE NOT EXISTS (SELECT 1 FROM alert_deliveries WHERE log_id = $1::UUID AND trigger_index = $2)`,
      [p.logId, p.triggerIndex, p.alertId, p.logCreatedAtUs, p.action, p.target, p.idempotencyKey],
    ]),
    { locks: ['alert_deliveries'] },
  );
}

/** The alert's deliveries not yet done, oldest log first (the order they must go out in). */
export async function pendingAlertDeliveries(wh: Warehouse, alertId: string, limit: number): Promise<{ logId: string; triggerIndex: number }[]> {
  const rows = await wh.query<{ log_id: string; trigger_index: number }>(
    `SELECT log_id::VARCHAR AS log_id, trigger_index FROM alert_deliveries WHERE alert_id = $1::UUID AND status IN ('pending', 'failed')
     ORDER BY log_created_at, log_id, trigger_index LIMIT ${Math.max(1, Math.floor(limit))}`,
    [alertId],
  );
  return rows.map((r) => ({ logId: r.log_id, triggerIndex: Number(r.trigger_index) }));
}

/** One delivery's row (null: not planned). */
export async function alertDelivery(wh: Warehouse, logId: string, triggerIndex: number): Promise<DeliveryRow | null> {
  const [d] = await wh.query<DeliveryRow>(
    `SELECT d.status, d.attempts, d.idempotency_key, d.action, l.raw::VARCHAR AS log, a.triggers::VARCHAR AS triggers, a.title
     FROM alert_deliveries d JOIN alert_logs l USING (log_id) JOIN alerts a ON a.alert_id = d.alert_id
     WHERE d.log_id = $1::UUID AND d.trigger_index = $2`,
    [logId, triggerIndex],
  );
  return d ?? null;
}
