/** Rate and concurrency limits of the interface, shared by the service and the client. */
export interface LimitSpec {
  /** requests per second (token refill rate) */
  rate: number;
  /** bucket capacity (burst) */
  burst: number;
  /** requests in flight at once */
  concurrency: number;
}
import type { LimitGroup } from './routes.js';
export type LimitsConfig = Record<LimitGroup, LimitSpec>;

/**
 * Defaults. Distribution is the interface's 0.2 requests/s, burst 5, 2 concurrent; the news scope
 * is "more generous" (its value is not shown: we use 10/s, burst 20, 10 concurrent); the others
 * follow the Analyst plan of the rate-limit page (../shared/spec/asknews-facts.md §13) or less.
 */
export const DEFAULT_LIMITS: LimitsConfig = {
  news: { rate: 10, burst: 20, concurrency: 10 },
  stories: { rate: 5, burst: 10, concurrency: 5 },
  chat: { rate: 2, burst: 5, concurrency: 3 },
  deepnews: { rate: 1, burst: 3, concurrency: 2 },
  distribution: { rate: 0.2, burst: 5, concurrency: 2 },
  profile: { rate: 5, burst: 10, concurrency: 5 },
};

/** `distribution=20:5:2,news=50:100:20` (GROUP=RATE:BURST:CONCURRENCY). */
export function parseLimits(text: string | undefined, base: LimitsConfig = DEFAULT_LIMITS): LimitsConfig {
  const out: LimitsConfig = structuredClone(base);
  if (!text) return out;
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+)=([\d.]+):(\d+):(\d+)$/.exec(part);
    if (!m || !(m[1]! in base) || Number(m[2]) <= 0 || Number(m[3]) < 1 || Number(m[4]) < 1) {
      throw new Error(
        `bad limit "${part}": expected GROUP=RATE:BURST:CONCURRENCY (rate > 0, burst and concurrency >= 1) with GROUP one of ${Object.keys(base).join(', ')}`,
      );
    }
    out[m[1] as LimitGroup] = { rate: Number(m[2]), burst: Number(m[3]), concurrency: Number(m[4]) };
  }
  return out;
}
