/**
 * Workflows of test/workflows/feed-poll-alert.test.ts: the feed poller's and the alert runner's
 * workflows as the worker registers them, and `feedsAndAlertClock`, which stands in for their two
 * schedules on the time-skipping test server (it has no schedules): each minute of workflow time,
 * a feedPoll round, then the alert's run, as the schedules would start them.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import { feedPoll } from '../../workflows/feed-poll.js';
import { alertRun } from '../../workflows/alert-runner.js';

export { feedPoll, alertRun };

export interface ClockActivities {
  /** show a stage of the feeds (the test's feed server) */
  reveal(stage: number): Promise<void>;
  /** wait until the service has indexed what it was sent (indexing runs in real time) */
  settle(): Promise<void>;
  /** whether the alert has a log that fired */
  fired(alertId: string): Promise<boolean>;
}

const clock = proxyActivities<ClockActivities>({ startToCloseTimeout: '10 minutes' });

export interface Minute {
  minute: number;
  /** workflow time, epoch ms */
  at: number;
  polled: number;
  sent: number;
  fired: boolean;
}

export async function feedsAndAlertClock(input: { alertId: string; minutes: number; revealAt: number; stage: number }): Promise<Minute[]> {
  const out: Minute[] = [];
  for (let minute = 0; minute < input.minutes; minute++) {
    if (minute === input.revealAt) await clock.reveal(input.stage);
    const round = await feedPoll({});
    await clock.settle();
    await alertRun({ alertId: input.alertId });
    out.push({ minute, at: Date.now(), polled: round.polled, sent: round.sent, fired: await clock.fired(input.alertId) });
    await sleep('1 minute');
  }
  return out;
}
