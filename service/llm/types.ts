/**
 * The model layer's one interface: messages in, a stream of text deltas out (a whole answer is
 * the stream collected). Used by chat completions and the alert judge alike.
 */
import type { NewsArticle } from '../article/model.js';

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

/** The kinds of source besides news articles that a writer may quote (DeepNews gathers them with its tools). */
export type PassageKind = 'web' | 'wiki' | 'forum' | 'graph' | 'chart';

/** A source other than a news article placed in the writer's context, numbered like the articles. */
export interface PassageDoc {
  n: number;
  kind: PassageKind;
  title: string;
  /** where a reader finds it (a web page, an encyclopedia article, a forum thread, a graph's page, a chart's counts) */
  url: string;
  /** who speaks: a site, Wikipedia, a forum, the graph or the counts of this service */
  publisher: string;
  published: Date | null;
  /** what the writer may quote: sentences or one fact a line */
  text: string;
}

/** Anything a writer reads and cites with `[n]`. */
export type SourceDoc = ContextDoc | PassageDoc;

export const isPassage = (d: SourceDoc): d is PassageDoc => 'kind' in d;

/** What a citation and a reference line show of a source. */
export function citeView(d: SourceDoc): { title: string; url: string; publisher: string; published: Date | null } {
  if (isPassage(d)) return { title: d.title, url: d.url, publisher: d.publisher, published: d.published };
  return { title: d.article.title, url: d.article.url, publisher: d.article.domain, published: d.article.pubDate };
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
  /** the sources the messages carry, structured: the extractive writer reads them */
  context?: SourceDoc[];
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
  /** `n` answers from one call (OpenAI-compatible `n`), their deltas as they come, interleaved; absent: one answer a call */
  streamChoices?(req: LlmRequest, n: number): AsyncIterable<ChoiceEvent>;
}

/** A piece of one of `n` answers, or the end of that answer. */
export type ChoiceEvent = { index: number; text: string } | { index: number; end: true };

/**
 * `n` answers to one request: one call when the provider writes several at once (OpenAI-compatible
 * `n`), else `n` calls one after another (Anthropic, Gemini: sampled, so they differ; the
 * extractive writer is deterministic: its answers are the same). An answer the caller marks in
 * `done` is not read further: with calls one after another its call is aborted and the next
 * starts; with one call the call is aborted once every answer is done.
 */
export async function* choices(p: LlmProvider, req: LlmRequest, n: number, done: ReadonlySet<number> = new Set()): AsyncGenerator<ChoiceEvent> {
  if (n > 1 && p.streamChoices) {
    const ac = new AbortController();
    const ended = new Set<number>();
    try {
      for await (const e of p.streamChoices(withAbort(req, ac.signal), n)) {
        if ('end' in e) ended.add(e.index);
        if (done.has(e.index) && !('end' in e)) {
          if (done.size >= n) break;
          continue;
        }
        yield e;
      }
    } finally {
      ac.abort();
    }
    for (let index = 0; index < n; index++) if (!ended.has(index)) yield { index, end: true };
    return;
  }
  for (let index = 0; index < n; index++) {
    // the caller went away: no further call (a provider that reads no signal, the extractive writer, would write them all)
    req.signal?.throwIfAborted();
    const ac = new AbortController();
    try {
      for await (const text of p.stream(withAbort(req, ac.signal))) {
        yield { index, text };
        if (done.has(index)) break;
      }
    } finally {
      ac.abort();
    }
    yield { index, end: true };
  }
}

const withAbort = (req: LlmRequest, signal: AbortSignal): LlmRequest => ({ ...req, signal: req.signal ? AbortSignal.any([req.signal, signal]) : signal });

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
