/**
 * deepResearch: a research question answered by the DeepNews agent round by round (one activity
 * per round, see activities/deep-research.ts for the round protocol), each round landing the run as
 * it stands; then the load's `_loads` row. A worker killed mid-round: the round's activity times
 * out on its heartbeat and runs again on the next worker; the rounds before it are not redone.
 */
import { defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DeepResearchActivities, ResearchParams, RoundResult } from '../activities/deep-research.js';
import type { RecordLoadActivities } from '../activities/record-load.js';
import { KIND_SPECS } from './kinds.js';

const { researchRound } = proxyActivities<DeepResearchActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { recordLoad } = proxyActivities<RecordLoadActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });

export interface DeepResearchInput extends ResearchParams {
  /** the named pipeline (project file) this run belongs to: its `_loads` rows carry it */
  pipeline?: string;
  /** a standing question's name (its schedule); absent for a one-off run */
  name?: string;
  /** the time the run stands for, the agent's cutoff (default: its scheduled time, else its start) */
  runAt?: string;
}
export interface DeepResearchResult {
  runId: string;
  runAt: string;
  /** rounds asked for */
  rounds: number;
  /** rounds the research ran (fewer when it ended early) */
  roundsDone: number;
  sources: number;
  reportChars: number;
  model: string;
  totalTokens: number;
}
export interface ResearchProgress {
  round: number;
  rounds: number;
  sources: number;
}

export const researchProgressQuery = defineQuery<ResearchProgress>('progress');

export async function deepResearch(input: DeepResearchInput): Promise<DeepResearchResult> {
  const info = workflowInfo();
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const runAt = input.runAt ?? (scheduled ? new Date(scheduled as string | Date) : info.startTime).toISOString();
  const runId = info.workflowId;
  const loadId = `${info.workflowId}/${info.runId}`;
  const startedAt = new Date().toISOString();
  // (the CLI and the schedules check depth against RESEARCH_MAX_DEPTH (pipelines/schedules/declare.ts); the API refuses more with a 422)
  const rounds = Math.max(1, Math.floor(input.depth ?? 3));
  const { name, runAt: _r, ...rest } = input;
  const params: ResearchParams = { ...rest, depth: rounds };
  let last: RoundResult | null = null;
  setHandler(researchProgressQuery, () => ({ round: last?.round ?? 0, rounds, sources: last?.sources ?? 0 }));
  for (let round = 1; round <= rounds; round++) {
    last = await researchRound({ runId, name: name ?? null, params, round, rounds, runAt, loadId });
    if (last.complete) break; // the agent's research ended early: nothing new to find
  }
  const done = last!;
  await recordLoad({
    loadId,
    pipeline: input.pipeline,
    kind: KIND_SPECS.research.name,
    workflowId: info.workflowId,
    runId: info.runId,
    from: runAt,
    to: runAt,
    received: 1,
    inserted: done.inserted,
    updated: done.updated,
    startedAt,
    invariants: { rounds, roundsDone: done.roundsRun, sources: done.sources, reportChars: done.reportChars, model: done.model },
  });
  return {
    runId,
    runAt,
    rounds,
    roundsDone: done.roundsRun,
    sources: done.sources,
    reportChars: done.reportChars,
    model: done.model,
    totalTokens: done.totalTokens,
  };
}
