/**
 * The dates feeds write, read as UTC instants. Feeds are meant to use RFC 822 (RSS 2.0) or
 * RFC 3339 (Atom, JSON Feed, sitemaps, dc:date); the shared feeds show what they use instead
 * (`../shared/data/feeds/README.md`): Portuguese and Italian day and month names
 * ('Seg, 24 Set 2018 19:42:40 -0300', 'mer, 16 nov 2022'), a bare 'Z' zone, US order with AM/PM
 * ('Sat, Dec 16 2023 02:02:33 PM'), '2020/1/10 14:33:00', zone names ('EST').
 *
 * A date without a zone is UTC (never the machine's zone). A text without a four-digit year is
 * not a date ('Item 5' would otherwise be read as 2001). A date before 1990 or more than a day
 * ahead of `now` is kept out (null): a feed's clock is wrong more often than the news is old.
 */

/** Month names of the languages the feeds use, to their English abbreviation (lower case, accents kept). */
const MONTHS: Record<string, string> = {
  // Portuguese
  fev: 'feb',
  abr: 'apr',
  mai: 'may',
  ago: 'aug',
  set: 'sep',
  out: 'oct',
  dez: 'dec',
  // Spanish
  ene: 'jan',
  dic: 'dec',
  // Italian
  gen: 'jan',
  mag: 'may',
  giu: 'jun',
  lug: 'jul',
  ott: 'oct',
  // French
  janv: 'jan',
  févr: 'feb',
  fevr: 'feb',
  mars: 'mar',
  avr: 'apr',
  juin: 'jun',
  juil: 'jul',
  août: 'aug',
  aout: 'aug',
  sept: 'sep',
  déc: 'dec',
  // German
  mär: 'mar',
  mrz: 'mar',
  okt: 'oct',
};

const ZONE = /(?:[+-]\d{2}:?\d{2}|\bZ|\b(?:GMT|UTC?|[ECMP][SD]T))\s*$/i;
const EARLIEST = Date.UTC(1990, 0, 1);

/** An ISO time (UTC, milliseconds) from a feed's date text, or null. */
export function parseFeedDate(raw: unknown, now: number = Date.now()): string | null {
  if (raw instanceof Date) return inRange(raw.getTime(), now);
  if (typeof raw !== 'string') return null;
  let s = raw.replace(/\s+/g, ' ').trim();
  if (!s || !/\d{4}/.test(s)) return null;
  // RFC 3339 / ISO 8601: a time without an offset is UTC
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) {
    if (/T|\d \d/.test(s) && !/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(s)) s = `${s.replace(' ', 'T')}Z`;
    return inRange(Date.parse(s), now);
  }
  // RFC 822 and its relatives: the weekday dropped, month names in English, a zone added when none
  s = s.replace(/^[^\d\s,]+\.?,?\s+(?=\d|[^\d\s]+\s+\d)/u, '');
  s = s.replace(/\p{L}+\.?/gu, (w) => {
    const k = w.replace(/\.$/, '').toLowerCase();
    return MONTHS[k] ?? (k.length > 3 && MONTHS[k.slice(0, 3)] ? MONTHS[k.slice(0, 3)]! : w);
  });
  if (!ZONE.test(s)) s = `${s} +0000`;
  // V8 reads a bare 'Z' after the time; '+0000' after an AM/PM marker
  return inRange(Date.parse(s), now);
}

function inRange(t: number, now: number): string | null {
  if (!Number.isFinite(t) || t < EARLIEST || t > now + 86_400_000) return null;
  return new Date(t).toISOString();
}
