/**
 * One DeepNews run as its steps see it: the request, the caller, the question (a follow-up made
 * self-standing), the model and the usage counted so far. ./run.ts prepares it; ./plan.ts picks
 * the sources and tools, ./gather.ts runs the rounds of tool calls, ./write.ts writes the report
 * and lists the sources.
 */
import type { ChartResponse, DeepNewsSource, SearchResponseDictItem, WebSearchResult } from '../../spec/index.js';
import type { Services } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { LlmMessage, LlmProvider, ToolCaller } from '../llm/index.js';
import type { ChatLog } from '../chat/completion.js';
import type { AnswerEvent } from '../chat/answer.js';
import type { InlineCitations } from '../chat/citations.js';
import type { NewsService } from '../news/service.js';
import type { ToolContext } from './tools.js';

export interface DeepNewsBody {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  model?: string | null;
  filter_params?: Record<string, unknown> | null;
  search_depth: number;
  max_depth: number;
  sources: DeepNewsSource | DeepNewsSource[];
  inline_citations: InlineCitations;
  start_citation_number: number;
  return_sources: boolean;
  only_cited_sources: boolean;
  append_references: boolean;
  journalist_mode: boolean;
  conversational_awareness: boolean;
  include_entities: boolean;
  include_graphs: boolean;
  include_coordinates: boolean;
  asknews_watermark: boolean;
  stream: boolean;
  stop?: string | string[] | null;
  temperature: number;
  top_p: number;
  n: number;
  max_tokens: number;
  presence_penalty: number;
  frequency_penalty: number;
  user?: string | null;
  thread_id?: string | null;
  max_parallel_tool_calls: number;
  engine: 'v1' | 'v1.5' | 'v2.0';
  enable_source_pruning: boolean;
  cutoff_datetime?: string | null;
}

export type SourceEvent =
  | { kind: 'news'; data: SearchResponseDictItem }
  | { kind: 'web'; data: WebSearchResult }
  | { kind: 'chart'; data: ChartResponse }
  | { kind: 'graph'; data: string };

export type AgentEvent =
  | { type: 'thinking'; text: string }
  /** a finished tool call: its input and a short account of its result */
  | { type: 'tool'; id: string; name: string; input: Record<string, unknown>; result: string }
  /** a piece of report `index` as the writer writes it, or its end */
  | AnswerEvent
  | { type: 'source'; source: SourceEvent };

export interface DeepNewsSources {
  news: SearchResponseDictItem[];
  web: WebSearchResult[];
  charts: ChartResponse[];
}

export interface DeepNewsRun {
  id: string;
  created: number;
  /** the model that really writes the report */
  model: string;
  threadId: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; tool_usage: Record<string, number> };
  /** complete once events() is done */
  sources: DeepNewsSources;
  /** `signal`: the caller went away (the model's requests are aborted) */
  events(signal?: AbortSignal): AsyncGenerator<AgentEvent>;
}

/** Articles the writer reads (the best of the pool). */
export const REPORT_DOCS = 12;
/** Other sources the writer reads, at most: per kind of web result (web, wiki, forum), graphs, chart series. */
export const REPORT_PASSAGES = { web: 5, wiki: 5, forum: 5, graph: 2, chart: 4 } as const;
/** Sources returned when only_cited_sources is false (the best of the pool). */
export const MAX_SOURCES = 50;

export interface DeepNewsJob {
  services: Services;
  principal: Principal;
  body: DeepNewsBody;
  news: NewsService;
  /** the provider the request asked for (BYOK keys applied) */
  provider: LlmProvider;
  /** its tool-calling side, when it has one: the model plans the rounds */
  caller: ToolCaller | null;
  /** what is researched: the last user turn, made self-standing in a thread */
  question: string;
  /** the thread's recent turns and the request's */
  conversation: LlmMessage[];
  /** the request's turns (stored with the answer) */
  incoming: LlmMessage[];
  /** the thread continued (null: a new one, created when the run ends) */
  known: string | null;
  threadId: string;
  ctx: ToolContext;
  /** the knowledge cutoff (ISO), if any */
  cutoff: string | null;
  /** a publisher organization's key researches its own domains only */
  publisher: Principal['org'];
  /** the service's public base URL (graph pages, chart counts) */
  origin: string;
  stops: string[];
  usage: DeepNewsRun['usage'];
  /** filled by the write step */
  sources: DeepNewsSources;
  log?: ChatLog;
}
