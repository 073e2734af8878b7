/**
 * Time windows from natural language, relative to the service's clock (UTC days, weeks from
 * Monday). Our own rules take the relative forms; chrono-node reads the dates themselves.
 *
 * - "last/past/previous N hours|days|weeks|months|years", "last week", "past month": a rolling
 *   window ending now ("last week" = the 7 days before now);
 * - "last year" / "previous year" without a number: the previous calendar year;
 * - "N days ago": that day (that hour, week, month, year for the other units);
 * - "today", "yesterday", "this week|month|year": calendar periods (today and "this ..." end now);
 * - "since X" (from X on), "after X" (from the end of X), "before X" (until X starts),
 *   "until X" (until X ends), "between X and Y" / "from X to Y" (X's start to Y's end);
 * - a date on its own ("in 2022", "in May", "on March 3", "2022-06-01"): that year, month or day.
 *   A month or day without a year is the latest one not after now.
 */
import * as chrono from 'chrono-node';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export interface TimeWindow {
  /** epoch ms, inclusive; null: open */
  from: number | null;
  /** epoch ms, exclusive; null: up to now */
  to: number | null;
  /** the words that said it (for the title) */
  text: string;
}
export interface TimeMatch {
  window: TimeWindow | null;
  /** [start, end) character spans of the description the window was read from */
  spans: [number, number][];
}

type Unit = 'minute' | 'hour' | 'day' | 'week' | 'fortnight' | 'month' | 'quarter' | 'year';
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  few: 3,
  several: 5,
  'couple of': 2,
  couple: 2,
};
const NUM = `(\\d{1,4}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|few|several|couple of|couple)`;
const UNIT = `(minute|hour|day|week|fortnight|month|quarter|year)s?`;

function num(s: string | undefined): number {
  if (!s) return 1;
  return /^\d+$/.test(s) ? Number(s) : (NUMBER_WORDS[s] ?? 1);
}

const dayStart = (t: number) => Math.floor(t / DAY) * DAY;
function monthStart(t: number, add = 0): number {
  const d = new Date(t);
  const x = new Date(0);
  x.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + add, 1);
  return x.getTime();
}
function yearStart(y: number): number {
  const x = new Date(0);
  x.setUTCFullYear(y, 0, 1);
  return x.getTime();
}
/** Monday 00:00 UTC of the week holding t. */
const weekStart = (t: number) => dayStart(t) - ((new Date(t).getUTCDay() + 6) % 7) * DAY;

/** now minus n units (months and years on the calendar). */
function back(now: number, n: number, unit: Unit): number {
  switch (unit) {
    case 'minute':
      return now - n * MIN;
    case 'hour':
      return now - n * HOUR;
    case 'day':
      return now - n * DAY;
    case 'week':
      return now - n * 7 * DAY;
    case 'fortnight':
      return now - n * 14 * DAY;
    case 'month':
    case 'quarter':
    case 'year': {
      const months = unit === 'month' ? n : unit === 'quarter' ? 3 * n : 12 * n;
      const d = new Date(now);
      const x = new Date(now);
      x.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() - months, 1);
      // the same day of month, or the month's last day
      const last = new Date(monthStart(x.getTime(), 1) - DAY).getUTCDate();
      x.setUTCDate(Math.min(d.getUTCDate(), last));
      return x.getTime();
    }
  }
}

/** The calendar period of `unit` holding t: [start, end). */
function period(t: number, unit: Unit): [number, number] {
  switch (unit) {
    case 'minute':
      return [Math.floor(t / MIN) * MIN, Math.floor(t / MIN) * MIN + MIN];
    case 'hour':
      return [Math.floor(t / HOUR) * HOUR, Math.floor(t / HOUR) * HOUR + HOUR];
    case 'day':
      return [dayStart(t), dayStart(t) + DAY];
    case 'week':
    case 'fortnight':
      return [weekStart(t), weekStart(t) + 7 * DAY];
    case 'month':
    case 'quarter':
      return [monthStart(t), monthStart(t, 1)];
    case 'year': {
      const y = new Date(t).getUTCFullYear();
      return [yearStart(y), yearStart(y + 1)];
    }
  }
}

interface Found {
  start: number;
  end: number;
  window: TimeWindow;
}

