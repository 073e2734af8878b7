/**
 * The feed poller's schedule and the project file's sources: `applyFeedSchedule` writes the
 * declared sources into the warehouse (origin `file`, the list replacing the file's earlier list;
 * sources added with `newsflow sources add` are left alone) and makes the one schedule
 * `feeds-poll` exist while there is any source to poll (every minute by default: each run polls
 * the sources that are due, see workflows/feed-poll.ts), and not exist when there is none.
 */
import { ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { resolveSource, type SourceEntry } from '../../lib/feeds/source.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { SourceStore } from '../../warehouse/sources.js';
import type { FeedPollInput } from '../../workflows/feed-poll.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { applySchedules, type ApplyResult, type ScheduleDecl } from '../../temporal/schedules.js';

export const FEED_SCHEDULE_ID = 'feeds-poll';

/** The schedule of the feed poller: a round every `every` (default 1 minute), a round at a time. */
export function feedScheduleDecl(o: { every?: string } & FeedPollInput = {}): ScheduleDecl {
  const { every = '1 minute', ...input } = o;
  return {
    id: FEED_SCHEDULE_ID,
    description: `feed poller: every ${every}, the sources that are due`,
    workflowType: 'feedPoll',
    taskQueue: TASK_QUEUES.feeds,
    spec: { intervals: [{ every }] },
    overlap: ScheduleOverlapPolicy.SKIP,
    catchupWindow: '5 minutes',
    args: [input],
  };
}

export interface FeedScheduleResult {
  sources: { added: string[]; updated: string[]; removed: string[]; taken: string[] };
  schedule: ApplyResult;
}

/** Write the project file's `sources` into the warehouse, then make the poller's schedule match. */
export async function applyFeedSchedule(
  temporal: Client,
  o: { warehouse: Warehouse; sources: SourceEntry[]; every?: string; now?: number } & FeedPollInput,
): Promise<FeedScheduleResult> {
  const { warehouse, sources, now = Date.now(), ...decl } = o;
  const store = new SourceStore(warehouse);
  const declared = await store.declare(sources.map(resolveSource), 'file', now, { replace: true });
  const any = (await store.all()).length > 0;
  const schedule = await applySchedules(temporal, any ? [feedScheduleDecl(decl)] : [], (id) => id === FEED_SCHEDULE_ID);
  return { sources: declared, schedule };
}
