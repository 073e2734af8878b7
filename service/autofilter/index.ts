/**
 * Autofilter: a description of wanted news -> search filters (GET /v1/chat/autofilter).
 *
 * Rule-based and deterministic, no model call. The description is read in passes; each pass
 * masks the words it used, so one phrase sets one filter:
 *  1. time window (./time.ts) -> start_timestamp / end_timestamp on pub_date, historical;
 *  2. result count ("top 20 articles") -> n_articles;
 *  3. domains written out ("nytimes.com") and publishers by name ("Reuters") -> domain_url,
 *     after "not / except / excluding / without ..." -> bad_domain_url; "about CNN" is a subject;
 *  4. languages ("in Spanish", "French-language") -> languages;
 *  5. publisher places: "from <country|continent>", "<demonym|country|continent> media|outlets|
 *     sources|press ...", "published in <country>", "<country>-based" -> countries / continents
 *     (publisher country, as on search); after an exclusion cue -> countries_blacklist;
 *  6. sentiment, reporting voice and provocative cues (./lexicon.ts);
 *  7. categories by their words; the word leaves the query only when it reads as a section
 *     ("sports news", "tech from Asia"), so "climate change" keeps its words;
 *  8. people, organizations and places of what is left, read by the same entity extractor as
 *     the articles (so the keys match) -> entity_guarantee (AND for two or more unless the
 *     description says "or"); after an exclusion cue -> reverse_entity_guarantee;
 *  9. the rest, without filler words ("news", "show me", ...) -> query; nl for questions and
 *     phrases of five words or more, else kw.
 * Every emitted set is parsed with the search parameter schema; a field it refuses is dropped.
 */
import { AUTOFILTER_QUERY_MAX, SEARCH_LIMITS, SearchParams, type SearchParams as SearchParamsIn } from '../../spec/index.js';
import { extractEntities } from '../enrich/entities.js';
import { gazetteer } from '../enrich/geo.js';
import { LEXICON_TYPES } from '../enrich/lexicons.js';
import { parseTimeWindow, type TimeWindow } from './time.js';
import {
  CATEGORY_WORDS,
  CONTINENT_WORDS,
  SECTION_WORDS,
  LANGUAGE_NAMES,
  PROVOCATIVE_WORDS,
  PUBLISHERS,
  PUBLISHER_CASED,
  SENTIMENT_WORDS,
  SOURCE_NOUNS,
  VOICE_WORDS,
  demonymCountries,
} from './lexicon.js';

