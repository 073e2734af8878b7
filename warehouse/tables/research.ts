/**
 * Tables landed by deepResearch. A research run is one row, merged on its run id (the workflow
 * id of the run): each round lands the run as it stands (`status` running, `rounds_done` k), the
 * last round lands the final report (`status` complete), so a round replayed after a crash
 * rewrites the same row. The run's sources are replaced per run: the citation numbers of the
 * report, each an article (kind news, article_id set) or a web page (kind web, URL only).
 */
import type { DeepNewsResponse } from '../../spec/index.js';
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });

export const RESEARCH_RUNS: TableDef = {
  name: 'research_runs',
  description: 'one row per research run (merge on run_id): question, parameters, report, model, usage',
  mergeKey: ['run_id'],
  loadColumns: ['raw'],
  monthColumn: 'run_at',
  // raw: the round and the DeepNews answer; the question and its parameters are the run's, as landed
  fromRaw: (raw, row) => {
    const { round, response } = raw as { round: number; response: DeepNewsResponse };
    const p = JSON.parse(String(row.parameters ?? '{}')) as { sources?: string[] | null; model?: string | null; filters?: Record<string, unknown> | null };
    const input: ResearchRound = {
      runId: String(row.run_id),
      name: (row.name as string | null) ?? null,
      params: { question: String(row.question), sources: p.sources ?? undefined, model: p.model ?? undefined, filters: p.filters ?? undefined },
      round,
      rounds: Number(row.rounds),
      runAt: new Date(Number(row.run_at) / 1000).toISOString(),
    };
    const { run, sources } = researchRows(input, response);
    return { row: run, children: [{ table: RESEARCH_SOURCES, rows: sources }] };
  },
  columns: [
    c('run_id', 'VARCHAR', 'varchar'),
    c('name', 'VARCHAR', 'varchar'),
    c('question', 'VARCHAR', 'varchar'),
    c('parameters', 'JSON', 'varchar'),
    c('status', 'VARCHAR', 'varchar'),
    c('rounds_done', 'INTEGER', 'int'),
    c('rounds', 'INTEGER', 'int'),
    c('report', 'VARCHAR', 'varchar'),
    c('model', 'VARCHAR', 'varchar'),
    c('usage', 'JSON', 'varchar'),
    c('n_sources', 'INTEGER', 'int'),
    c('run_at', 'TIMESTAMP', 'bigint'),
    c('raw', 'JSON', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
    c('last_load_id', 'VARCHAR', 'varchar'),
  ],
};

export const RESEARCH_SOURCES: TableDef = {
  name: 'research_sources',
  description: 'the cited sources of each research run by citation number (replaced per run)',
  mergeKey: ['run_id', 'citation'],
  replaceBy: ['run_id'],
  columns: [
    c('run_id', 'VARCHAR', 'varchar'),
    c('citation', 'INTEGER', 'int'),
    c('kind', 'VARCHAR', 'varchar'),
    c('article_id', 'UUID', 'varchar'),
    c('url', 'VARCHAR', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('source', 'VARCHAR', 'varchar'),
    c('published', 'TIMESTAMP', 'bigint'),
  ],
};

/** What a research round's rows need of its run: the run, its question and parameters, the round. */
export interface ResearchRound {
  runId: string;
  name: string | null;
  params: { question: string; sources?: string[]; model?: string; filters?: Record<string, unknown> };
  round: number;
  rounds: number;
  /** ISO time the run stands for */
  runAt: string;
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
export function researchRows(input: ResearchRound, r: DeepNewsResponse) {
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
    raw: JSON.stringify({ round: input.round, response: r }),
  };
  return { run, sources, roundsRun, complete };
}

export const RESEARCH_TABLES = [RESEARCH_RUNS, RESEARCH_SOURCES];