/** Relative forms (rules in the header), longest first; each returns its window. */
const RELATIVE: { re: RegExp; make: (m: RegExpExecArray, now: number) => Omit<TimeWindow, 'text'> }[] = [
  {
    // "in the last 3 days", "past week", "over the previous two months"
    re: new RegExp(`\\b(?:(?:in|over|during|within|for|from) )?(the )?(?:last|past|previous|recent|prior) (?:${NUM} )?${UNIT}\\b`, 'gi'),
    make: (m, now) => {
      const [, the, n, unit] = m;
      const u = unit!.toLowerCase() as Unit;
      if (!n && !the && u === 'year' && /\b(last|previous|prior) year/i.test(m[0])) {
        const y = new Date(now).getUTCFullYear() - 1;
        return { from: yearStart(y), to: yearStart(y + 1) };
      }
      return { from: back(now, num(n?.toLowerCase()), u), to: null };
    },
  },
  {
    re: new RegExp(`\\b${NUM} ${UNIT} ago\\b`, 'gi'),
    make: (m, now) => {
      const u = m[2]!.toLowerCase() as Unit;
      const [from, to] = period(back(now, num(m[1]!.toLowerCase()), u), u);
      return { from, to };
    },
  },
  { re: /\b(?:so far )?today\b|\bthis (?:morning|afternoon|evening)\b|\btonight\b/gi, make: (_m, now) => ({ from: dayStart(now), to: null }) },
  { re: /\byesterday\b/gi, make: (_m, now) => ({ from: dayStart(now) - DAY, to: dayStart(now) }) },
  {
    re: /\b(?:so far )?this (week|month|year)\b(?: so far)?/gi,
    make: (m, now) => ({ from: period(now, m[1]!.toLowerCase() as Unit)[0], to: null }),
  },
  { re: /\b(?:the )?last (?:24|twenty-four) hours\b/gi, make: (_m, now) => ({ from: now - DAY, to: null }) },
];

const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
/** A chrono result we trust: it names a month, a year or a numeric date (not "may" the verb, not "10"). */
const DATEISH = new RegExp(
  `\\b(?:${MONTHS})\\b|\\b(?:19|20)\\d{2}\\b|\\d{1,4}[-/.]\\d{1,2}(?:[-/.]\\d{1,4})?|\\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b`,
  'i',
);
const BARE_MONTH = new RegExp(`^(?:${MONTHS})$`, 'i');
const PREP_BEFORE = /\b(since|after|from|before|until|till|through|thru|between|and|to|in|on|of|during|for|by)\s*$/i;
const YEAR_RE = /\b((?:19|20)\d{2})s?\b/g;

interface Point {
  start: number;
  end: number;
  from: number;
  to: number;
}

/** Characters read around each date-ish word, and the most such stretches read. */
const CONTEXT = 40;
const MAX_STRETCHES = 6;
/**
 * chrono-node over the stretches of text around date-ish words only (its cost grows with the
 * text, and text without a month, year or numeric date names no date), indices in `text`.
 */
