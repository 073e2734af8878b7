/**
 * Workflows of test/workflows/alert-receiver-outage.test.ts: the alert runner's `alertRun` as the
 * worker registers it, and `alertMinutes`, which stands in for the alerts' schedules (every
 * minute) on the time-skipping test server (it has no schedules): each minute of workflow time,
 * news arrives, then each alert's run starts as its schedule would start it (a workflow of its own).
 */
import { executeChild, proxyActivities, sleep } from '@temporalio/workflow';
import { alertRun, type AlertRunResult } from '../../workflows/alert-runner.js';

export { alertRun };

export interface MinuteActivities {
  /** release the next held-back articles into the service (indexed, crawl_date now) */
  arrive(minute: number): Promise<number>;
  /** the receiver that was down starts listening */
  receiverUp(): Promise<void>;
}

const clock = proxyActivities<MinuteActivities>({ startToCloseTimeout: '5 minutes' });

export interface AlertMinute {
  minute: number;
  /** workflow time, epoch ms */
  at: number;
  arrived: number;
  runs: Record<string, AlertRunResult>;
}

export async function alertMinutes(input: { alertIds: string[]; minutes: number; upAt: number }): Promise<AlertMinute[]> {
  const out: AlertMinute[] = [];
  for (let minute = 0; minute < input.minutes; minute++) {
    if (minute === input.upAt) await clock.receiverUp();
    const arrived = await clock.arrive(minute);
    const results = await Promise.all(
      input.alertIds.map((alertId) => executeChild(alertRun, { workflowId: `alert-${alertId}-minute-${minute}`, args: [{ alertId }] })),
    );
    out.push({ minute, at: Date.now(), arrived, runs: Object.fromEntries(input.alertIds.map((id, i) => [id, results[i]!])) });
    await sleep('1 minute');
  }
  return out;
}
