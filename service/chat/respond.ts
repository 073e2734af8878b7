/**
 * What the routes that answer a run (chat completions, DeepNews) share: SSE frames of the run's
 * events with the error event, the 502 of a provider that failed before the answer started, and
 * `filter_params` as the caller sent them.
 */
import type { FastifyRequest } from 'fastify';
import { ERROR_CODES, SSE } from '../../spec/index.js';
import { HttpError } from '../errors.js';
import { ProviderError } from '../llm/index.js';
import type { ChatLog } from './completion.js';

const BAD_GATEWAY = ERROR_CODES.badGateway;

/** One SSE event: `data: <json or text>`. */
export const frame = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** Callers get the provider and the kind of failure; the URL and the upstream excerpt go to the log only. */
export function gateway(e: ProviderError, log: ChatLog): HttpError {
  log.error({ provider: e.provider, status: e.status, detail: e.detail }, e.message);
  return new HttpError(502, BAD_GATEWAY, e.message);
}

/**
 * The frames of a run: `render` turns each event into frames, `data: [DONE]` comes last; a failure
 * once streaming is an error event (502000 for a provider, 500000 otherwise; `doing` names the work
 * in its message and log line), unless `doing.signal` says the client left: then the frames end quietly.
 */
export async function* sseFrames<E>(
  first: IteratorResult<E>,
  it: AsyncIterator<E>,
  render: (e: E) => Iterable<string>,
  log: ChatLog,
  doing: { what: string; while: string; signal?: AbortSignal },
): AsyncGenerator<string> {
  let r = first;
  try {
    while (!r.done) {
      for (const f of render(r.value)) yield f;
      r = await it.next();
    }
    yield frame(SSE.done);
  } catch (e) {
    // the client left: the run stopped (its signal), no one reads an error event
    if (doing.signal?.aborted) return;
    if (e instanceof ProviderError) log.error({ provider: e.provider, status: e.status, detail: e.detail }, e.message);
    else log.error({ err: e }, `${doing.what} stream failed`);
    const message = e instanceof ProviderError ? e.message : `internal error while ${doing.while}`;
    yield frame({ error: { message, code: e instanceof ProviderError ? BAD_GATEWAY : 500000 } });
  }
}

/** filter_params as sent: the parsed ones carry every search default, which would override the run's own. */
export function rawFilterParams(req: FastifyRequest): Record<string, unknown> | null {
  const raw = (req.body as { filter_params?: Record<string, unknown> | null } | null)?.filter_params;
  return raw && typeof raw === 'object' ? raw : null;
}
