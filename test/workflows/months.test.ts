import { describe, expect, it } from 'vitest';
import { apiRange, splitMonths, WindowError } from '../../workflows/months.js';
import { sameUtcMonth } from '../../spec/index.js';

const t = (s: string) => Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
const iso = (ws: { start: number; end: number }[]) => ws.map((w) => [new Date(w.start).toISOString().slice(0, 19), new Date(w.end).toISOString().slice(0, 19)]);

describe('month splitter', () => {
  it('splits December to January across the year', () => {
    expect(iso(splitMonths(t('2025-12-20'), t('2026-01-10')))).toEqual([
      ['2025-12-20T00:00:00', '2026-01-01T00:00:00'],
      ['2026-01-01T00:00:00', '2026-01-10T00:00:00'],
    ]);
  });
  it('keeps 29 February of a leap year inside February', () => {
    const ws = splitMonths(t('2028-02-28'), t('2028-03-02'));
    expect(iso(ws)).toEqual([
      ['2028-02-28T00:00:00', '2028-03-01T00:00:00'],
      ['2028-03-01T00:00:00', '2028-03-02T00:00:00'],
    ]);
    const feb = apiRange(ws[0]!);
    expect(new Date(feb.end_date * 1000).toISOString()).toBe('2028-02-29T23:59:59.000Z');
    expect(sameUtcMonth(feb.start_date, feb.end_date)).toBe(true);
  });
  it('gives one window for a one-day range', () => {
    expect(iso(splitMonths(t('2026-03-15'), t('2026-03-16')))).toEqual([['2026-03-15T00:00:00', '2026-03-16T00:00:00']]);
  });
  it('ends cleanly on a month boundary (no empty window)', () => {
    expect(iso(splitMonths(t('2026-01-15'), t('2026-03-01')))).toEqual([
      ['2026-01-15T00:00:00', '2026-02-01T00:00:00'],
      ['2026-02-01T00:00:00', '2026-03-01T00:00:00'],
    ]);
  });
  it('covers the range exactly once, each window within one UTC month', () => {
    const from = t('2026-01-15');
    const to = t('2026-06-03');
    const ws = splitMonths(from, to);
    expect(ws[0]!.start).toBe(from);
    expect(ws[ws.length - 1]!.end).toBe(to);
    for (let i = 1; i < ws.length; i++) expect(ws[i]!.start).toBe(ws[i - 1]!.end);
    for (const w of ws) {
      const r = apiRange(w);
      expect(sameUtcMonth(r.start_date, r.end_date)).toBe(true);
    }
    expect(ws).toHaveLength(6);
  });
  it('refuses from after to with a clear error; an empty range has no window', () => {
    expect(() => splitMonths(t('2026-05-01'), t('2026-04-01'))).toThrow(WindowError);
    expect(() => splitMonths(t('2026-05-01'), t('2026-04-01'))).toThrow(/is after to/);
    expect(splitMonths(t('2026-05-01'), t('2026-05-01'))).toEqual([]);
  });
});
