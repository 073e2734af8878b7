/** Typed errors of the client, carrying the API's `code` and `detail`. */
import type { ValidationErrorItem } from '../spec/index.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly detail: unknown,
    readonly operationId: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${operationId}: HTTP ${status} (code ${code}): ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.name = new.target.name;
  }
}
export class AuthError extends ApiError {}
export class ForbiddenError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ValidationError extends ApiError {
  get items(): ValidationErrorItem[] {
    return Array.isArray(this.detail) ? (this.detail as ValidationErrorItem[]) : [];
  }
}
export class RateLimitError extends ApiError {
  /** seconds, from Retry-After */
  get retryAfter(): number | null {
    const v = Number(this.headers['retry-after']);
    return Number.isFinite(v) ? v : null;
  }
}
export class ServerError extends ApiError {}
/** The response did not match spec/ (strict validation only). */
export class ResponseShapeError extends Error {}
/** No HTTP response: refused, reset, timed out. */
export class NetworkError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/** Facts §2.3: code = body.code, else status x 1000. */
export function apiErrorFrom(status: number, body: unknown, operationId: string, headers: Record<string, string>): ApiError {
  const b = (body && typeof body === 'object' ? body : {}) as { code?: unknown; detail?: unknown };
  const code = typeof b.code === 'number' ? b.code : status * 1000;
  const detail = b.detail ?? (typeof body === 'string' ? body : `HTTP ${status}`);
  const Cls =
    status === 401
      ? AuthError
      : status === 403
        ? ForbiddenError
        : status === 404
          ? NotFoundError
          : status === 422
            ? ValidationError
            : status === 429
              ? RateLimitError
              : status >= 500
                ? ServerError
                : ApiError;
  return new Cls(status, code, detail, operationId, headers);
}
