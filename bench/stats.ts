/** The statistics every bench reports its timings with. */

/** The p-th percentile of `xs` (nearest rank, the lower one): NaN when there is nothing to rank. */
export function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  return [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
}

/** `x` rounded to `digits` decimals, as a number (for the JSON line). */
export const round = (x: number, digits: number): number => Number(x.toFixed(digits));

/** p50 and p95 of `xs`, rounded to `digits` decimals. */
export const p50p95 = (xs: number[], digits: number): { p50: number; p95: number } => ({ p50: round(pct(xs, 50), digits), p95: round(pct(xs, 95), digits) });
