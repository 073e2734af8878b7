/** HTTP errors with the `{code, detail}` body and the codes of spec/errors.ts. */
import type { z } from 'zod';
import { DEFAULT_DETAILS, ERROR_CODES, type ValidationErrorItem } from '../../spec/index.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly detail: string | ValidationErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation error');
  }
  body(): { code: number; detail: unknown } {
    return { code: this.code, detail: this.detail };
  }
}

const make = (status: number, code: number) => (detail?: string, headers?: Record<string, string>) =>
  new HttpError(status, code, detail ?? DEFAULT_DETAILS[code] ?? 'Error', headers);

export const badRequest = make(400, ERROR_CODES.badRequest);
export const unauthorized = make(401, ERROR_CODES.unauthorized);
export const forbidden = make(403, ERROR_CODES.forbidden);
export const notFound = make(404, ERROR_CODES.notFound);
export const methodNotAllowed = make(405, ERROR_CODES.methodNotAllowed);
export const conflict = make(409, ERROR_CODES.conflict);
export const notImplemented = make(501, ERROR_CODES.notImplemented);
export const unavailable = make(503, ERROR_CODES.unavailable);

export function validationError(items: ValidationErrorItem[]): HttpError {
  return new HttpError(422, ERROR_CODES.validation, items);
}

/** zod issues -> 422 items with `loc` = [location, ...path] (FastAPI style types). */
export function zodIssuesToItems(location: string, issues: z.core.$ZodIssue[], input: unknown): ValidationErrorItem[] {
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    const loc = [location, ...path];
    const name = String(path[0] ?? location);
    const value = lookup(input, issue.path);
    switch (issue.code) {
      case 'invalid_type':
        if (value === undefined) return { loc, msg: 'field required', type: 'value_error.missing' };
        return { loc, msg: `${name}: expected ${issue.expected}, got ${show(value)}`, type: `type_error.${issue.expected}` };
      case 'invalid_value': {
        const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ');
        return { loc, msg: `${name}: ${show(value)} is not a permitted value; permitted: ${allowed}`, type: 'type_error.enum' };
      }
      case 'too_small':
        return {
          loc,
          msg: `${name}: ${issue.origin === 'array' ? 'needs at least' : 'must be greater than or equal to'} ${String(issue.minimum)}${issue.origin === 'array' ? ' items' : ''}`,
          type: issue.origin === 'array' ? 'value_error.list.min_items' : 'value_error.number.not_ge',
        };
      case 'too_big':
        if (issue.origin === 'string')
          return { loc, msg: `${name}: at most ${String(issue.maximum)} characters allowed`, type: 'value_error.any_str.max_length' };
        return {
          loc,
          msg: `${name}: ${issue.origin === 'array' ? 'at most' : 'must be less than or equal to'} ${String(issue.maximum)}${issue.origin === 'array' ? ' items allowed' : ''}`,
          type: issue.origin === 'array' ? 'value_error.list.max_items' : 'value_error.number.not_le',
        };
      case 'invalid_format': {
        // a pattern of spec/ (spec/patterns.ts) carries its own message: what the value must look like
        if (issue.format === 'regex')
          return { loc, msg: issue.message.startsWith(`${name}:`) ? issue.message : `${name}: ${issue.message}`, type: 'value_error.str.regex' };
        const format = issue.format === 'guid' ? 'uuid' : issue.format;
        return { loc, msg: `${name}: ${show(value)} is not a valid ${format}`, type: `value_error.${format}` };
      }
      case 'invalid_union':
        return { loc, msg: `${name}: ${show(value)} does not match any allowed form`, type: 'value_error.union' };
      case 'unrecognized_keys':
        return { loc, msg: `unknown field(s): ${issue.keys.join(', ')}`, type: 'value_error.extra' };
      default:
        return { loc, msg: `${name}: ${issue.message}`, type: 'value_error' };
    }
  });
}

/** A value quoted in a message: JSON, cut at 200 characters (input may be megabytes). */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function lookup(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    // own properties only: a path through `constructor` or `__proto__` finds no inherited value
    cur = Object.hasOwn(cur, p) ? (cur as Record<PropertyKey, unknown>)[p] : undefined;
  }
  return cur;
}
