/** lib/feeds/dates.ts: the date forms of the shared feeds, read as UTC whatever the machine's zone. */
import { describe, expect, it } from 'vitest';
import { parseFeedDate } from '../../../lib/feeds/dates.js';

const NOW = Date.parse('2025-06-01T00:00:00Z');

describe('parseFeedDate', () => {
  it('reads RFC 822, RFC 3339 and the variants real feeds write', () => {
    const cases: [string, string][] = [
      ['Wed, 31 Jan 2018 07:26:05 GMT', '2018-01-31T07:26:05.000Z'],
      ['Wed, 03 Jan 2018 13:47:00 GMT\r\n      ', '2018-01-03T13:47:00.000Z'],
      ['Mon, 09 Jan 2017 15:00:51 EST', '2017-01-09T20:00:51.000Z'],
      ['Tue, 15 Nov 2022 20:15:04 Z', '2022-11-15T20:15:04.000Z'],
      ['Seg, 24 Set 2018 19:42:40 -0300', '2018-09-24T22:42:40.000Z'],
      ['mer, 16 nov 2022 08:54:05 +0100', '2022-11-16T07:54:05.000Z'],
      ['Sat, Dec 16 2023 02:02:33 PM', '2023-12-16T14:02:33.000Z'],
      ['2020/1/10 14:33:00', '2020-01-10T14:33:00.000Z'],
      ['2017-11-08T18:15:58-05:00', '2017-11-08T23:15:58.000Z'],
      ['2017-01-09T15:00:51', '2017-01-09T15:00:51.000Z'],
      ['2020-05-11', '2020-05-11T00:00:00.000Z'],
      ['Mo, 2. Okt 2017 10:00:00 +0200', '2017-10-02T08:00:00.000Z'],
    ];
    for (const [raw, iso] of cases) expect(parseFeedDate(raw, NOW), raw).toBe(iso);
  });

  it('reads a date without a zone as UTC, not as the machine zone', () => {
    const tz = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles';
    try {
      expect(parseFeedDate('2020/1/10 14:33:00', NOW)).toBe('2020-01-10T14:33:00.000Z');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('refuses what is no date, and dates before 1990 or more than a day ahead', () => {
    for (const raw of ['', 'Item 5', 'soon', '   ', 'Thu, 01 Jan 1970 00:00:00 GMT', '2025-06-03T00:00:00Z']) expect(parseFeedDate(raw, NOW), raw).toBeNull();
    expect(parseFeedDate(undefined, NOW)).toBeNull();
  });
});
