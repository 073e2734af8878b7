/**
 * One delivery through its ledger row (warehouse/ledger.ts), the alert runner's and the notices':
 * the attempt counted before the send, then the outcome. A refusal no retry can change (the fetch
 * policy, a redirect, a bad header: WEBHOOK_REFUSALS) is recorded `refused` and fails without
 * retry (DeliveryRefused); any other failure is recorded `failed` and retried (DeliveryFailed).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { FetchRefused } from '../lib/fetch/fetcher.js';
import { WEBHOOK_REFUSALS } from './webhook.js';

/** The status writes of one ledger row. */
export interface LedgerRow {
  attempt(): Promise<void>;
  refused(code: number | null, error: string): Promise<void>;
  failed(code: number | null, error: string): Promise<void>;
  delivered(code: number | null): Promise<void>;
}

/**
 * Count the attempt, `send` (its response code), record the outcome; returns the code. `what`
 * names the delivery in the failures' messages ("delivery of log … trigger …").
 */
export async function sendThroughLedger(row: LedgerRow, what: string, send: () => Promise<number>): Promise<number> {
  // count the attempt before sending: a crash after the send is then visible as an attempt without outcome
  await row.attempt();
  let code: number | null = null;
  try {
    code = await send();
  } catch (e) {
    if (e instanceof FetchRefused && WEBHOOK_REFUSALS.has(e.reason)) {
      const msg = `${e.reason}: ${e.message}`.slice(0, 500);
      await row.refused(e.status ?? null, msg);
      throw ApplicationFailure.nonRetryable(`${what} refused: ${msg}`, 'DeliveryRefused');
    }
    if (e instanceof FetchRefused && e.status !== undefined) code = e.status;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const msg = `${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`.slice(0, 500);
    await row.failed(code, msg);
    throw ApplicationFailure.retryable(`${what} failed: ${msg}`, 'DeliveryFailed');
  }
  await row.delivered(code);
  return code;
}
