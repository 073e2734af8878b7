/**
 * One DeepNews run: rounds of tool calls over the request's sources (planned by the model when
 * the model layer gives a tool-calling provider, else by the deterministic planner), then a
 * cited report written from everything found (articles, web pages, encyclopedia passages, forum
 * threads, graph facts, chart series), streamed as the writer writes it. The run is one stream
 * of events (thinking, tool calls with their results, the report's text, the sources); the
 * non-streamed response is that stream collected.
 *
 * Here the run is prepared (thread, provider, the question made self-standing); its steps are
 * ./plan.ts (sources and tools), ./gather.ts (the rounds) and ./write.ts (the report, the sources).
 */
import crypto from 'node:crypto';
import { DEFAULT_DEEPNEWS_MODEL } from '../../spec/index.js';
import type { Services } from '../context.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { notFound } from '../errors/index.js';
import { toolCaller, type LlmMessage, type LlmProvider } from '../llm/index.js';
import { byokKeys, recentTurns, requestTurns, type ChatLog } from '../chat/completion.js';
import { searchParamsOf } from '../chat/retrieve.js';
import { followUpQuery } from '../chat/follow-up.js';
import type { ToolContext } from './tools.js';
import type { DeepNewsBody, DeepNewsJob, DeepNewsRun, DeepNewsSources } from './job.js';
import { planSources } from './plan.js';
import { gather } from './gather.js';
import { write } from './write.js';

export type { AgentEvent, DeepNewsBody, DeepNewsRun, DeepNewsSources, SourceEvent } from './job.js';
export { MAX_SOURCES, REPORT_DOCS, REPORT_PASSAGES } from './job.js';

export async function startDeepNews(
  services: Services,
  principal: Principal,
  body: DeepNewsBody,
  o: {
    log?: ChatLog;
    /** the service's public base URL (config.ts publicBase), for the absolute URLs of graph pages and chart counts */
    origin?: string;
    /** the client left (HandlerCtx.signal): the follow-up rewrite stops; the research stops with the signal `events` is given */
    signal?: AbortSignal;
  } = {},
): Promise<DeepNewsRun> {
  const log = o.log;
  const origin = o.origin ?? '';
  const news = services.news!;
  // thread: a known thread continues; an unknown one is 404; none (or "") starts a thread
  const known = body.thread_id ? body.thread_id : null;
  let history: LlmMessage[] = [];
  if (known) {
    const stored = await services.threads.messages(known, principal.userId);
    if (!stored) throw notFound(`no thread ${known} for this user`);
    history = recentTurns(stored);
  }
  const threadId = known ?? crypto.randomUUID();
  const incoming: LlmMessage[] = requestTurns(body.messages.map((m) => ({ role: m.role, content: m.content })));
  const conversation = [...history, ...incoming];
  // filter_params are validated before anything runs (a bad one is a 422 under filter_params)
  searchParamsOf(body.filter_params, 'x', !!news.embedder);
  const model = body.model ?? DEFAULT_DEEPNEWS_MODEL;
  const provider: LlmProvider = services.llm.provider(model, await byokKeys(services, principal, model, log));
  const caller = toolCaller(provider);
  // a follow-up in a thread is made self-standing first (chat/follow-up.ts), as chat does
  const follow = await followUpQuery(conversation, { conversational: body.conversational_awareness, provider, user: body.user, signal: o.signal, log });
  o.signal?.throwIfAborted();
  const question = follow.query;
  // the parsed body holds the cutoff as RFC 3339 with an offset (spec normalises "no offset" to UTC)
  const cutoffMs = body.cutoff_datetime ? Date.parse(body.cutoff_datetime) : null;
  const cutoff = cutoffMs !== null && !Number.isNaN(cutoffMs) ? new Date(cutoffMs).toISOString() : null;
  const publisher = principal.org?.publisher ? principal.org : null;
  const ctx: ToolContext = {
    services,
    news,
    onlyDomains: publisher ? publisher.domains : null,
    viewer: ownerOf(principal),
    cutoffMs: cutoff ? Date.parse(cutoff) : null,
    filterParams: body.filter_params ?? null,
  };
  const stops = body.stop == null ? [] : (Array.isArray(body.stop) ? body.stop : [body.stop]).filter(Boolean);

  const usage = {
    prompt_tokens: follow.usage.prompt_tokens,
    completion_tokens: follow.usage.completion_tokens,
    total_tokens: follow.usage.prompt_tokens + follow.usage.completion_tokens,
    tool_usage: {} as Record<string, number>,
  };
  const sources: DeepNewsSources = { news: [], web: [], charts: [] };
  const job: DeepNewsJob = {
    services,
    principal,
    body,
    news,
    provider,
    caller,
    question,
    conversation,
    incoming,
    known,
    threadId,
    ctx,
    cutoff,
    publisher,
    origin,
    stops,
    usage,
    sources,
    log,
  };
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: provider.model,
    threadId,
    usage,
    sources,
    async *events(signal?: AbortSignal) {
      const plan = yield* planSources(job);
      const found = yield* gather(job, plan, signal);
      yield* write(job, plan, found, signal);
    },
  };
}
