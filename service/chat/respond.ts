/**
 * What the routes that answer a run (chat completions, DeepNews) share: the reply itself (SSE
 * frames of the run's events, or the events collected into one JSON body), the error event of a
 * stream, the 502 of a provider that failed before the answer started, the abort of a run whose
 * caller went away, and `filter_params` as the caller sent them.
 */
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ERROR_CODES, SSE } from '../../spec/index.js';
import { sseFrame } from '../../lib/sse.js';
import type { RequestCtx } from '../context.js';
import { HttpError } from '../errors/index.js';
import { ProviderError } from '../llm/index.js';
import type { AnswerEvent } from './answer.js';
import type { ChatLog } from './completion.js';

const BAD_GATEWAY = ERROR_CODES.badGateway;

/** Callers get the provider and the kind of failure; the URL and the upstream excerpt go to the log only. */
export function gateway(e: ProviderError, log: ChatLog): HttpError {
  log.error({ provider: e.provider, status: e.status, detail: e.detail }, e.message);
  return new HttpError(502, BAD_GATEWAY, e.message);
}

/**
 * The frames of a run: `render` turns each event into frames, `data: [DONE]` comes last; a failure
 * once streaming is an error event (502000 for a provider, 500000 otherwise; `doing` names the work
 * in its message and log line). A run stopped because its caller went away (`aborted`) ends quietly:
 * no error event (no one reads it) and no error line.
 */
export async function* sseFrames<E>(
  first: IteratorResult<E>,
  it: AsyncIterator<E>,
  render: (e: E) => Iterable<string>,
  log: ChatLog,
  doing: { what: string; while: string },
  aborted?: AbortSignal,
): AsyncGenerator<string> {
  let r = first;
  try {
    while (!r.done) {
      for (const f of render(r.value)) yield f;
      r = await it.next();
    }
    yield sseFrame(SSE.done);
  } catch (e) {
    // the client left: the run stopped (its signal)
    if (aborted?.aborted) return;
    if (e instanceof ProviderError) log.error({ provider: e.provider, status: e.status, detail: e.detail }, e.message);
    else log.error({ err: e }, `${doing.what} stream failed`);
    const message = e instanceof ProviderError ? e.message : `internal error while ${doing.while}`;
    yield sseFrame({ error: { message, code: e instanceof ProviderError ? BAD_GATEWAY : 500000 } });
  }
}

/** The choices of a non-streamed answer: each choice's text and finish reason, collected from the run's events. */
export interface CollectedChoice {
  index: number;
  message: { role: 'assistant'; content: string };
  finish_reason: string | null;
}

/** A run as its reply needs it. */
export interface ReplyRun<E> {
  id: string;
  created: number;
  model: string;
  threadId: string;
  usage: object;
  events(signal: AbortSignal): AsyncGenerator<E>;
}

/**
 * Reply with a run (its thread id in `x-thread-id`): with `stream`, the first event decides
 * between an error response (a provider failing before anything was said is a 502) and a stream
 * of `render`ed frames; else the run's `n` answers are collected into the chat completion response
 * (with `extra` fields, DeepNews' `sources`, read once the run is done). A caller that goes away
 * (HandlerCtx.signal, service/app.ts) aborts the run (and the provider's request with it) and is
 * answered nothing: the stream ends quietly, and a run that had not answered yet throws the
 * signal's reason, which the error handler answers nobody.
 */
export async function replyRun<E extends { type: string }>(
  ctx: RequestCtx,
  run: ReplyRun<E>,
  o: {
    stream: boolean;
    n: number;
    render: (e: E) => Iterable<string>;
    doing: { what: string; while: string };
    extra?: () => Record<string, unknown>;
  },
): Promise<unknown> {
  const it = run.events(ctx.signal);
  ctx.reply.header('x-thread-id', run.threadId);
  try {
    if (o.stream) {
      const first = await it.next();
      ctx.reply.header('content-type', SSE.contentType).header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
      return ctx.reply.code(200).send(Readable.from(sseFrames(first, it, o.render, ctx.req.log, o.doing, ctx.signal)));
    }
    const choices: CollectedChoice[] = Array.from({ length: o.n }, (_, index) => ({ index, message: { role: 'assistant', content: '' }, finish_reason: null }));
    for await (const e of it) {
      const a = e as unknown as AnswerEvent;
      if (a.type === 'text') choices[a.index]!.message.content += a.text;
      else if (a.type === 'finish') choices[a.index]!.finish_reason = a.reason;
    }
    return {
      id: run.id,
      created: run.created,
      object: 'chat.completion',
      model: run.model,
      usage: run.usage,
      choices,
      ...o.extra?.(),
      thread_id: run.threadId,
    };
  } catch (e) {
    // no answer started: a new thread was not stored, so its id is not announced
    ctx.reply.removeHeader('x-thread-id');
    // the client left: its work stopped, nothing to report
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (e instanceof ProviderError) throw gateway(e, ctx.req.log);
    throw e;
  }
}

/** filter_params as sent: the parsed ones carry every search default, which would override the run's own. */
export function rawFilterParams(req: FastifyRequest): Record<string, unknown> | null {
  const raw = (req.body as { filter_params?: Record<string, unknown> | null } | null)?.filter_params;
  return raw && typeof raw === 'object' ? raw : null;
}
