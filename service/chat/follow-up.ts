/**
 * A follow-up made self-standing before retrieval. In a thread (turns before the last user
 * message, stored or sent), "and what did Russia say?" means little to a search index on its own:
 * - with a model (any provider but the extractive writer): one short call asks it to rewrite the
 *   last message as a self-standing search query (the conversation as a transcript, temperature
 *   0, at most REWRITE_TOKENS tokens); the first line of its answer is the query;
 * - without one, or when that call fails: the thread's subject is carried into the query: the
 *   named entities (people, organisations, places, events, ...) of the earlier user turns, then
 *   their content words, newest turn first, that the follow-up does not name already (at most
 *   CARRIED of them).
 * A first message, or conversational_awareness false: the last user message as it is.
 */
import { ENTITY_TYPES, type EntityType } from '../../spec/index.js';
import { extractEntities } from '../enrich/entities.js';
import { stopwords, terms } from '../text/tokenize.js';
import { complete, ProviderError, type LlmMessage, type LlmProvider } from '../llm/index.js';
import { countTokens, promptTokens } from '../llm/tokens.js';

/** Earlier user turns the carried query reads (newest first). */
const FOLDED_TURNS = 2;
/** Entities and words carried into a follow-up at most. */
const CARRIED = 6;
/** Longest rewrite a model may answer (tokens). */
export const REWRITE_TOKENS = 48;
/** Characters of one turn the rewrite call shows the model. */
const TURN_CHARS = 600;

/** The entity types that name a subject (not dates, numbers, titles). */
export const SUBJECT_ENTITY_TYPES = ENTITY_TYPES.filter((t) => !['Date', 'Time', 'Number', 'Quantity', 'Money', 'Title'].includes(t)) as EntityType[];

const QUESTION_WORDS = new Set([
  'what',
  'who',
  'whom',
  'whose',
  'which',
  'when',
  'where',
  'why',
  'how',
  'did',
  'does',
  'do',
  'is',
  'are',
  'was',
  'were',
  'has',
  'have',
  'had',
  'will',
  'would',
  'can',
  'could',
  'should',
  'happened',
  'happen',
  'happening',
  'tell',
  'explain',
  'describe',
  'about',
  'latest',
  'news',
  'report',
  'reports',
  'say',
  'said',
]);
export const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** Runs of content words of a question (no stop words, question words, years or months; punctuation ends a run). */
export function contentWords(q: string): string[][] {
  const stop = stopwords('en');
  const runs: string[][] = [[]];
  for (const raw of q.split(/\s+/)) {
    const w = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    const lower = w.toLowerCase();
    const breaks = /[,;:?!.]$/.test(raw);
    if (!w || stop.has(lower) || QUESTION_WORDS.has(lower) || /^\d{4}$/.test(w) || MONTHS.includes(lower)) {
      runs.push([]);
      continue;
    }
    runs[runs.length - 1]!.push(w);
    if (breaks) runs.push([]);
  }
  return runs.filter((r) => r.length);
}

export interface FollowUp {
  /** what retrieval searches for */
  query: string;
  /** who made it self-standing: the model, the thread's subject carried over, or nobody (a first message) */
  by: 'model' | 'thread' | null;
  /** tokens of the rewrite call (0 without one) */
  usage: { prompt_tokens: number; completion_tokens: number };
}

const userTurns = (conversation: LlmMessage[]) =>
  conversation
    .filter((m) => m.role === 'user')
    .map((m) => m.content.trim())
    .filter(Boolean);

/** The follow-up with the thread's subject carried into it (no model). */
export function carriedQuery(conversation: LlmMessage[]): string {
  const users = userTurns(conversation);
  const last = users[users.length - 1] ?? '';
  const earlier = users.slice(0, -1).slice(-FOLDED_TURNS).reverse();
  const have = new Set(terms(last));
  const add: string[] = [];
  const take = (phrase: string) => {
    const ts = terms(phrase);
    if (!ts.length || ts.every((t) => have.has(t))) return;
    for (const t of ts) have.add(t);
    add.push(phrase);
  };
  for (const turn of earlier) {
    const ents = extractEntities(turn, '');
    for (const t of SUBJECT_ENTITY_TYPES) for (const e of ents[t] ?? []) if (e.length >= 2) take(e);
  }
  for (const turn of earlier) for (const run of contentWords(turn)) for (const w of run) take(w);
  return [last, ...add.slice(0, CARRIED)].join(' ').trim();
}

const REWRITE =
  'You turn the last message of a conversation into one self-standing search query for a news archive. ' +
  'Name what it refers to (the people, organisations, places and events of the earlier turns) so that it can be understood alone. ' +
  'Answer with the query only: one line, no quotes, at most 20 words.';

/** The messages of the rewrite call: the instructions, then the conversation as a transcript. */
export function rewriteMessages(conversation: LlmMessage[]): LlmMessage[] {
  const turns = conversation.filter((m) => m.role !== 'system' && m.content.trim());
  const lastUser = turns.map((m) => m.role).lastIndexOf('user');
  const lines = turns.slice(0, lastUser).map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content.trim().slice(0, TURN_CHARS)}`);
  return [
    { role: 'system', content: REWRITE },
    { role: 'user', content: `Conversation:\n${lines.join('\n')}\n\nLast message: ${turns[lastUser]?.content.trim() ?? ''}\n\nSearch query:` },
  ];
}

/** The first line of a model's answer, without a label or quotes; '' when there is none. */
export function rewrittenQuery(answer: string): string {
  const line =
    answer
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return line
    .replace(/^(search )?query\s*:\s*/i, '')
    .replace(/^["'“‘`]+|["'”’`]+$/g, '')
    .trim()
    .slice(0, 300);
}

/** What retrieval searches for, given the whole conversation (stored thread turns, then the request's messages). */
export async function followUpQuery(
  conversation: LlmMessage[],
  o: { conversational: boolean; provider: LlmProvider; user?: string | null; signal?: AbortSignal; log?: { error(obj: object, msg: string): void } },
): Promise<FollowUp> {
  const users = userTurns(conversation);
  const last = users[users.length - 1] ?? '';
  const none = { prompt_tokens: 0, completion_tokens: 0 };
  if (!o.conversational || users.length < 2) return { query: last, by: null, usage: none };
  if (o.provider.name !== 'extractive') {
    const messages = rewriteMessages(conversation);
    try {
      const answer = await complete(o.provider, {
        model: o.provider.model,
        messages,
        temperature: 0,
        max_tokens: REWRITE_TOKENS,
        stream: false,
        user: o.user ?? null,
        signal: o.signal,
      });
      const query = rewrittenQuery(answer);
      const usage = { prompt_tokens: promptTokens(messages), completion_tokens: countTokens(answer) };
      if (query) return { query, by: 'model', usage };
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      // the client left (the call was aborted for it): nothing to carry on with, nothing to log
      if (o.signal?.aborted) throw o.signal.reason;
      o.log?.error({ provider: e.provider, detail: e.detail }, `${e.message} while rewriting a follow-up; the thread's subject is carried instead`);
    }
  }
  return { query: carriedQuery(conversation), by: 'thread', usage: none };
}
