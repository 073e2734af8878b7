/**
 * A chat completion grounded in the news: retrieve, place the articles in the model's context,
 * run the provider the model layer picks, and turn its text into the answer: stop sequences,
 * citations in the requested style, references and watermark, max_tokens (real tokenizer).
 * The answer is one stream of events; a non-streamed response is that stream collected, so both
 * carry the same text.
 */
import crypto from 'node:crypto';
import type { Services } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import { byokAllowed, ownerOf } from '../byok/store.js';
import type { ContextDoc, LlmMessage, LlmProvider, LlmRequest } from '../llm/index.js';
import { countTokens, promptTokens, truncateTokens } from '../llm/tokens.js';
import { CitationWriter, WATERMARK, references, type InlineCitations } from './citations.js';
import { retrievalQuery, retrieve, searchParamsOf } from './retrieve.js';

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

export type ChatEvent = { type: 'delta'; index: number; text: string } | { type: 'finish'; index: number; reason: 'stop' | 'length' };

export interface ChatRun {
  id: string;
  created: number;
  /** the model that really writes the answer */
  model: string;
  threadId: string;
  docs: ContextDoc[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  events(): AsyncGenerator<ChatEvent>;
}

const JOURNALIST =
  "You are a news journalist. Answer the conversation's last question from the news articles below and nothing else, " +
  'as a short wire brief: the lead first, then context, then reactions. Attribute facts to their publishers ' +
  '("..., Reuters reported") and cite every sentence with the article number in brackets, e.g. [2]. ' +
  'If the articles do not answer the question, say so.';
const PLAIN =
  'Answer the last question in plain text from the news articles given before it, and nothing else. ' +
  'Cite every sentence with the article number in brackets, e.g. [2]. If the articles do not answer the question, say so.';

function renderDoc(d: ContextDoc): string {
  const a = d.article;
  const lines = [`[${d.n}] ${a.title}`, `Publisher: ${a.domain} | Published: ${a.pubDate.toISOString()} | URL: ${a.url}`, `Summary: ${a.summary}`];
  if (a.keyPoints.length) lines.push(`Key points: ${a.keyPoints.join(' ')}`);
  if (d.fullText) lines.push(`Text: ${d.fullText.slice(0, 1500)}`);
  return lines.join('\n');
}

/** The messages a provider receives: journalist mode puts the news in the system message; plain mode before the question. */
export function groundedMessages(history: LlmMessage[], docs: ContextDoc[], journalist: boolean): LlmMessage[] {
  const news = docs.length ? `News articles:\n\n${docs.map(renderDoc).join('\n\n')}` : 'News articles: none matched the question.';
  const own = history.filter((m) => m.role === 'system').map((m) => m.content);
  const turns = history.filter((m) => m.role !== 'system');
  if (journalist) return [{ role: 'system', content: [JOURNALIST, ...own, news].join('\n\n') }, ...turns];
  const lastUser = turns.map((m) => m.role).lastIndexOf('user');
  return [
    { role: 'system', content: [PLAIN, ...own].join('\n\n') },
    ...turns.map((m, i) => (i === lastUser ? { role: m.role, content: `${news}\n\nQuestion: ${m.content}` } : m)),
  ];
}

/** Cuts a text stream at the first stop sequence; holds back what could be the start of one. */
class StopCutter {
  private buf = '';
  private readonly hold: number;
  constructor(private readonly stops: string[]) {
    this.hold = Math.max(0, ...stops.map((s) => s.length - 1));
  }
  /** [text to pass on, stopped?] */
  push(d: string): [string, boolean] {
    this.buf += d;
    let at = -1;
    for (const s of this.stops) {
      const i = this.buf.indexOf(s);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at >= 0) {
      const out = this.buf.slice(0, at);
      this.buf = '';
      return [out, true];
    }
    const cut = Math.max(0, this.buf.length - this.hold);
    const out = this.buf.slice(0, cut);
    this.buf = this.buf.slice(cut);
    return [out, false];
  }
  end(): string {
    const out = this.buf;
    this.buf = '';
    return out;
  }
}

/**
 * At most `max` tokens of completion, counted as the text grows without re-encoding all of it:
 * the text before `at` is settled (its token count kept), only the rest is encoded per delta.
 * `at` moves to a pretokenizer boundary (a space after a non-space, before a letter), where
 * o200k's BPE never merges across, so the running count is the full encode's. Near the budget
 * the whole text is encoded to cut exactly.
 */
class TokenBudget {
  text = '';
  /** tokens of `text` */
  tokens = 0;
  private at = 0;
  private settled = 0;
  constructor(private readonly max: number) {}
  /** [text to emit, budget exhausted?] */
  take(d: string): [string, boolean] {
    if (!d) return ['', false];
    const next = this.text + d;
    let n = this.settled + countTokens(next.slice(this.at));
    if (n > this.max - NEAR_BUDGET) n = countTokens(next);
    if (n <= this.max) {
      this.text = next;
      this.tokens = n;
      this.settle();
      return [d, false];
    }
    const cut = truncateTokens(next, this.max);
    const out = cut.startsWith(this.text) ? cut.slice(this.text.length) : '';
    this.text += out;
    this.tokens = countTokens(this.text);
    return [out, true];
  }
  private settle(): void {
    const open = this.text.slice(this.at);
    if (open.length < SETTLE_CHARS) return;
    let b = -1;
    for (const m of open.matchAll(/(?<=[^\s]) (?=\p{L})/gu)) b = m.index;
    if (b <= 0) return;
    this.settled += countTokens(open.slice(0, b));
    this.at += b;
  }
}
/** how much unsettled text a delta re-encodes at most (about) before the boundary moves */
const SETTLE_CHARS = 64;
/** within this many tokens of max_tokens, count on the whole text */
const NEAR_BUDGET = 16;

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

/** `signal`: the client left (HandlerCtx.signal); retrieval and the provider calls stop. */
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
  const question = retrievalQuery(conversation, body.conversational_awareness);
  const { p, given } = searchParamsOf(body.filter_params, question, !!news.embedder);
  const keys = await byokKeys(services, principal, body.model, log);
  const provider: LlmProvider = services.llm.provider(body.model, keys);
  signal?.throwIfAborted();
  const docs = await retrieve(news, principal, p, given);
  signal?.throwIfAborted();