interface DateMention {
  index: number;
  text: string;
  start: chrono.ParsedComponents;
  end?: chrono.ParsedComponents | null;
}
function chronoResults(text: string, ref: { instant: Date; timezone: string }): DateMention[] {
  const stretches: [number, number][] = [];
  const re = new RegExp(DATEISH.source, 'gi');
  for (const m of text.matchAll(re)) {
    const s = Math.max(0, m.index! - CONTEXT);
    const e = Math.min(text.length, m.index! + m[0].length + CONTEXT);
    const last = stretches[stretches.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else if (stretches.length < MAX_STRETCHES) stretches.push([s, e]);
    else break;
  }
  const out: DateMention[] = [];
  for (const [s, e] of stretches) {
    // widen to word boundaries so a stretch does not cut a word in two
    let a = s;
    while (a > 0 && /\S/.test(text[a - 1]!)) a--;
    let b = e;
    while (b < text.length && /\S/.test(text[b]!)) b++;
    for (const r of chrono.parse(text.slice(a, b).slice(0, 4 * CONTEXT + 40), ref, { forwardDate: false })) {
      if (out.some((o) => o.index === r.index + a)) continue;
      out.push({ index: r.index + a, text: r.text, start: r.start, end: r.end });
    }
  }
  return out;
}

/** Dates chrono finds plus bare years, as calendar periods (year, month or day). */
function datePoints(text: string, now: number): Point[] {
  const points: Point[] = [];
  const ref = { instant: new Date(now), timezone: 'UTC' };
  for (const r of chronoResults(text, ref)) {
    const t = r.text;
    if (!DATEISH.test(t)) continue;
    const before = text.slice(0, r.index);
    if (BARE_MONTH.test(t.trim()) && !PREP_BEFORE.test(before)) continue;
    if (/^may$/i.test(t.trim()) && !/\b(in|since|during|of|from|until|before|after|early|late|mid)\s*$/i.test(before)) continue;
    const add = (c: chrono.ParsedComponents, s: number, e: number) => {
      const y = c.get('year');
      const mo = c.get('month');
      const d = c.get('day');
      if (y == null || mo == null) return;
      let from: number;
      let to: number;
      const dayKnown = c.isCertain('day') || c.isCertain('weekday');
      if (dayKnown && d != null) {
        from = Date.UTC(2000, mo - 1, d);
        const x = new Date(from);
        x.setUTCFullYear(y, mo - 1, d);
        from = x.getTime();
        if (!c.isCertain('year') && from > now) from = new Date(from).setUTCFullYear(y - 1);
        if (c.isCertain('weekday') && !c.isCertain('day') && from > now) from -= 7 * DAY;
        to = from + DAY;
      } else if (c.isCertain('month')) {
        const x = new Date(0);
        x.setUTCFullYear(y, mo - 1, 1);
        from = x.getTime();
        if (!c.isCertain('year') && from > now) from = new Date(from).setUTCFullYear(y - 1);
        to = monthStart(from, 1);
      } else if (c.isCertain('year')) {
        from = yearStart(y);
        to = yearStart(y + 1);
      } else return;
      points.push({ start: s, end: e, from, to });
    };
    if (r.end) {
      // "2021-05-01 to 2021-06-01": one result with two ends
      const sep = /\s+(?:to|until|till|through|-|–)\s+/i.exec(t);
      const cut = sep ? r.index + sep.index : r.index + t.length;
      add(r.start, r.index, cut);
      add(r.end, sep ? cut + sep[0].length : cut, r.index + t.length);
    } else add(r.start, r.index, r.index + t.length);
  }
  // bare years ("in 2022"); the 1990s are a decade
  for (const m of text.matchAll(YEAR_RE)) {
    const s = m.index!;
    if (points.some((p) => s >= p.start && s < p.end)) continue;
    const y = Number(m[1]);
    const decade = m[0].endsWith('s');
    points.push({ start: s, end: s + m[0].length, from: yearStart(y), to: yearStart(y + (decade ? 10 : 1)) });
  }
  return points.sort((a, b) => a.start - b.start);
}

/** Read the time window of a description; `spans` are the characters it used. */
export function parseTimeWindow(text: string, now: number): TimeMatch {
  const spans: [number, number][] = [];
  const words: string[] = [];
  let from: number | null = null;
  let to: number | null = null;
  let set = false;
  const found: Found[] = [];
  let rest = text;
  for (const rule of RELATIVE) {
    rule.re.lastIndex = 0;
    for (const m of rest.matchAll(rule.re)) {
      const w = rule.make(m, now);
      found.push({ start: m.index!, end: m.index! + m[0].length, window: { ...w, text: m[0].trim() } });
      rest = rest.slice(0, m.index!) + ' '.repeat(m[0].length) + rest.slice(m.index! + m[0].length);
    }
  }
  if (found.length) {
    const f = found.sort((a, b) => a.start - b.start)[0]!;
    ({ from, to } = f.window);
    set = true;
    for (const x of found) {
      spans.push([x.start, x.end]);
      words.push(x.window.text);
    }
  }
  const points = datePoints(rest, now);
  const used = new Set<Point>();
  const prepOf = (p: Point) => {
    const m = /\b(since|after|from|starting|before|until|till|through|thru|up to|between|and|to|in|on|of|during|for|by)\s+(?:the\s+)?$/i.exec(
      rest.slice(0, p.start),
    );
    return m ? { word: m[1]!.toLowerCase(), at: m.index } : null;
  };
  for (let i = 0; i < points.length && !set; i++) {
    const p = points[i]!;
    const q = points[i + 1];
    const prep = prepOf(p);
    const qPrep = q ? prepOf(q) : null;
    const startAt = prep && !['and', 'to'].includes(prep.word) ? prep.at : p.start;
    // "between X and Y", "from X to Y", "X to Y", "X - Y"
    const joined =
      q &&
      qPrep &&
      (qPrep.word === 'and' || qPrep.word === 'to' || qPrep.word === 'through' || qPrep.word === 'until' || qPrep.word === 'till') &&
      qPrep.at >= p.end - 1 &&
      rest.slice(p.end, qPrep.at).trim() === '';
    const dash = q && /^\s*(?:-|–)\s*$/.test(rest.slice(p.end, q.start));
    if (q && (joined || dash) && (!prep || ['between', 'from', 'in', 'during', 'since', 'starting'].includes(prep.word) || !prep)) {
      from = p.from;
      to = Math.max(q.to, p.to);
      spans.push([startAt, q.end]);
      used.add(p).add(q);
      set = true;
      break;
    }
    const w = prep?.word;
    if (w === 'since' || w === 'from' || w === 'starting') [from, to] = [p.from, null];
    else if (w === 'after') [from, to] = [p.to, null];
    else if (w === 'before' || w === 'by') [from, to] = [null, p.from];
    else if (w === 'until' || w === 'till' || w === 'through' || w === 'thru' || w === 'up to') [from, to] = [null, p.to];
    else [from, to] = [p.from, p.to];
    spans.push([startAt, p.end]);
    used.add(p);
    set = true;
  }
  if (!set) return { window: null, spans: [] };
  for (const [s, e] of spans) if (!words.some((w) => text.slice(s, e).includes(w))) words.push(text.slice(s, e).trim());
  // a window that ends after now ends now
  if (to !== null && to > now) to = null;
  return { window: { from, to, text: words.join(', ') }, spans };
}
