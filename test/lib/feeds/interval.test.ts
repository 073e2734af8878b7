/** lib/feeds/interval.ts: the poll interval follows the publishing rate within bounds and the source's own hints. */
import { describe, expect, it } from 'vitest';
import { POLL_BOUNDS, failureInterval, maxAgeSeconds, nextInterval, nextRate, rateFromDates, retryAfterMs } from '../../../lib/feeds/interval.js';

const MIN = 60_000;
const DAY = 86_400_000;

describe('the adaptive poll interval', () => {
  it('polls a source that publishes 96 items a day every 15 minutes, and one that publishes hourly every hour', () => {
    expect(nextInterval({ rate: 96, previousMs: 30 * MIN, sawNew: true })).toBe(15 * MIN);
    expect(nextInterval({ rate: 24, previousMs: 30 * MIN, sawNew: true })).toBe(60 * MIN);
  });

  it('stays within the bounds: 5 minutes for a flood, 6 hours for a source that went quiet', () => {
    expect(nextInterval({ rate: 10_000, previousMs: 30 * MIN, sawNew: true })).toBe(POLL_BOUNDS.minMs);
    let ms: number | null = 15 * MIN;
    for (let i = 0; i < 20; i++) ms = nextInterval({ rate: 0, previousMs: ms, sawNew: false });
    expect(ms).toBe(POLL_BOUNDS.maxMs);
  });

  it('backs off by half again after each poll without new items', () => {
    expect(nextInterval({ rate: 10, previousMs: 20 * MIN, sawNew: false })).toBe(30 * MIN);
  });

  it('never polls more often than the ttl, sy:updatePeriod or Cache-Control max-age ask, each capped at the upper bound', () => {
    expect(nextInterval({ rate: 1000, previousMs: 10 * MIN, sawNew: true, hints: { ttlMinutes: 30 } })).toBe(30 * MIN);
    expect(nextInterval({ rate: 1000, previousMs: 10 * MIN, sawNew: true, hints: { updateMinutes: 60 } })).toBe(60 * MIN);
    expect(nextInterval({ rate: 1000, previousMs: 10 * MIN, sawNew: true, hints: { maxAgeSeconds: 1200 } })).toBe(20 * MIN);
    expect(nextInterval({ rate: 1000, previousMs: 10 * MIN, sawNew: true, hints: { ttlMinutes: 7 * 24 * 60 } })).toBe(POLL_BOUNDS.maxMs);
  });

  it('takes a declared interval instead of the estimate, still above the hints', () => {
    expect(nextInterval({ rate: 1000, previousMs: 10 * MIN, sawNew: true, declaredMs: 45 * MIN })).toBe(45 * MIN);
    expect(nextInterval({ rate: 1, previousMs: 10 * MIN, sawNew: true, declaredMs: 10 * MIN, hints: { ttlMinutes: 60 } })).toBe(60 * MIN);
  });

  it("starts from the dates of the first poll's items, else from the initial interval", () => {
    const dates = Array.from({ length: 49 }, (_, i) => new Date(Date.UTC(2018, 0, 31) + i * 30 * MIN).toISOString());
    expect(rateFromDates(dates)).toBeCloseTo(48, 5);
    expect(nextInterval({ rate: rateFromDates(dates), previousMs: null, sawNew: true })).toBe(30 * MIN);
    expect(rateFromDates([null, null])).toBeNull();
    expect(nextInterval({ rate: null, previousMs: null, sawNew: true })).toBe(POLL_BOUNDS.initialMs);
  });

  it('averages the rate with weights that grow with the time a poll covers', () => {
    // a poll a day later that saw 10 items moves a rate of 100/day most of the way
    const r = nextRate(100, 10, DAY);
    expect(r).toBeGreaterThan(10);
    expect(r).toBeLessThan(50);
    // five minutes that saw one item barely move it
    expect(nextRate(100, 1, 5 * MIN)).toBeGreaterThan(99);
  });

  it('doubles the interval per failure in a row, up to the upper bound', () => {
    expect(failureInterval(15 * MIN, 1)).toBe(15 * MIN);
    expect(failureInterval(15 * MIN, 3)).toBe(60 * MIN);
    expect(failureInterval(15 * MIN, 30)).toBe(POLL_BOUNDS.maxMs);
  });

  it('reads Retry-After in seconds and as a date, and Cache-Control max-age', () => {
    const now = Date.parse('2025-06-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 01 Jun 2025 00:10:00 GMT', now)).toBe(600_000);
    expect(retryAfterMs('', now)).toBeNull();
    expect(retryAfterMs('999999999', now)).toBe(DAY);
    expect(maxAgeSeconds('public, max-age=300')).toBe(300);
    expect(maxAgeSeconds('no-cache, max-age=300')).toBeNull();
    expect(maxAgeSeconds(null)).toBeNull();
  });
});
