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
import { RESEARCH_RUNS, RESEARCH_SOURCES } from '../warehouse/tables/research.js';

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

const usIso = (iso: string | null | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t * 1000 : null;
};

/** The rounds the agent says it ran (its report's "Research: N round(s)" line), else `asked`. */
export function roundsRunOf(report: string, asked: number): number {
  const m = /Research: (\d+) round\(s\)/.exec(report);
  return m ? Math.min(asked, Number(m[1])) : asked;
}

/** The report's references block ("Cited Articles:" or "References:", then "[n] ... url" lines): the body without it, and each URL's number. */
export function splitReferences(report: string): { body: string; numbers: Map<string, number> } {
  const m = /\n\n(?:Cited Articles|References):\n((?:\[\d+\][^\n]*(?:\n|$))+)/.exec(report);
  const numbers = new Map<string, number>();
  if (!m) return { body: report, numbers };
  for (const line of m[1]!.split('\n')) {
    const ref = /^\[(\d+)\].*\s(\S+)$/.exec(line.trim());
    if (ref && !numbers.has(ref[2]!)) numbers.set(ref[2]!, Number(ref[1]));
  }
  return { body: report.slice(0, m.index) + report.slice(m.index + m[0].length), numbers };
}

/** The rows a round's answer lands: the run as it stands, and its sources by citation number. */
export function researchRows(input: RoundInput, r: DeepNewsResponse) {
  const news = r.sources.news ?? [];
  const web = r.sources.web ?? [];
  const { body: report, numbers } = splitReferences(r.choices[0]?.message.content ?? '');
  let next = Math.max(0, ...numbers.values());
  const numberOf = (url: string | null | undefined) => (url && numbers.get(url)) || ++next;
  const sources = [
    ...news.map((a) => ({
      run_id: input.runId,
      citation: numberOf(a.article_url),
      kind: 'news',
      article_id: a.article_id,
      url: a.article_url,
      title: a.title,
      source: a.domain_url,
      published: usIso(a.pub_date),
    })),
    ...web.map((w) => ({
      run_id: input.runId,
      citation: numberOf(w.url),
      kind: 'web',
      article_id: null,
      url: w.url,
      title: w.title,
      source: w.source,
      published: usIso(w.published),
    })),
  ].sort((a, b) => a.citation - b.citation);
  const roundsRun = roundsRunOf(report, input.round);
  const complete = input.round >= input.rounds || roundsRun < input.round;
  const run = {
    run_id: input.runId,
    name: input.name,
    question: input.params.question,
    parameters: JSON.stringify({
      depth: input.rounds,
      sources: input.params.sources ?? null,
      model: input.params.model ?? null,
      filters: input.params.filters ?? null,
    }),
    status: complete ? 'complete' : 'running',
    rounds_done: roundsRun,
    rounds: input.rounds,
    report,
    model: r.model,
    usage: JSON.stringify(r.usage),
    n_sources: sources.length,
    run_at: usIso(input.runAt),
  };
  return { run, sources, roundsRun, complete };
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
