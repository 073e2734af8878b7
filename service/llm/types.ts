/**
 * The model layer's one interface: messages in, a stream of text deltas out (a whole answer is
 * the stream collected). Used by chat completions and the alert judge alike.
 */
import type { NewsArticle } from '../news/model.js';

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A retrieved article placed in the model's context, numbered as it is cited ([n]). */
export interface ContextDoc {
  n: number;
  article: NewsArticle;
  fullText: string | null;
}

export interface LlmRequest {
  /** the model asked for (providers may map it; see `LlmRoute.model`) */
  model: string;
  messages: LlmMessage[];
  temperature?: number;
  top_p?: number;
  stop?: string[];
  max_tokens?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  user?: string | null;
  /** ask the provider to stream (HTTP providers send `stream: true`) */
  stream?: boolean;
  /** ask for a JSON object answer (OpenAI `response_format`) */
  json?: boolean;
  /** the news the messages carry, structured: the extractive writer reads it */
  context?: ContextDoc[];
  /** what retrieval searched for (the extractive writer ranks sentences against it) */
  question?: string;
  /** frame sentences with attribution ("..., Reuters reported") */
  journalistMode?: boolean;
  signal?: AbortSignal;
}

export interface LlmProvider {
  /** provider name, as errors and docs/service.md name it */
  readonly name: 'extractive' | 'openai' | 'anthropic' | 'google';
  /** the model that really writes the answer */
  readonly model: string;
  stream(req: LlmRequest): AsyncIterable<string>;
}

/** What callers are told of a provider failure; the rest (URL, upstream text) is `detail`, for the server's log. */
export type ProviderFailure = 'http' | 'timeout' | 'bad JSON' | 'stream broke' | 'unreachable';

/**
 * A provider that failed (HTTP 5xx or 4xx, timeout, bad JSON, in-stream error). `message` is
 * safe to send to callers (`<provider> provider failed: HTTP 500` / `timeout` / ...); `detail`
 * carries the provider URL and an upstream excerpt and is only logged.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderFailure,
    readonly detail: string,
    readonly status: number | null = null,
  ) {
    super(`${provider} provider failed: ${kind === 'http' ? `HTTP ${status}` : kind}`);
  }
}

/** The whole answer of a provider. */
export async function complete(p: LlmProvider, req: LlmRequest): Promise<string> {
  let out = '';
  for await (const d of p.stream(req)) out += d;
  return out;
}
