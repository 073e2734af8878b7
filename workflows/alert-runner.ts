/**
 * The alert runner. `alertSync` (its own schedule, every minute) keeps one Temporal schedule per
 * active alert; each alert's schedule starts `alertRun`, which runs the alert through the API,
 * lands its logs and delivers every triggered log to the alert's triggers, oldest first.
 *
 * Delivery order per alert: a delivery that still fails after its retries stops the run's
 * deliveries (later logs wait behind it); the next scheduled run starts again with the oldest
 * undelivered one, so a receiver that was down gets everything, in order, once it is back.
 * A delivery the fetch policy refuses (activities/alert-runner.ts: DeliveryRefused) is final: it
 * is counted as refused and the run goes on with the next one.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AlertRunnerActivities, SyncResult } from '../activities/alert-runner.js';
import { TASK_QUEUES } from './queues.js';

const api = proxyActivities<AlertRunnerActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
});

/** Per-delivery retries within a run: about a minute of backoff before the run gives up for now. */
const delivery = proxyActivities<AlertRunnerActivities>({
  taskQueue: TASK_QUEUES.deliveries,
  // generous: a delivery's ledger writes wait behind other landings on a busy lake, and an attempt
  // timed out while it still runs would POST beside its retry (the receiver would get it twice);
  // a worker that dies mid-delivery is noticed by its missing heartbeats within seconds instead
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds', maximumAttempts: 6, nonRetryableErrorTypes: [] },
});

export async function alertSync(): Promise<SyncResult> {
  return api.syncAlertSchedules();
}

export interface AlertRunResult {
  alertId: string;
  gone: boolean;
  logs: number;
  delivered: number;
  skipped: number;
  /** deliveries the fetch policy refused (recorded in the ledger with the reason, never retried) */
  refused: number;
  /** deliveries left for a later run (the receiver still failing) */
  pending: number;
}

export async function alertRun(input: { alertId: string }): Promise<AlertRunResult> {
  const r = await api.runAlert({ alertId: input.alertId });
  const out: AlertRunResult = { alertId: input.alertId, gone: r.gone, logs: r.logs, delivered: 0, skipped: 0, refused: 0, pending: 0 };
  // deliveries are still owed for a deleted alert's landed logs
  const todo = await api.pendingDeliveries({ alertId: input.alertId });
  for (let i = 0; i < todo.length; i++) {
    try {
      const d = await delivery.deliver(todo[i]!);
      if (d.status === 'delivered') out.delivered++;
      else if (d.status === 'refused') out.refused++;
      else out.skipped++;
    } catch (e) {
      if (!(e instanceof ActivityFailure)) throw e;
      if (e.cause instanceof ApplicationFailure && e.cause.type === 'DeliveryRefused') {
        out.refused++;
        continue;
      }
      out.pending = todo.length - i;
      break;
    }
  }
  return out;
}
