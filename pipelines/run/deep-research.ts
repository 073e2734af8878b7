/**
 * `newsflow research`: one deepResearch run now (see workflows/deep-research.ts), with a line per
 * research round as it completes; the result as JSON (stdout), then, when the worker was our own
 * (no TEMPORAL_ADDRESS), the landed report and its sources from the warehouse.
 */
import { DEEPNEWS_SOURCES } from '../../spec/index.js';
import type { ResearchProgress } from '../../workflows/deep-research.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { RESEARCH_MAX_DEPTH } from '../schedules/index.js';
import type { RunRequest } from './run-once.js';
import type { WarehouseAt } from '../config/kinds/index.js';

const MAX_DEPTH = RESEARCH_MAX_DEPTH;

export class ResearchInputError extends Error {}

export interface ResearchOptions {
  depth?: number;
  sources?: string[];
  model?: string;
  filters?: Record<string, unknown>;
}

/** The run request of a research question; a ResearchInputError says what is wrong with the options. */
export function researchRequest(question: string, o: ResearchOptions): RunRequest<ResearchProgress> {
  if (!question.trim()) throw new ResearchInputError('the question is empty: newsflow research "What changed in ...?"');
  const depth = o.depth ?? 3;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) throw new ResearchInputError(`--depth must be an integer 1..${MAX_DEPTH}`);
  const bad = (o.sources ?? []).filter((s) => !(DEEPNEWS_SOURCES as readonly string[]).includes(s));
  if (bad.length) throw new ResearchInputError(`unknown --sources ${bad.join(', ')}; sources: ${DEEPNEWS_SOURCES.join(', ')}`);
  const input: Record<string, unknown> = { question, depth };
  if (o.sources?.length) input.sources = o.sources;
  if (o.model) input.model = o.model;
  if (o.filters) input.filters = o.filters;
  return {
    workflowType: 'deepResearch',
    taskQueue: TASK_QUEUES.research,
    input,
    show: (p) => [p.round, p.rounds, `round ${p.round}/${p.rounds}, ${p.sources} sources`],
    line: (p) => (p.round > 0 ? `research: round ${p.round}/${p.rounds} done, ${p.sources} sources` : null),
    need: { kind: 'research' },
  };
}

/** The report and its numbered sources, from the warehouse the run landed in. */
async function printReport(result: Record<string, unknown>, wh: WarehouseAt): Promise<void> {
  const [{ useProject }, { openReader }] = await Promise.all([import('../config/index.js'), import('../../warehouse/read.js')]);
  if (/:\d+$/.test(useProject().temporal.server)) return; // the worker (and its warehouse) is elsewhere
  const snap = await openReader(wh.dir, { lake: wh.lake });
  try {
    const id = String(result.runId).replace(/'/g, "''");
    const [run] = await snap.all(`SELECT report FROM research_runs WHERE run_id = '${id}'`);
    const sources = await snap.all(`SELECT citation, kind, title, url FROM research_sources WHERE run_id = '${id}' ORDER BY citation`);
    process.stdout.write(`\n${String(run?.report ?? '').trim()}\n\n${sources.map((s) => `[${s.citation}] ${s.title} (${s.kind}) ${s.url}`).join('\n')}\n`);
  } finally {
    snap.close();
  }
}

export async function runResearch(question: string, o: ResearchOptions & { dataDir?: string; verbose?: boolean }): Promise<void> {
  const request = researchRequest(question, o);
  // (the runtime is loaded only once the options are good: a bad option is refused at once)
  const { runOnce } = await import('./run-once.js');
  await runOnce(o.dataDir, { ...request, after: printReport }, { verbose: o.verbose });
}
