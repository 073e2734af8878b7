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
export const Url = z.string().min(1).max(2083);
/**
 * Integer time parameters have a documented range (422 outside it): every instant fits a JS Date
 * and a Python datetime. Unix seconds: 0 (1970-01-01T00:00:00Z) to 253402300799
 * (9999-12-31T23:59:59Z). Look-back spans: at most 1,000,000 hours (about 114 years) or
 * 36,525 days (100 years).
 */
export const TIME_LIMITS = { unixSecondsMax: 253_402_300_799, lookbackHoursMax: 1_000_000, lookbackDaysMax: 36_525 } as const;
/** Unix seconds (UTC). */
export const UnixSeconds = z.int().min(0).max(TIME_LIMITS.unixSecondsMax).meta({
  description: `Unix time in seconds (UTC), 0 (1970-01-01T00:00:00Z) to ${TIME_LIMITS.unixSecondsMax} (9999-12-31T23:59:59Z)`,
});
/** A look-back span in hours. */
export const LookbackHours = z.int().min(0).max(TIME_LIMITS.lookbackHoursMax).meta({
  description: `Hours back from now, 0 to ${TIME_LIMITS.lookbackHoursMax}`,
});
/** A look-back span in days. */
export const LookbackDays = z.int().min(1).max(TIME_LIMITS.lookbackDaysMax).meta({
  description: `Days back from now, 1 to ${TIME_LIMITS.lookbackDaysMax}`,
});
/** A record of the hosted API: extra fields are kept, never an error. */
export const record = z.looseObject;
export const FreeObject = z.record(z.string(), z.unknown());

export function normaliseList<T>(v: T | T[] | null | undefined): T[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v : [v];
}
