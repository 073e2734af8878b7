/**
 * How an error of an API call fails an activity, for every activity: an answer that retrying
 * cannot heal (401, 403, 404, 422 and the other 4xx but 408 and 429) fails it as non-retryable,
 * with the API's code and detail, so the run ends with that message after one attempt; 429 is
 * retried no sooner than Retry-After; network errors and 5xx keep Temporal's retries.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { ApiError, RateLimitError } from '../client/index.js';

/** The API's answer that no retry will change. */
export const permanent = (e: unknown): e is ApiError => e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;

/**
 * The error an activity should throw for `e`: a non-retryable ApplicationFailure of type `type`
 * (default: the client's error name, e.g. ForbiddenError) whose message carries the API's code and
 * detail and whose details are [{ status, code, detail, operationId }]; a RateLimited failure that
 * waits Retry-After; `e` itself otherwise.
 */
export function apiFailure(e: unknown, type?: string): unknown {
  if (e instanceof RateLimitError) {
    return ApplicationFailure.create({ message: e.message, type: 'RateLimited', nextRetryDelay: `${Math.max(1, e.retryAfter ?? 5)}s` });
  }
  if (permanent(e)) {
    return ApplicationFailure.create({
      message: e.message,
      type: type ?? e.name,
      nonRetryable: true,
      details: [{ status: e.status, code: e.code, detail: e.detail, operationId: e.operationId }],
    });
  }
  return e;
}

/** The activities of `acts`, each failing through apiFailure. */
export function failingFast<T extends Record<string, (...args: never[]) => Promise<unknown>>>(acts: T): T {
  return Object.fromEntries(
    Object.entries(acts).map(([name, fn]) => [
      name,
      async (...args: never[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          throw apiFailure(e);
        }
      },
    ]),
  ) as T;
}