export type FilterParamsOut = Partial<SearchParamsIn> & Record<string, unknown>;
export interface AutofilterResult {
  filter_params: FilterParamsOut;
  metadata: { title: string };
  /** what was read, for callers that build on it (charts) */
  window: TimeWindow | null;
  topic: string;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternation = (ws: Iterable<string>) =>
  [...ws]
    .sort((a, b) => b.length - a.length)
    .map(esc)
    .join('|');
const EXCLUDE =
  /\b(?:not|except|excluding|exclude|without|but not|other than|no|ignore|ignoring|skip|skipping|minus|apart from|besides|never)\b[^.;!?]{0,30}$/i;
const GENERIC_NOUN = '(?:news|stories|story|articles?|coverage|headlines?|updates?|section|topics?|reporting|reports?|pieces?|content)';
const AFTER_SECTION = new RegExp(
  `^\\s*(?:${GENERIC_NOUN}\\b|(?:from|in|about|on|since|during|between|and|or|with|by|for|over|published|this|last|past)\\b|[,.;:!?)]|$)`,
  'i',
);

const FILLER =
  /\b(?:show me|give me|find me|get me|tell me|i want|i'd like|i would like|i need|looking for|look for|search for|search|find|list|fetch|please|can you|could you|news|articles?|stories|story|headlines?|coverage|reports?|reporting|updates?|pieces?|content|latest|recent|recently|published|written|all|any|some)\b/gi;
const EDGE_STOP = new Set([
  'about',
  'on',
  'regarding',
  'concerning',
  'from',
  'in',
  'of',
  'for',
  'the',
  'a',
  'an',
  'and',
  'or',
  'with',
  'by',
  'to',
  'at',
  'that',
  'which',
  'me',
  'is',
  'are',
  'was',
  'were',
  'related',
  'around',
  'over',
  'during',
  'since',
  'into',
  'between',
  'only',
  'but',
  'not',
  'than',
  'other',
  'what',
  'there',
  'have',
  'has',
  'been',
  'it',
  'its',
  'did',
  'does',
  'do',
  'say',
  'said',
  'says',
  'reported',
  'wrote',
  'write',
]);
const QUESTION = /^(?:what|why|how|who|whom|whose|when|where|which|is|are|was|were|did|does|do|will|would|can|could|should|has|have)\b/i;

class Text {
  readonly masked: string[];
  constructor(readonly original: string) {
    this.masked = [...original];
  }
  get current(): string {
    return this.masked.join('');
  }
  mask(start: number, end: number): void {
    for (let i = start; i < end && i < this.masked.length; i++) this.masked[i] = ' ';
  }
  before(i: number): string {
    return this.current.slice(Math.max(0, i - 40), i);
  }
}

function addAll<T>(list: T[] | undefined, ...xs: T[]): T[] {
  const out = list ?? [];
  for (const x of xs) if (!out.includes(x)) out.push(x);
  return out;
}

const TLDS =
  'com|org|net|edu|gov|info|news|io|co|tv|me|uk|de|fr|it|es|nl|ru|ua|cn|jp|in|au|ca|ch|se|no|dk|fi|pl|pt|ie|nz|za|br|mx|ar|il|kr|sg|hk|eu|be|at|gr|tr|us';
const DOMAIN = new RegExp(`(?<![\\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+(?:${TLDS}))(?![\\w.-]*\\w)`, 'gi');
const PUBLISHER_RE = new RegExp(`(?<![\\w-])(${alternation(Object.keys(PUBLISHERS))})(?![\\w-])`, 'gi');

function readDomains(t: Text, f: FilterParamsOut): void {
  for (const m of t.current.matchAll(DOMAIN)) {
    const d = m[1]!.toLowerCase().replace(/^www\./, '');
    if (!/[a-z]{2,}/.test(d.split('.')[0]!) || /^(?:u\.s|e\.g|i\.e)$/i.test(d)) continue;
    const excluded = EXCLUDE.test(t.before(m.index!));
    if (excluded) f.bad_domain_url = addAll(f.bad_domain_url as string[] | undefined, d);
    else f.domain_url = addAll(f.domain_url as string[] | undefined, d);
    t.mask(m.index!, m.index! + m[0].length);
  }
  for (const m of t.current.matchAll(PUBLISHER_RE)) {
    const name = m[1]!.toLowerCase();
    if (PUBLISHER_CASED.has(name) && !/^[A-Z]/.test(m[1]!)) continue;
    if (name === 'ap' && m[1] !== 'AP') continue;
    const before = t.before(m.index!);
    // "about CNN": the publisher is the subject, an entity
    if (/\b(?:about|regarding|concerning|on)\s+(?:the\s+)?$/i.test(before)) continue;
    const excluded = EXCLUDE.test(before);
    const ds = PUBLISHERS[name]!;
    if (excluded) f.bad_domain_url = addAll(f.bad_domain_url as string[] | undefined, ...ds);
    else f.domain_url = addAll(f.domain_url as string[] | undefined, ...ds);
    t.mask(m.index!, m.index! + m[0].length);
  }
}

const LANG_ALT = alternation(Object.keys(LANGUAGE_NAMES));
const LANG_LIST = `(?:${LANG_ALT})(?:\\s*(?:,|/|or|and|and/or)\\s*(?:${LANG_ALT}))*`;
const LANG_RES = [
  // "in Spanish", "written in French or German" (not "in German media", not "in Chinese cities")
  new RegExp(
    `\\b(?:written |published )?in (${LANG_LIST})(?=\\s*$|\\s*[,.;!?)]|\\s+(?:only|from|about|on|since|during|between|in|last|this|published|please|with|by|language|languages|articles|news|stories|and|or)\\b)`,
    'gi',
  ),
  // "French-language", "Spanish language articles", "Spanish-speaking"
  new RegExp(`\\b(${LANG_LIST})[- ](?:language|speaking)\\b`, 'gi'),
];

function readLanguages(t: Text, f: FilterParamsOut): void {
  for (const re of LANG_RES) {
    for (const m of t.current.matchAll(re)) {
      if (/\bnot\s+$/i.test(t.before(m.index!))) continue;
      const codes = m[1]!
        .toLowerCase()
        .split(/\s*(?:,|\/|\bor\b|\band\b)\s*/)
        .map((w) => LANGUAGE_NAMES[w.trim()])
        .filter((c): c is string => !!c);
      if (!codes.length) continue;
      f.languages = addAll(f.languages as string[] | undefined, ...codes) as never;
      t.mask(m.index!, m.index! + m[0].length);
    }
  }
}

/** A country (ISO alpha-2) or continent named by the words at the start of `s` (longest first). */
function placeAt(s: string, allowDemonym: boolean): { country?: string; continent?: string; length: number } | null {
  const words = s.split(/(?<=\S)(?=\s)/).slice(0, 5);
  const gaz = gazetteer();
  const dem = demonymCountries();
  for (let n = Math.min(words.length, 5); n >= 1; n--) {
    const phrase = words.slice(0, n).join('');
    const key = phrase.trim().replace(/[,.;:!?)]+$/, '');
    const lower = key.toLowerCase().replace(/^the /, '');
    if (!key || (/^[a-z]/.test(key.trim()) && !CONTINENT_WORDS[lower] && !(allowDemonym && dem.has(lower)))) continue;
    const length = phrase.length - (phrase.trim().length - key.trim().length);
    if (CONTINENT_WORDS[lower]) return { continent: CONTINENT_WORDS[lower], length };
    if (allowDemonym && dem.has(lower) && (lower.length > 2 || key.trim() === key.trim().toUpperCase())) return { country: dem.get(lower)!, length };
    const p = gaz.lookup(lower);
    if (p?.kind === 'country' && (lower.length > 2 || key.trim() === key.trim().toUpperCase())) return { country: p.country, length };
  }
  return null;
}

function notePlace(f: FilterParamsOut, place: { country?: string; continent?: string }, excluded: boolean): void {
  if (place.country) {
    if (excluded) f.countries_blacklist = addAll(f.countries_blacklist as string[] | undefined, place.country);
    else f.countries = addAll(f.countries as string[] | undefined, place.country);
  } else if (place.continent && !excluded) f.continents = addAll(f.continents as string[] | undefined, place.continent) as never;
}

const SOURCE_AFTER = new RegExp(`^(?:[- ]based)?\\s+(?:news\\s+)?(?:${SOURCE_NOUNS})\\b`, 'i');
const FROM_PLACE = /\b(?:from|published in|based in|out of)\s+(?:the\s+)?(?=[A-Za-z])/gi;

function readPublisherPlaces(t: Text, f: FilterParamsOut): void {
  // "<demonym|country|continent> media|outlets|sources|press", "<country>-based"
  const cur = t.current;
  for (const m of cur.matchAll(
    /(?<![\w-])[A-Za-z][\w.]*(?:\s+[A-Za-z][\w.]*){0,3}?(?=(?:[- ]based)?\s+(?:news\s+)?(?:media|press|outlets?|sources?|newspapers?|papers|publishers?|publications?|news ?sites|websites|sites|broadcasters?|news ?outlets|journalists|reporters|news ?agencies|tabloids)\b|-based\b)/g,
  )) {
    // try the last 1..4 words before the source noun
    const words = m[0].split(/\s+/);
    for (let k = Math.min(words.length, 4); k >= 1; k--) {
      const phrase = words.slice(words.length - k).join(' ');
      const at = m.index! + m[0].length - phrase.length;
      const place = placeAt(phrase, true);
      if (!place || place.length < phrase.length) continue;
      const tail = SOURCE_AFTER.exec(cur.slice(at + phrase.length)) ?? /^-based\b/.exec(cur.slice(at + phrase.length));
      notePlace(f, place, EXCLUDE.test(t.before(at)));
      t.mask(at, at + phrase.length + (tail ? tail[0].length : 0));
      break;
    }
  }
  // "from Germany", "published in the UK", "not from the US"
  for (const m of t.current.matchAll(FROM_PLACE)) {
    const at = m.index! + m[0].length;
    const place = placeAt(t.current.slice(at), true);
    if (!place) continue;
    // "from American troops": a demonym needs a source noun (handled above)
    const word = t.current
      .slice(at, at + place.length)
      .trim()
      .toLowerCase();
    if (place.country && demonymCountries().has(word) && !gazetteer().lookup(word)) continue;
    notePlace(f, place, EXCLUDE.test(t.before(m.index!)));
    const tail = SOURCE_AFTER.exec(t.current.slice(at + place.length));
    t.mask(m.index!, at + place.length + (tail ? tail[0].length : 0));
  }
}

function phraseRe(words: string[]): RegExp {
  return new RegExp(`(?<![\\w-])(?:${alternation(words)})(?![\\w-])`, 'gi');
}
const SENTIMENT_RES = Object.entries(SENTIMENT_WORDS).map(([k, ws]) => [k, phraseRe(ws)] as const);
const VOICE_RES = Object.entries(VOICE_WORDS).map(([k, ws]) => [k, phraseRe(ws)] as const);
const CATEGORY_RES = Object.entries(CATEGORY_WORDS).map(([k, ws]) => [k, phraseRe(ws)] as const);

function readLabels(t: Text, f: FilterParamsOut): void {
  for (const [re, level] of PROVOCATIVE_WORDS) {
    const m = re.exec(t.current);
    if (m) {
      f.provocative = level;
      t.mask(m.index, m.index + m[0].length);
      break;
    }
  }
  let first = Infinity;
  for (const [label, re] of SENTIMENT_RES) {
    for (const m of t.current.matchAll(re)) {
      if (/\b(?:public|popular)\s+$/i.test(t.before(m.index!))) continue;
      if (m.index! < first) {
        first = m.index!;
        f.sentiment = label as never;
      }
      t.mask(m.index!, m.index! + m[0].length);
    }
  }
  for (const [voice, re] of VOICE_RES) {
    for (const m of t.current.matchAll(re)) {
      if (/\b(?:public|popular|expert|medical|legal)\s+$/i.test(t.before(m.index!))) continue;
      f.reporting_voice = addAll(f.reporting_voice as string[] | undefined, voice) as never;
      t.mask(m.index!, m.index! + m[0].length);
    }
  }
  for (const [cat, re] of CATEGORY_RES) {
    for (const m of t.current.matchAll(re)) {
      f.categories = addAll(f.categories as string[] | undefined, cat) as never;
      const end = m.index! + m[0].length;
      if (SECTION_WORDS.has(m[0].toLowerCase()) && AFTER_SECTION.test(t.current.slice(end))) t.mask(m.index!, end);
    }
  }
}

/** Words of the entity lexicons that are not names (an extracted "Person" may run into them). */
const NOT_NAME = new Set<string>([...LEXICON_TYPES.Event, ...LEXICON_TYPES.Sports].map((w) => w.toLowerCase()));
const ENTITY_CHARS = 400;
const CATEGORY_TERMS = new Set(Object.values(CATEGORY_WORDS).flat());

function readEntities(t: Text, f: FilterParamsOut): string[] {
  const text = t.current;
  // the extractor's cost grows with the text: names past the first ENTITY_CHARS are not read
  const e = extractEntities(text.slice(0, ENTITY_CHARS), '');
  const keep: string[] = [];
  const reverse: string[] = [];
  for (const type of ['Person', 'Organization', 'Location'] as const) {
    for (let v of e[type]) {
      // "Novak Djokovic Wimbledon" -> "Novak Djokovic"
      const ws = v.split(/\s+/);
      // names are capitalised: "Ford electric" -> "Ford"
      while (ws.length > 1 && (NOT_NAME.has(ws[ws.length - 1]!.toLowerCase()) || /^[a-z]/.test(ws[ws.length - 1]!))) ws.pop();
      v = ws.join(' ').replace(/[\s,.;:!?]+$/, '');
      if (v.length < 2 || CATEGORY_TERMS.has(v.toLowerCase()) || !/[A-Z0-9]/.test(v)) continue;
      const at = text.indexOf(v);
      const item = `${type}:${v}`;
      if (at >= 0 && EXCLUDE.test(text.slice(Math.max(0, at - 40), at))) {
        if (!reverse.includes(item)) reverse.push(item);
        t.mask(at, at + v.length);
        const cue = EXCLUDE.exec(text.slice(Math.max(0, at - 40), at));
        if (cue) t.mask(Math.max(0, at - 40) + cue.index, at);
      } else if (!keep.includes(item)) keep.push(item);
    }
  }
  // places the extractor missed: capitalised words the gazetteer knows (not the first word)
  for (const m of text.matchAll(/(?<=\S\s+)[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2}/g)) {
    const p = gazetteer().lookup(m[0]);
    const item = `Location:${m[0]}`;
    if (p && !keep.some((k) => k.toLowerCase().endsWith(`:${m[0].toLowerCase()}`)) && !EXCLUDE.test(text.slice(Math.max(0, m.index! - 40), m.index!)))
      keep.push(item);
  }
  if (keep.length) {
    f.entity_guarantee = keep;
    if (keep.length > 1) f.entity_guarantee_op = /\bor\b/i.test(t.original) ? 'OR' : 'AND';
  }
  if (reverse.length) f.reverse_entity_guarantee = reverse;
  return keep.map((k) => k.slice(k.indexOf(':') + 1));
}

function readCount(t: Text, f: FilterParamsOut): void {
  const m =
    /\b(?:top|first|the)?\s*(\d{1,4})\s+(?:(?:most\s+)?(?:recent|latest|relevant|top)\s+)?(?:articles|stories|headlines|results|items|pieces|reports|links)\b|\btop\s+(\d{1,4})\b/i.exec(
      t.current,
    );
  if (!m) return;
  const n = Number(m[1] ?? m[2]);
  if (n < 1) return;
  f.n_articles = Math.min(n, SEARCH_LIMITS.nArticlesMax);
  t.mask(m.index, m.index + m[0].length);
}

/** What is left of the description once filters took their words. */
function remainder(t: Text): string {
  let s = t.current.replace(FILLER, ' ').replace(/[“”"']+(?=\s|$)|(?<=\s|^)[“”"']+/g, ' ');
  s = s.replace(/\s+/g, ' ').trim();
  const ws = s.split(' ').filter(Boolean);
  const stop = (w: string) => EDGE_STOP.has(w.toLowerCase().replace(/[^\w'-]/g, '')) || /^[^\w]+$/.test(w);
  while (ws.length && stop(ws[0]!)) ws.shift();
  while (ws.length && stop(ws[ws.length - 1]!)) ws.pop();
  // stop words left in runs where filters took the words between them ("Tesla from in" -> "Tesla")
  const out: string[] = [];
  for (const w of ws) {
    if (out.length && stop(w) && stop(out[out.length - 1]!)) continue;
    out.push(w);
  }
  return out
    .join(' ')
    .replace(/^[^\w"“]+|[^\w"”?)]+$/g, '')
    .trim();
}

function titleOf(topic: string, entities: string[], f: FilterParamsOut, w: TimeWindow | null): string {
  let head = topic || entities.join(', ');
  if (!head && Array.isArray(f.categories) && f.categories.length) head = `${f.categories.join(' and ')} news`;
  if (!head && Array.isArray(f.domain_url)) head = `News from ${(f.domain_url as string[]).join(', ')}`;
  if (!head) head = 'News';
  head = head.replace(/\?$/, '');
  head = head.charAt(0).toUpperCase() + head.slice(1);
  if (head.length > 60) head = `${head.slice(0, 57).replace(/\s+\S*$/, '')}...`;
  const when = w?.text.replace(/^(?:in|from|over|during|for|within)\s+(?:the\s+)?/i, '');
  return when ? `${head} (${when})` : head;
}

/** Keep only what search accepts: drop each field the schema refuses. */
export function validFilters(f: FilterParamsOut): FilterParamsOut {
  const out = { ...f };
  for (let i = 0; i < 5; i++) {
    const r = SearchParams.safeParse(out);
    if (r.success) return out;
    for (const issue of r.error.issues) delete out[String(issue.path[0])];
  }
  return {};
}

/** Filters for a description; `now` is the service clock (ms). */
export function autofilter(description: string, now: number): AutofilterResult {
  // control characters are what this takes out
  // eslint-disable-next-line no-control-regex
  const clean = description.slice(0, AUTOFILTER_QUERY_MAX).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
  const t = new Text(clean);
  const f: FilterParamsOut = {};
  const time = parseTimeWindow(clean, now);
  for (const [s, e] of time.spans) t.mask(s, e);
  if (time.window) {
    const { from, to } = time.window;
    if (from !== null) f.start_timestamp = Math.max(0, Math.floor(from / 1000));
    if (to !== null) f.end_timestamp = Math.max(0, Math.floor(to / 1000) - 1);
    f.time_filter = 'pub_date';
    f.historical = true;
  }
  readCount(t, f);
  readDomains(t, f);
  readLanguages(t, f);
  readPublisherPlaces(t, f);
  readLabels(t, f);
  const entities = readEntities(t, f);
  const topic = remainder(t);
  if (topic) {
    f.query = topic;
    f.method = QUESTION.test(topic) || topic.split(' ').length >= 5 ? 'nl' : 'kw';
  }
  const filter_params = validFilters(f);
  return { filter_params, metadata: { title: titleOf(topic, entities, f, time.window) }, window: time.window, topic };
}
