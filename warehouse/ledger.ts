/**
 * The delivery ledgers (`alert_deliveries`, `notices`; tables/deliveries.ts holds their shared
 * columns): one row per delivery, planned `pending`, then its status updated in place. An attempt
 * is counted before the send and its outcome written after it, so a worker killed between the two
 * repeats the send with the same idempotency key, and a delivered row is never sent again.
 * `DeliveryLedger` is the one place that writes those transitions; each ledger's own reads (its
 * plan, its pending rows, the row of one delivery) sit beside its tables (alerts.ts, notices.ts).
 */
import type { Warehouse } from './warehouse.js';

/** A ledger row's final states: a row in one of them is not sent again. */
export const SETTLED = new Set(['delivered', 'skipped', 'refused']);

export class DeliveryLedger {
  private readonly n: number;
  /**
   * `where`: the condition naming one row by its key, `$1`..`$k` (e.g.
   * `log_id = $1::UUID AND trigger_index = $2`); the key's values come in that order.
   */
  constructor(
    private readonly wh: Warehouse,
    private readonly table: string,
    private readonly where: string,
    arity: number,
  ) {
    this.n = arity;
  }

  private set(key: readonly unknown[], assignments: string, values: unknown[] = []): Promise<void> {
    if (key.length !== this.n) throw new Error(`${this.table}: a row's key has ${this.n} values, not ${key.length}`);
    return this.wh.exec(`UPDATE ${this.table} SET ${assignments} WHERE ${this.where}`, [...key, ...values]);
  }
  private p = (i: number) => `$${this.n + i}`;

  /** Not sent here (no SMTP, an action the runner cannot perform, a trigger that is gone). */
  skipped(key: readonly unknown[], reason: string): Promise<void> {
    return this.set(key, `status = 'skipped', error = ${this.p(1)}, last_attempt_at = now()`, [reason]);
  }
  /** Counted before the send: a crash after it is then an attempt without outcome. */
  attempt(key: readonly unknown[]): Promise<void> {
    return this.set(key, `attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, now()), last_attempt_at = now(), status = 'pending'`);
  }
  /** The fetch policy (or a redirect) refused it: never retried. */
  refused(key: readonly unknown[], code: number | null, error: string): Promise<void> {
    return this.set(key, `status = 'refused', response_code = ${this.p(1)}, error = ${this.p(2)}`, [code, error]);
  }
  /** The attempt failed: retried. */
  failed(key: readonly unknown[], code: number | null, error: string): Promise<void> {
    return this.set(key, `status = 'failed', response_code = ${this.p(1)}, error = ${this.p(2)}`, [code, error]);
  }
  delivered(key: readonly unknown[], code: number | null): Promise<void> {
    return this.set(key, `status = 'delivered', response_code = ${this.p(1)}, delivered_at = now(), error = NULL`, [code]);
  }
}
