/**
 * Half-open UTC month windows [start, next month start), clamped to [from, to). Pure: used by
 * the distributionPull workflow (replay-safe) and its tests.
 */
export interface MonthWindow {
  /** epoch ms, inclusive */
  start: number;
  /** epoch ms, exclusive */
  end: number;
}

export class WindowError extends Error {}

export function splitMonths(from: number, to: number): MonthWindow[] {
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw new WindowError('from and to must be valid dates');
  if (from > to) throw new WindowError(`from (${new Date(from).toISOString()}) is after to (${new Date(to).toISOString()})`);
  const out: MonthWindow[] = [];
  let cur = from;
  while (cur < to) {
    const d = new Date(cur);
    const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    const end = Math.min(next, to);
    out.push({ start: cur, end });
    cur = end;
  }
  return out;
}

/** The API takes inclusive Unix seconds within one month: [start, end - 1 s]. */
export function apiRange(w: MonthWindow): { start_date: number; end_date: number } {
  return { start_date: Math.floor(w.start / 1000), end_date: Math.ceil(w.end / 1000) - 1 };
}
