/**
 * When a source is polled next: an interval that follows how often it publishes, within bounds,
 * and never shorter than what the source itself asks for.
 *
 * - Rate: new items per day, a moving average over polls in which each poll's weight grows with
 *   the time it covers (1 - e^(-elapsed/1 day)); the first poll, which sees the feed's backlog,
 *   estimates it from the dates of its items instead (n items over their time span).
 * - Interval: the time in which one new item is expected (1 / rate), or, with no item in sight,
 *   the last interval times 1.5; a declared interval (the project file's `poll_interval`, `sources
 *   add --every`) replaces that estimate.
 * - Floor: the longest of the lower bound, the feed's `<ttl>` (minutes), its `sy:updatePeriod` /
 *   `sy:updateFrequency`, and the response's `Cache-Control: max-age`, each capped at the upper
 *   bound (a wrong hint cannot silence a source for days).
 * - Failures: the interval doubled per failure in a row (capped at the upper bound); a 429 or 503
 *   waits at least as long as its Retry-After says (capped at RETRY_AFTER_MAX_MS).
 */

export interface PollBounds {
  minMs: number;
  maxMs: number;
  /** the interval of a source whose rate is not known yet */
  initialMs: number;
}

export const POLL_BOUNDS: PollBounds = { minMs: 5 * 60_000, maxMs: 6 * 3_600_000, initialMs: 15 * 60_000 };
export const RETRY_AFTER_MAX_MS = 24 * 3_600_000;
const DAY = 86_400_000;

export interface IntervalHints {
  ttlMinutes?: number | null;
  updateMinutes?: number | null;
  maxAgeSeconds?: number | null;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** The floor the source's own hints set (ms), within the bounds. */
export function hintFloor(h: IntervalHints, b: PollBounds = POLL_BOUNDS): number {
  const asked = Math.max((h.ttlMinutes ?? 0) * 60_000, (h.updateMinutes ?? 0) * 60_000, (h.maxAgeSeconds ?? 0) * 1000);
  return clamp(asked, b.minMs, b.maxMs);
}

/** New items per day from the dates of a feed's items (first poll), or null with fewer than two dated items. */
export function rateFromDates(published: (string | null)[]): number | null {
  const t = published.map((p) => (p ? Date.parse(p) : NaN)).filter((x) => Number.isFinite(x));
  if (t.length < 2) return null;
  const span = Math.max(...t) - Math.min(...t);
  // items all dated within a minute: a burst, not a rate
  return span < 60_000 ? null : ((t.length - 1) * DAY) / span;
}

/** The moving average of new items per day after a poll that saw `newItems` over `elapsedMs`. */
export function nextRate(previous: number | null, newItems: number, elapsedMs: number): number {
  const observed = (newItems * DAY) / Math.max(elapsedMs, 60_000);
  if (previous === null) return observed;
  const w = 1 - Math.exp(-Math.max(elapsedMs, 0) / DAY);
  return previous + w * (observed - previous);
}

export interface IntervalInput {
  /** new items per day, null when not known */
  rate: number | null;
  previousMs: number | null;
  /** whether the poll saw new items */
  sawNew: boolean;
  /** a declared interval replaces the estimate */
  declaredMs?: number | null;
  hints?: IntervalHints;
  bounds?: PollBounds;
}

/** The interval to the next poll after a successful one (200 or 304). */
export function nextInterval(i: IntervalInput): number {
  const b = i.bounds ?? POLL_BOUNDS;
  const floor = hintFloor(i.hints ?? {}, b);
  let ms: number;
  if (i.declaredMs) ms = i.declaredMs;
  else if (i.rate && i.rate > 0 && (i.sawNew || i.previousMs === null)) ms = DAY / i.rate;
  else if (i.previousMs !== null) ms = i.previousMs * 1.5;
  else ms = b.initialMs;
  return Math.round(clamp(ms, floor, b.maxMs));
}

/** The interval after `failures` failed polls in a row (1 for the first). */
export function failureInterval(intervalMs: number, failures: number, b: PollBounds = POLL_BOUNDS): number {
  return Math.round(clamp(intervalMs * 2 ** Math.max(0, failures - 1), b.minMs, Math.max(b.maxMs, intervalMs)));
}

/** Milliseconds a Retry-After header asks for (seconds, or an HTTP date), capped; null when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | null {
  const v = (header ?? '').trim();
  if (!v) return null;
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) ? clamp(ms, 0, RETRY_AFTER_MAX_MS) : null;
}

/** `max-age` (or `s-maxage`) of a Cache-Control header, seconds; null when absent or `no-cache`/`no-store`. */
export function maxAgeSeconds(cacheControl: string | null | undefined): number | null {
  const v = (cacheControl ?? '').toLowerCase();
  if (/\bno-(cache|store)\b/.test(v)) return null;
  const m = /\b(?:s-maxage|max-age)\s*=\s*"?(\d+)/.exec(v);
  return m ? Number(m[1]) : null;
}
