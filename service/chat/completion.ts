/**
 * A chat completion grounded in the news: make a follow-up self-standing (./follow-up.ts),
 * retrieve, place the articles in the model's context, run the provider the model layer picks,
 * and turn its text into the answer (./answer.ts): stop sequences, citations in the requested
 * style, references and watermark, max_tokens (real tokenizer). Sampling (temperature, top_p,
 * presence/frequency penalties) goes to the provider as given; `n` answers come from one call
 * where the provider writes several (OpenAI-compatible), else from `n` calls (see `choices`).
 * The answer is one stream of events; a non-streamed response is that stream collected, so both
 * carry the same text.
 */
import crypto from 'node:crypto';
import type { Services } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors/index.js';
import { byokAllowed, ownerOf } from '../byok/store.js';
import { citeView, isPassage, type ContextDoc, type LlmMessage, type LlmProvider, type LlmRequest, type PassageDoc, type SourceDoc } from '../llm/index.js';
import { countTokens, promptTokens } from '../llm/tokens.js';
import { WATERMARK, references, type InlineCitations } from './citations.js';
import { AnswerWriter, answers, type AnswerEvent } from './answer.js';
import { followUpQuery } from './follow-up.js';
import { hitRecorder, retrieve, searchParamsOf } from './retrieve.js';

export interface ChatBody {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  model: string;
  temperature: number;
  top_p: number;
  n: number;
  stop?: string | string[] | null;
  max_tokens: number;
  stream: boolean;
  presence_penalty: number;
  frequency_penalty: number;
  user?: string | null;
  thread_id?: string | null;
  inline_citations: InlineCitations;
  append_references: boolean;
  journalist_mode: boolean;
  asknews_watermark: boolean;
  conversational_awareness: boolean;
  /** as sent (validated by spec/; parsed again with the search schema and chat's defaults) */
  filter_params?: Record<string, unknown> | null;
}

export type ChatEvent = AnswerEvent;

