/**
 * Activities of deepResearch: one research round through the client's DeepNews call, landed.
 *
 * Round protocol (deterministic replay): round k asks POST /v1/chat/deepnews for the question with
 * `search_depth` k and `cutoff_datetime` the run's time, so round k's answer is rounds 1..k of the
 * agent's research, replayed; the last round's answer is the report. With the same run time the
 * same rounds give the same answer, which is what makes a round retried after a crash land
 * exactly what it would have landed.
 *
 * The agent ends its research early when a round brings nothing new; its report says how many
 * rounds ran (`Research: N round(s), ...`). When round k ran fewer than k, the research is over:
 * the run lands as complete with `rounds_done` N and the workflow stops.
 *
 * Citation numbers: the request asks for `numbered` citations from 1 and the references appended;
 * a source's number is the one its URL has in the report's references ("[n] title (publisher)
 * url"), which are then cut from the landed report. A report cites sources of every kind (an
 * encyclopedia passage may be [1] and an article [2]), so the order of `sources.news` and
 * `sources.web` says nothing of the numbers. A source the references do not list (the API lists
 * every source found, not only the cited ones) is numbered after the cited ones, news first.
 */
import { Context } from '@temporalio/activity';
import type { NewsClient } from '../client/index.js';
import type { DeepNewsRequest, DeepNewsResponse } from '../spec/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { failingFast } from './api-failure.js';
import { RESEARCH_RUNS, RESEARCH_SOURCES, researchRows } from '../warehouse/tables/research.js';

export { researchRows, roundsRunOf, splitReferences } from '../warehouse/tables/research.js';

/** A research question and how to research it. */
export interface ResearchParams {
  question: string;
  /** research rounds (search_depth of the last round); default 3 */
  depth?: number;
  /** DeepNews sources, e.g. ["asknews"] (default: the API's) */
  sources?: string[];
  /** DeepNews model (default: the API's) */
  model?: string;
  /** search parameters for the agent's news searches (filter_params) */
  filters?: Record<string, unknown>;
}

export interface RoundInput {
  runId: string;
  /** the standing question's name (schedules), null for a one-off run */
  name: string | null;
  params: ResearchParams;
  round: number;
  rounds: number;
  /** ISO time the run stands for: the agent's cutoff */
  runAt: string;
  loadId: string;
}
export interface RoundResult {
  round: number;
  /** rounds the agent ran for this call (fewer than `round`: its research ended early) */
  roundsRun: number;
  /** the research is over (last round, or ended early) */
  complete: boolean;
  sources: number;
  reportChars: number;
  model: string;
  totalTokens: number;
  inserted: number;
  updated: number;
}

export const DEFAULT_DEPTH = 3;
/** How often a round heartbeats while the API works on it. */
const HEARTBEAT_MS = 2000;

/** The DeepNews request of round `round` (see the protocol above). */
export function roundRequest(p: ResearchParams, round: number, runAt: string): DeepNewsRequest {
  return {
    messages: [{ role: 'user', content: p.question }],
    search_depth: round,
    max_depth: Math.max(round, 6),
    ...(p.sources?.length ? { sources: p.sources as DeepNewsRequest['sources'] } : {}),
    ...(p.model ? { model: p.model as DeepNewsRequest['model'] } : {}),
    ...(p.filters ? { filter_params: p.filters as DeepNewsRequest['filter_params'] } : {}),
    inline_citations: 'numbered',
    start_citation_number: 1,
    return_sources: true,
    append_references: true,
    asknews_watermark: false,
    cutoff_datetime: runAt,
  };
}

export function createDeepResearchActivities(deps: { client: NewsClient; warehouse: Warehouse }) {
  return failingFast({
    /** One round: ask the agent (heartbeating while it works), land the run as it stands and its sources. */
    async researchRound(input: RoundInput): Promise<RoundResult> {
      const ctx = Context.current();
      ctx.heartbeat({ round: input.round, phase: 'asking' });
      const beat = setInterval(() => ctx.heartbeat({ round: input.round, phase: 'asking' }), HEARTBEAT_MS);
      let r: DeepNewsResponse;
      try {
        r = await deps.client.deepNews(roundRequest(input.params, input.round, input.runAt));
      } finally {
        clearInterval(beat);
      }
      ctx.heartbeat({ round: input.round, phase: 'landing' });
      const { run, sources, roundsRun, complete } = researchRows(input, r);
      const counts = await deps.warehouse.land(RESEARCH_RUNS, [run], [{ table: RESEARCH_SOURCES, rows: sources }], input.loadId);
      ctx.log.info('landed research round', { runId: input.runId, round: input.round, sources: sources.length });
      return {
        round: input.round,
        roundsRun,
        complete,
        sources: sources.length,
        reportChars: run.report.length,
        model: r.model,
        totalTokens: r.usage.total_tokens,
        inserted: counts.inserted,
        updated: counts.updated,
      };
    },
  });
}
export type DeepResearchActivities = ReturnType<typeof createDeepResearchActivities>;
