/** One HTTP call of a provider: timeout, non-2xx and network failures become ProviderError. */
import { sseData } from '../../lib/sse.js';
import { SSE } from '../../spec/index.js';
import { ProviderError } from './types.js';

/**
 * The timeout bounds the wait for the response headers only; a streamed body is then bounded by
 * `guarded()`'s idle timeout between chunks (a long answer that keeps coming is never cut), a
 * plain body by `json()`'s own timeout.
 */
export async function post(
  provider: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Response> {
  const headersTimeout = new AbortController();
  const timer = setTimeout(() => headersTimeout.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
  const timeout = headersTimeout.signal;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      // the key headers (BYOK x-api-key, x-goog-api-key, Authorization) never follow a redirect elsewhere
      redirect: 'error',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (e) {
    throw failure(provider, e, timeout, timeoutMs, url);
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok) {
    const text = await withTimeout(res.text(), timeoutMs).catch(() => '');
    throw new ProviderError(provider, 'http', `${url} answered HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
  }
  return res;
}

/** `p`, or a rejection after `ms`. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`timeout after ${ms} ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

export function failure(provider: string, e: unknown, timeout: AbortSignal, timeoutMs: number, url: string): ProviderError {
  if (e instanceof ProviderError) return e;
  if (timeout.aborted) return new ProviderError(provider, 'timeout', `no answer from ${url} within ${timeoutMs} ms (timeout)`);
  const err = e as Error & { cause?: Error };
  return new ProviderError(provider, 'unreachable', `${url}: ${err.cause?.message ?? err.message}`);
}

/** Read a body as JSON or fail as the provider's bad answer. */
export async function json<T>(provider: string, res: Response, url: string, timeoutMs: number): Promise<T> {
  let text: string;
  try {
    text = await withTimeout(res.text(), timeoutMs);
  } catch (e) {
    const m = (e as Error).message;
    throw m.startsWith('timeout')
      ? new ProviderError(provider, 'timeout', `${url} body not read within ${timeoutMs} ms`)
      : new ProviderError(provider, 'stream broke', `${url} body broke: ${m}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError(provider, 'bad JSON', `${url} answered with invalid JSON: ${text.slice(0, 120)}`);
  }
}

/** The data of each server-sent event of a streamed answer (up to a `[DONE]` event, which OpenAI-compatible servers send last). */
export function events(res: Response): AsyncIterable<string> {
  return sseData(res.body as unknown as AsyncIterable<Uint8Array>, { end: SSE.done });
}

/** Parse one SSE data payload as JSON or fail. */
export function eventJson<T>(provider: string, data: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new ProviderError(provider, 'bad JSON', `stream event is not JSON: ${data.slice(0, 120)}`);
  }
}

/** Wrap a stream so an idle gap longer than the timeout or a broken body is a ProviderError. */
export async function* guarded<T>(provider: string, url: string, timeoutMs: number, it: AsyncIterable<T>): AsyncIterable<T> {
  const iter = it[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<never>((_, rej) => {
      timer = setTimeout(() => rej(new ProviderError(provider, 'timeout', `${url} stream stalled for ${timeoutMs} ms`)), timeoutMs);
    });
    let r: IteratorResult<T>;
    try {
      r = await Promise.race([iter.next(), idle]);
    } catch (e) {
      void iter.return?.();
      if (e instanceof ProviderError) throw e;
      throw new ProviderError(provider, 'stream broke', `${url} stream broke: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    if (r.done) return;
    yield r.value;
  }
}