export interface ChatRun {
  id: string;
  created: number;
  /** the model that really writes the answer */
  model: string;
  threadId: string;
  docs: ContextDoc[];
  /** what retrieval searched for (the follow-up made self-standing) */
  query: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** `signal`: the caller went away (the provider's request is aborted) */
  events(signal?: AbortSignal): AsyncGenerator<ChatEvent>;
}

const JOURNALIST =
  "You are a news journalist. Answer the conversation's last question from the sources below and nothing else, " +
  'as a short wire brief: the lead first, then context, then reactions. Attribute facts to their publishers ' +
  '("..., Reuters reported") and cite every sentence with the source number in brackets, e.g. [2]. ' +
  'If the sources do not answer the question, say so.';
const PLAIN =
  'Answer the last question in plain text from the sources given before it, and nothing else. ' +
  'Cite every sentence with the source number in brackets, e.g. [2]. If the sources do not answer the question, say so.';

/** How a kind of source is named to the writer. */
const KIND_NAME: Record<PassageDoc['kind'], string> = {
  web: 'web page',
  wiki: 'encyclopedia article',
  forum: 'forum thread',
  graph: 'knowledge graph of the news found (entities and what joins them)',
  chart: 'chart of how many articles the news index holds',
};
/** Characters of a source's text the writer is given. */
const TEXT_CHARS = 1500;

function renderDoc(d: SourceDoc): string {
  if (isPassage(d)) {
    const v = citeView(d);
    const when = v.published ? ` | Published: ${v.published.toISOString()}` : '';
    return [`[${d.n}] ${d.title}`, `Kind: ${KIND_NAME[d.kind]} | Source: ${v.publisher}${when} | URL: ${v.url}`, `Text: ${d.text.slice(0, TEXT_CHARS)}`].join(
      '\n',
    );
  }
  const a = d.article;
  const lines = [`[${d.n}] ${a.title}`, `Publisher: ${a.domain} | Published: ${a.pubDate.toISOString()} | URL: ${a.url}`, `Summary: ${a.summary}`];
  if (a.keyPoints.length) lines.push(`Key points: ${a.keyPoints.join(' ')}`);
  if (d.fullText) lines.push(`Text: ${d.fullText.slice(0, TEXT_CHARS)}`);
  return lines.join('\n');
}

/**
 * The messages a provider receives: journalist mode puts the sources in the system message; plain
 * mode before the question. News articles first, then (DeepNews) the other sources, numbered on.
 */
export function groundedMessages(history: LlmMessage[], docs: SourceDoc[], journalist: boolean): LlmMessage[] {
  const articles = docs.filter((d) => !isPassage(d));
  const others = docs.filter(isPassage);
  const parts = [articles.length ? `News articles:\n\n${articles.map(renderDoc).join('\n\n')}` : 'News articles: none matched the question.'];
  if (others.length) parts.push(`Other sources:\n\n${others.map(renderDoc).join('\n\n')}`);
  const news = parts.join('\n\n');
  const own = history.filter((m) => m.role === 'system').map((m) => m.content);
  const turns = history.filter((m) => m.role !== 'system');
  if (journalist) return [{ role: 'system', content: [JOURNALIST, ...own, news].join('\n\n') }, ...turns];
  const lastUser = turns.map((m) => m.role).lastIndexOf('user');
  return [
    { role: 'system', content: [PLAIN, ...own].join('\n\n') },
    ...turns.map((m, i) => (i === lastUser ? { role: m.role, content: `${news}\n\nQuestion: ${m.content}` } : m)),
  ];
}

/** Where chat reports what the caller is not told (the request's logger). */
export interface ChatLog {
  error(obj: object, msg: string): void;
}

/** The owner's BYOK keys for a claude-/gemini- request; keys that cannot be opened (bad master key) are logged and treated as absent. */
export async function byokKeys(services: Services, principal: Principal, model: string, log?: ChatLog): Promise<Record<string, string>> {
  if (!/^(claude|gemini)-/i.test(model) || !byokAllowed(principal)) return {};
  try {
    return await services.byok.keys(ownerOf(principal));
  } catch (err) {
    log?.error({ err }, 'stored BYOK keys cannot be opened (master key?); answering without them');
    return {};
  }
}

/**
 * How much of a thread's stored conversation is replayed (to the provider and to retrieval's
 * conversational awareness): the newest turns whose tokens (content + 4 per message) fit in this.
 * Older turns stay stored but are not sent, so a long thread costs no more per request.
 */
export const HISTORY_TOKENS = 4000;

/** The newest turns of `history` within `budget` tokens. */
export function recentTurns(history: LlmMessage[], budget = HISTORY_TOKENS): LlmMessage[] {
  let used = 0;
  let i = history.length;
  while (i > 0) {
    const t = countTokens(history[i - 1]!.content) + 4;
    if (used + t > budget) break;
    used += t;
    i--;
  }
  return history.slice(i);
}

/**
 * The request's own messages a run works on, chosen before any per-message work (tokens,
 * retrieval, the prompt, the thread): its system messages and its other turns, the newest of
 * each within HISTORY_TOKENS, its last turn always. A request of many messages (spec/chat.ts
 * CHAT_LIMITS) then costs no more than its last few; older ones are neither sent nor stored.
 */
export function requestTurns(messages: LlmMessage[]): LlmMessage[] {
  const turns = messages.filter((m) => m.role !== 'system');
  const kept = new Set([...recentTurns(messages.filter((m) => m.role === 'system')), ...recentTurns(turns)]);
  if (turns.length) kept.add(turns[turns.length - 1]!);
  return messages.filter((m) => kept.has(m));
}

/**
 * `signal`: the client left (HandlerCtx.signal); the follow-up rewrite and retrieval stop. The
 * answer's own work stops with the signal `events` is given (chat/respond.ts replyRun passes the same).
 */
export async function startChat(services: Services, principal: Principal, body: ChatBody, log?: ChatLog, signal?: AbortSignal): Promise<ChatRun> {
  const news = services.news!;
  // thread: a known thread continues; an unknown one is 404; none starts a thread
  let history: LlmMessage[] = [];
  // an empty thread_id (sent by some clients for "none") starts a new thread like null
  const known = body.thread_id ? body.thread_id : null;
  if (known) {
    const stored = await services.threads.messages(known, principal.userId);
    if (!stored) throw notFound(`no thread ${known} for this user`);
    history = recentTurns(stored);
  }
  // a new thread's row is written once the answer has started: a provider failing first leaves none
  const threadId = known ?? crypto.randomUUID();
  let threadRow = !!known;
  const ensureThread = async () => {
    if (threadRow) return;
    await services.threads.create(principal.userId, principal.keyId, threadId);
    threadRow = true;
  };
  const incoming: LlmMessage[] = requestTurns(body.messages.map((m) => ({ role: m.role, content: m.content })));
  const conversation = [...history, ...incoming];
  // filter_params are validated before any model call (a bad one is a 422 under filter_params)
  searchParamsOf(body.filter_params, 'x', !!news.embedder);
  const keys = await byokKeys(services, principal, body.model, log);
  const provider: LlmProvider = services.llm.provider(body.model, keys);
  const follow = await followUpQuery(conversation, { conversational: body.conversational_awareness, provider, user: body.user, signal, log });
  const question = follow.query;
  const { p, given } = searchParamsOf(body.filter_params, question, !!news.embedder);
  signal?.throwIfAborted();
  const docs = await retrieve(news, principal, p, given);
  signal?.throwIfAborted();

  const hit = hitRecorder(news, principal, question);
  hit(
    'grounded',
    docs.map((d) => d.article),
  );

  const messages = groundedMessages(conversation, docs, body.journalist_mode);
  const stops = body.stop == null ? [] : (Array.isArray(body.stop) ? body.stop : [body.stop]).filter(Boolean);
  // the rewrite call (a follow-up, with a model) counts with the answer's
  const usage = { prompt_tokens: promptTokens(messages) + follow.usage.prompt_tokens, completion_tokens: follow.usage.completion_tokens, total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const run: ChatRun = {
    id: `chatcmpl-${crypto.randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: provider.model,
    threadId,
    docs,
    query: question,
    usage,
    async *events(signal?: AbortSignal) {
      const req: LlmRequest = {
        model: provider.model,
        messages,
        temperature: body.temperature,
        top_p: body.top_p,
        stop: stops,
        max_tokens: body.max_tokens,
        presence_penalty: body.presence_penalty,
        frequency_penalty: body.frequency_penalty,
        user: body.user ?? null,
        stream: true,
        context: docs,
        question,
        journalistMode: body.journalist_mode,
        signal,
      };
      const tail = (cited: SourceDoc[]) => (body.append_references ? references(cited) : '') + (body.asknews_watermark ? WATERMARK : '');
      const writers = Array.from({ length: body.n }, () => new AnswerWriter({ docs, style: body.inline_citations, stops, maxTokens: body.max_tokens, tail }));
      const base = usage.completion_tokens;
      for await (const e of answers(provider, req, writers)) {
        // the thread is stored once the answer has started
        await ensureThread();
        usage.completion_tokens = base + writers.reduce((s, w) => s + w.tokens, 0);
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
        yield e;
      }
      const cited = new Map<string, ContextDoc>();
      for (const w of writers) for (const d of w.cited) if (!isPassage(d)) cited.set(d.article.articleId, d);
      hit(
        'citation',
        [...cited.values()].map((d) => d.article),
      );
      await services.threads.append(threadId, [...incoming.filter((m) => m.role !== 'system'), { role: 'assistant', content: writers[0]?.text ?? '' }]);
    },
  };
  return run;
}