  const now = () => new Date(news.clock());
  const hit = (kind: 'grounded' | 'citation', list: ContextDoc[]) =>
    news.hits.record(
      list.map((d) => ({
        ts: now(),
        kind,
        keyId: principal.keyId,
        orgId: principal.org?.id ?? null,
        domain: d.article.domain,
        articleId: d.article.articleId,
        query: question || null,
      })),
    );
  hit('grounded', docs);

  const messages = groundedMessages(conversation, docs, body.journalist_mode);
  const stops = body.stop == null ? [] : (Array.isArray(body.stop) ? body.stop : [body.stop]).filter(Boolean);
  const usage = { prompt_tokens: promptTokens(messages), completion_tokens: 0, total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens;
  const run: ChatRun = {
    id: `chatcmpl-${crypto.randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: provider.model,
    threadId,
    docs,
    usage,
    async *events() {
      const cited = new Map<string, ContextDoc>();
      let first = '';
      for (let index = 0; index < body.n; index++) {
        signal?.throwIfAborted();
        const ac = new AbortController();
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
          signal: signal ? AbortSignal.any([ac.signal, signal]) : ac.signal,
        };
        const stopper = new StopCutter(stops);
        const cites = new CitationWriter(docs, body.inline_citations);
        const budget = new TokenBudget(body.max_tokens);
        let answer = '';
        const before = usage.completion_tokens;
        let reason: 'stop' | 'length' = 'stop';
        const emit = function* (text: string): Generator<ChatEvent, boolean> {
          const [out, full] = budget.take(text);
          if (out) {
            answer += out;
            usage.completion_tokens = before + budget.tokens;
            usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
            yield { type: 'delta', index, text: out };
          }
          return full;
        };
        let full = false;
        let stopped = false;
        try {
          for await (const d of provider.stream(req)) {
            await ensureThread();
            const [raw, hitStop] = stopper.push(d);
            full = yield* emit(cites.push(raw));
            if (full || hitStop) {
              stopped = hitStop;
              break;
            }
          }
        } finally {
          ac.abort();
        }
        if (!full) {
          full = yield* emit(cites.push(stopped ? '' : stopper.end()) + cites.end());
          // a stop sequence ends the output: nothing is appended after it
          const tail = stopped ? '' : (body.append_references ? references(cites.citedDocs()) : '') + (body.asknews_watermark ? WATERMARK : '');
          if (!full && tail) full = yield* emit(tail);
        }
        if (full) reason = 'length';
        // the exact figure once, at the finish (the running one is exact at pretokenizer boundaries)
        usage.completion_tokens = before + countTokens(answer);
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
        for (const d of cites.citedDocs()) cited.set(d.article.articleId, d);
        if (index === 0) first = answer;
        await ensureThread();
        yield { type: 'finish', index, reason };
      }
      hit('citation', [...cited.values()]);
      await services.threads.append(threadId, [...incoming.filter((m) => m.role !== 'system'), { role: 'assistant', content: first }]);
    },
  };
  return run;
}
