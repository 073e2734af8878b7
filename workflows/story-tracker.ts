/**
 * storyTracker: for each declared tracker (a stories query or strategy), fetch its stories with
 * their updates, land stories, updates, update articles and one metrics row per story for this
 * run; then the load's `_loads` row. Pure orchestration.
 */
import { defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { StoryTrackerActivities, Tracker, TrackResult } from '../activities/story-tracker.js';
import type { RecordLoadActivities } from '../activities/record-load.js';
import { KIND_SPECS } from './kinds.js';
import { evaluateChecks, failOnChecks, type LoadChecksConfig } from './checks.js';

const { trackStories } = proxyActivities<StoryTrackerActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { recordLoad } = proxyActivities<RecordLoadActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });

export const DEFAULT_TRACKERS: Tracker[] = [{ name: 'top', strategy: 'topstories', stories: 20 }];

export interface StoryTrackerInput {
  /** the named pipeline (project file) this run belongs to: its `_loads` rows carry it */
  pipeline?: string;
  trackers?: Tracker[];
  /** the time the run stands for (default: its scheduled time, else its start) */
  runAt?: string;
  /** the pipeline's checks (the project file's `checks:`): a failed one fails the run, non-retryable (workflows/checks.ts) */
  checks?: LoadChecksConfig;
}
export interface StoryTrackerResult {
  loadId: string;
  runAt: string;
  trackers: Record<string, TrackResult>;
}

export const storyProgressQuery = defineQuery<{ done: number; trackers: number; stories: number }>('progress');

export async function storyTracker(input: StoryTrackerInput = {}): Promise<StoryTrackerResult> {
  const info = workflowInfo();
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const runAt = input.runAt ?? (scheduled ? new Date(scheduled as string | Date) : info.startTime).toISOString();
  const loadId = `${info.workflowId}/${info.runId}`;
  const startedAt = new Date().toISOString();
  const out: Record<string, TrackResult> = {};
  const trackers = input.trackers ?? DEFAULT_TRACKERS;
  setHandler(storyProgressQuery, () => ({
    done: Object.keys(out).length,
    trackers: trackers.length,
    stories: Object.values(out).reduce((s, r) => s + r.stories, 0),
  }));
  for (const tracker of trackers) out[tracker.name] = await trackStories({ tracker, runAt, loadId });
  const sum = (f: (r: TrackResult) => number) => Object.values(out).reduce((s, r) => s + f(r), 0);
  const received = sum((r) => r.stories);
  const invariants = { trackers: Object.keys(out), updates: sum((r) => r.updates), articles: sum((r) => r.articles) };
  const checks = evaluateChecks(input.pipeline ?? KIND_SPECS.stories.name, input.checks, { received }, invariants);
  await recordLoad({
    loadId,
    pipeline: input.pipeline,
    kind: KIND_SPECS.stories.name,
    workflowId: info.workflowId,
    runId: info.runId,
    from: runAt,
    to: runAt,
    received,
    inserted: sum((r) => r.inserted),
    updated: sum((r) => r.updated),
    startedAt,
    invariants,
    ...(checks ? { checks } : {}),
  });
  failOnChecks(checks);
  return { loadId, runAt, trackers: out };
}
