/** Error bodies and codes (../shared/spec/asknews-facts.md §2, §13). Code = HTTP status x 1000 (+ sub-code). */
import { z } from 'zod';

export const ERROR_CODES = {
  badRequest: 400000,
  unauthorized: 401000,
  forbidden: 403000,
  notFound: 404000,
  methodNotAllowed: 405000,
  requestTimeout: 408000,
  conflict: 409000,
  payloadTooLarge: 413000,
  unsupportedMediaType: 415000,
  validation: 422000,
  rateLimited: 429000,
  concurrencyLimited: 429001,
  internal: 500000,
  badGateway: 502000,
  notImplemented: 501000,
  unavailable: 503000,
} as const;

export const DEFAULT_DETAILS: Record<number, string> = {
  400000: 'Bad Request',
  401000: 'Unauthorized',
  403000: 'Forbidden',
  404000: 'Resource Not Found',
  405000: 'Method Not Allowed',
  408000: 'Request Timeout',
  409000: 'Conflict',
  413000: 'Payload Too Large',
  415000: 'Unsupported Media Type',
  422000: 'Validation Error',
  429000: 'Rate Limit Exceeded',
  429001: 'Concurrency Limit Exceeded',
  500000: 'Internal Server Error',
  502000: 'Bad Gateway',
  501000: 'Not Implemented',
  503000: 'Service Unavailable',
};

export const APIErrorModel = z.object({ code: z.int(), detail: z.string() }).meta({ id: 'APIErrorModel' });
export type APIErrorModel = z.infer<typeof APIErrorModel>;

export const ValidationErrorItem = z
  .object({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() })
  .meta({ id: 'ValidationErrorItem' });
export type ValidationErrorItem = z.infer<typeof ValidationErrorItem>;
export const ValidationErrorModel = z.object({ code: z.int().default(422000), detail: z.array(ValidationErrorItem) }).meta({ id: 'ValidationErrorModel' });

/** Any error body: `detail` is a string, or a list of items for 422. */
export const ErrorBody = z.object({
  code: z.int(),
  detail: z.union([z.string(), z.array(ValidationErrorItem), z.unknown()]),
});
