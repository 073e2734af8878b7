/** Small building blocks shared by the resource and parameter schemas. */
import { z } from 'zod';

/** A query parameter that may be given once or repeated (`k=a&k=b`). */
export function oneOrMany<T extends z.ZodType>(item: T) {
  return z.union([item, z.array(item)]);
}
/** Repeated query parameter that is always an array once parsed. */
export function many<T extends z.ZodType>(item: T) {
  return z.array(item);
}
/**
 * A UUID in its textual form: 8-4-4-4-12 hex digits, any case, any version and variant (what
 * the hosted API's pydantic `UUID` and the JSON Schema `uuid` format accept). An id of another
 * shape is a 422 before any store sees it.
 */
export const Uuid = z.guid();
/**
 * Date-time forms the hosted API's framework (pydantic) reads besides RFC 3339, and what
 * Python's `str(datetime)` / naive `isoformat()` write: a space (or `t`) instead of `T`, no offset
 * (read as UTC), an offset without a colon or minutes, no seconds. `normaliseDateTime` rewrites
 * them to RFC 3339 with `T` and an explicit offset (naive -> `Z`); an offset that is given is
 * kept, and a value already in RFC 3339 is returned unchanged.
 */
const LENIENT_DATETIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
export function normaliseDateTime(s: string): string {
  const m = LENIENT_DATETIME.exec(s);
  if (!m) return s;
  const [, date, hm, sec = ':00', off] = m;
  let offset = 'Z';
  if (off && off.length === 3) offset = `${off}:00`;
  else if (off && off.length === 5) offset = `${off.slice(0, 3)}:${off.slice(3)}`;
  else if (off && off.length === 6) offset = off;
  return `${date}T${hm}${sec}${offset}`;
}
/**
 * An instant: RFC 3339 with an offset. Requests may also send the forms of `normaliseDateTime`
 * (`2022-07-01T00:00:00`, `2022-07-01 00:00:00.123456+00:00`); every reader sees the normalised
 * RFC 3339 value.
 */
export const DateTime = z
  .string()
  .overwrite(normaliseDateTime)
  .check(z.iso.datetime({ offset: true }))
  .meta({ description: 'RFC 3339 date-time; requests may omit the offset (read as UTC) and use a space for T' });
/** The instants a request may name: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (a Python datetime's years). */
export const DATETIME_RANGE = { min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') } as const;
/** A date-time in a request: DateTime, its UTC instant within DATETIME_RANGE (422 outside). */
export const DateTimeInput = DateTime.refine(
  (s) => {
    const t = Date.parse(s);
    return t >= DATETIME_RANGE.min && t <= DATETIME_RANGE.max;
  },
  { message: 'outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z (UTC)' },
).meta({
  description: 'RFC 3339 date-time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z; may omit the offset (read as UTC) and use a space for T',
});
export const Url = z.string().min(1).max(2083);
/**
 * Integer time parameters have a documented range (422 outside it): every instant fits a JS Date
 * and a Python datetime. Unix seconds: 0 (1970-01-01T00:00:00Z) to 253402300799
 * (9999-12-31T23:59:59Z). Look-back spans: at most 1,000,000 hours (about 114 years) or
 * 36,525 days (100 years).
 */
export const TIME_LIMITS = { unixSecondsMax: 253_402_300_799, lookbackHoursMax: 1_000_000, lookbackDaysMax: 36_525 } as const;
/** Unix seconds (UTC). */
export const UnixSeconds = z
  .int()
  .min(0)
  .max(TIME_LIMITS.unixSecondsMax)
  .meta({
    description: `Unix time in seconds (UTC), 0 (1970-01-01T00:00:00Z) to ${TIME_LIMITS.unixSecondsMax} (9999-12-31T23:59:59Z)`,
  });
/** A look-back span in hours. */
export const LookbackHours = z
  .int()
  .min(0)
  .max(TIME_LIMITS.lookbackHoursMax)
  .meta({
    description: `Hours back from now, 0 to ${TIME_LIMITS.lookbackHoursMax}`,
  });
/** A look-back span in days. */
export const LookbackDays = z
  .int()
  .min(1)
  .max(TIME_LIMITS.lookbackDaysMax)
  .meta({
    description: `Days back from now, 1 to ${TIME_LIMITS.lookbackDaysMax}`,
  });
/** A record of the hosted API: extra fields are kept, never an error. */
export const record = z.looseObject;
export const FreeObject = z.record(z.string(), z.unknown());

/**
 * Limits of request input, far above what a real request needs; beyond them a 422 names the
 * field (the service also refuses bodies over 10 MiB with 413).
 * - maxDepth: objects and arrays nested in a JSON or form body (the body itself is level 1);
 * - maxStringChars: characters of any one string (or object key) anywhere in a body;
 * - maxFreeObjectBytes: JSON size of one free-form object (URL metadata and enrichments, graph
 *   documents and disambiguations, a chat message's function_call);
 * - alertTextChars: an alert's query and title; alertCronChars: its cron;
 * - alertPartBytes: JSON size of an alert's sources, of its triggers (webhook payload and headers
 *   included) and of its report: what is stored with the alert and sent back on every list page.
 */
export const INPUT_LIMITS = {
  maxDepth: 64,
  maxStringChars: 1_000_000,
  maxFreeObjectBytes: 1_048_576,
  alertTextChars: 10_000,
  alertCronChars: 256,
  alertPartBytes: 65_536,
} as const;

/**
 * Length of `v` as JSON text (strings counted without escapes), counted without recursion;
 * stops counting once past `cap`, so a hostile value costs no more than its first `cap` bytes.
 */
export function jsonSize(v: unknown, cap = Infinity): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0 && n <= cap) {
    const x = stack.pop();
    if (typeof x === 'string') n += x.length + 2;
    else if (typeof x === 'number' || typeof x === 'boolean') n += String(x).length;
    else if (x === null || x === undefined) n += 4;
    else if (Array.isArray(x)) {
      n += 1 + Math.max(x.length, 1);
      for (const e of x) stack.push(e);
    } else if (typeof x === 'object') {
      const entries = Object.entries(x as Record<string, unknown>);
      n += 1 + Math.max(entries.length, 1);
      for (const [k, e] of entries) {
        n += k.length + 3;
        stack.push(e);
      }
    }
  }
  return n;
}
/** A refinement: the value is at most `bytes` long as JSON. */
export const atMostJsonBytes = (bytes: number) => [(v: unknown) => jsonSize(v, bytes) <= bytes, { message: `larger than ${bytes} bytes as JSON` }] as const;
/** A free-form object in a request: at most INPUT_LIMITS.maxFreeObjectBytes as JSON. */
export const FreeObjectInput = FreeObject.refine(...atMostJsonBytes(INPUT_LIMITS.maxFreeObjectBytes)).meta({
  description: `free-form object, at most ${INPUT_LIMITS.maxFreeObjectBytes} bytes as JSON`,
});

/** A domain as users write it (`https://www.Example.com/path`) reduced to `example.com`. */
export function normaliseDomain(d: string): string {
  return d
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/.*$/, '');
}

export function normaliseList<T>(v: T | T[] | null | undefined): T[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v : [v];
}
