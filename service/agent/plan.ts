/**
 * The plan step of DeepNews: which of the requested sources this service and this key can
 * search, which tools are available for them, and how many rounds the research may run. Each
 * source or tool left out is said in the stream.
 */
import type { DeepNewsSource } from '../../spec/index.js';
import { ARCHIVE_SOURCES, NO_DATA_SOURCES, TOOLS } from './tools.js';
import type { AgentEvent, DeepNewsJob } from './job.js';

export interface SourcePlan {
  enabled: Set<DeepNewsSource>;
  /** the sources not searched (no data here, a publisher key, a tool unavailable) */
  skipped: string[];
  /** whether the tool of this name may be called */
  canUse: (name: string) => boolean;
  /** rounds of the deterministic planner (a model plans up to max_depth) */
  rounds: number;
}

/** The prompt of a model that plans the research. */
export const PLANNER = (o: { depth: number; max: number; parallel: number; cutoff: string | null }) =>
  "You are a news research agent. Research the user's question with the tools before anyone writes the report: " +
  `search in about ${o.depth} rounds (at most ${o.max}), up to ${o.parallel} tool calls per round, widening from what you find ` +
  '(people, organisations, places, stories). Tool results list articles as [article_id] title. ' +
  'When you have enough, answer without a tool call, in one sentence, what you found.' +
  (o.cutoff ? ` Your knowledge ends at ${o.cutoff}: nothing published after it exists.` : '');

export function* planSources(job: DeepNewsJob): Generator<AgentEvent, SourcePlan> {
  const { body, publisher, services, caller, provider, question, cutoff } = job;
  const requested = [...new Set(Array.isArray(body.sources) ? body.sources : [body.sources])];
  const enabled = new Set<DeepNewsSource>();
  const skipped: string[] = [];
  for (const s of requested) {
    if (NO_DATA_SOURCES.has(s)) {
      skipped.push(s);
      yield { type: 'thinking', text: `Source ${s}: no data on this service, skipped.\n` };
    } else if (publisher && !ARCHIVE_SOURCES.has(s)) {
      skipped.push(s);
      yield { type: 'thinking', text: `Source ${s}: a publisher key researches the news archive only, skipped.\n` };
    } else enabled.add(s);
  }
  const usable = new Map<string, boolean>();
  for (const t of TOOLS) {
    if (!enabled.has(t.source)) continue;
    const ok = t.available(services);
    usable.set(t.name, ok === true);
    if (ok !== true) {
      skipped.push(t.source);
      yield { type: 'thinking', text: `Tool ${t.name} (source ${t.source}) is unavailable: ${ok}.\n` };
    }
  }
  const canUse = (name: string) => usable.get(name) === true;
  const rounds = Math.min(body.search_depth, body.max_depth);
  yield {
    type: 'thinking',
    text:
      `Researching: ${question}\nSources: ${[...enabled].join(', ') || 'none'}. ${caller ? `The model ${provider.model} plans` : 'Deterministic plan'}: ${caller ? `up to ${body.max_depth}` : rounds} rounds, ${body.max_parallel_tool_calls} tool call(s) at a time.` +
      (cutoff ? ` Knowledge cutoff ${cutoff}: nothing published after it is used.` : '') +
      (publisher ? ` Restricted to ${publisher.domains.join(', ')}.` : '') +
      '\n',
  };
  return { enabled, skipped, canUse, rounds };
}
