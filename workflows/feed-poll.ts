/**
 * feedPoll: one round of the feed poller, started by its schedule (every minute by default;
 * pipelines/schedules/feeds.ts): the sources due at the round's time, in batches by host
 * (activities/feed-poll.ts), `parallel` batches at a time. Sources not reached (more than `limit`
 * due) wait for the next round. Time is the workflow's: a test that skips time skips the sources'
 * schedule with it.
 *
 * One source never fails the round (allSettled semantics): a batch whose activity fails for good
 * (out of retries, or an error no retry heals) is recorded on each of its sources (source_polls
 * `failed`, reason `batch_failed`, the error; the sources' failing state) and the other batches go on.
 */
import { ActivityFailure, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BatchResult, FeedPollActivities } from '../activities/feed-poll.js';

export interface FeedPollInput {
  /** sources per round (default 1000) */
  limit?: number;
  /** sources per batch, a host never split (default 25) */
  batchSize?: number;
  /** batches polled at once (default 4) */
  parallel?: number;
}

export interface FeedPollResult extends BatchResult {
  at: string;
  batches: number;
  /** more sources were due than `limit` */
  more: boolean;
}

const { dueSources, recordFailedBatch } = proxyActivities<FeedPollActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

const { pollSources } = proxyActivities<FeedPollActivities>({
  // a host's sources one at a time with its Crawl-delay (at most 60 s) between them
  startToCloseTimeout: '30 minutes',
  // the activity beats every 2 s while its process lives: a killed worker's batch is retried within seconds
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export async function feedPoll(input: FeedPollInput = {}): Promise<FeedPollResult> {
  const info = workflowInfo();
  const at = Date.now();
  const { batches, more } = await dueSources({ at, limit: input.limit, batchSize: input.batchSize });
  const results: BatchResult[] = [];
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const i = next++;
      const batchId = `${info.workflowId}/${info.runId}/${i}`;
      try {
        results[i] = await pollSources({ batchId, at, sources: batches[i]! });
      } catch (e) {
        if (isCancellation(e)) throw e;
        const cause = e instanceof ActivityFailure ? (e.cause ?? e) : e;
        const error = cause instanceof Error ? `${cause.message}` : String(cause);
        results[i] = await recordFailedBatch({ batchId, at, sources: batches[i]!, error: error.slice(0, 2000) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.parallel ?? 4, batches.length) }, lane));
  const sum = (k: keyof BatchResult) => results.reduce((a, r) => a + r[k], 0);
  return {
    at: new Date(at).toISOString(),
    batches: batches.length,
    more,
    polled: sum('polled'),
    ok: sum('ok'),
    notModified: sum('notModified'),
    failed: sum('failed'),
    deferred: sum('deferred'),
    fresh: sum('fresh'),
    sent: sum('sent'),
    calls: sum('calls'),
    skipped: sum('skipped'),
  };
}
