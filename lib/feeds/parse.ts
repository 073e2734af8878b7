/**
 * A feed or sitemap, from its bytes to the items a poll may index.
 *
 * - Bytes are decoded by lib/fetch/charset.ts (`decodeXml`: BOM, header, XML declaration, checked
 *   against the bytes); a text that still holds replacement characters is refused (`encoding`),
 *   not indexed as mojibake.
 * - XML must be well-formed (fast-xml-parser's validator; blank lines before the declaration are
 *   allowed, as real feeds have them): a truncated or broken document is refused
 *   (`not_well_formed`, with line and column), never half-read.
 * - RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3/1.0 and JSON Feed 1.0/1.1 are read with feedsmith
 *   (chosen by bench/feed-parsers.ts: the only candidate that reads all four formats, every item
 *   of the 50 shared feed files found, titles and links right); sitemaps (`<urlset>` with Google
 *   News, image and other extensions) and sitemap indexes (`<sitemapindex>`) with fast-xml-parser
 *   (no feed parser reads them; feedsmith itself is built on it).
 *
 * An item is reduced to what indexing needs (`FeedItem`): a key that is stable across polls (RSS
 * guid, Atom/JSON id, else the link, else a hash of title and date), its absolute http(s) URL
 * (relative links resolved against the feed's URL; Google Alerts' google.com/url?url= redirects
 * unwrapped), and the feed's own title, summary, authors, date and language, as plain text.
 */
import crypto from 'node:crypto';
import { DetectError, parseFeed as feedsmithParse, type AnyFeed, type AtomFeed, type JsonFeed, type RdfFeed, type RssFeed, type SyNs } from 'feedsmith';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decodeXml, headerCharset } from '../fetch/charset.js';
import { collapseSpace, stripTags } from '../fetch/tags.js';
import { withoutControls } from '../text/controls.js';
import { parseFeedDate } from './dates.js';

export type FeedKind = 'rss' | 'rdf' | 'atom' | 'json' | 'sitemap' | 'sitemapindex';
export const FEED_KINDS: readonly FeedKind[] = ['rss', 'rdf', 'atom', 'json', 'sitemap', 'sitemapindex'];

export interface FeedItem {
  /** the item's identity within its source, stable across polls */
  key: string;
  /** absolute http(s) URL of the article, null when the item names none */
  url: string | null;
  title: string;
  /** plain text, at most SUMMARY_CHARS */
  summary: string | null;
  authors: string[];
  /** ISO UTC */
  published: string | null;
  /** primary language subtag (`en`, `pt`), from the item or else the feed */
  language: string | null;
}

/** A child sitemap of a sitemap index. */
export interface ChildSitemap {
  url: string;
  lastmod: string | null;
}

export interface ParsedFeed {
  kind: FeedKind;
  title: string | null;
  language: string | null;
  items: FeedItem[];
  /** a sitemap index's sitemaps (empty for every other kind) */
  sitemaps: ChildSitemap[];
  /** RSS `<ttl>`, minutes */
  ttlMinutes: number | null;
  /** the syndication module's `sy:updatePeriod` / `sy:updateFrequency`, as minutes between updates */
  updateMinutes: number | null;
}

export type FeedErrorReason = 'encoding' | 'not_well_formed' | 'not_a_feed';

export class FeedError extends Error {
  override readonly name = 'FeedError';
  constructor(
    readonly reason: FeedErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export const SUMMARY_CHARS = 2000;

// ---------- text ----------

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
};
/** Character references in text (twice: feeds double-escape, `&amp;quot;`). */
function decodeRefs(s: string): string {
  for (let i = 0; i < 2 && s.includes('&'); i++)
    s = s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (m, e: string) => {
      if (e[0] !== '#') return NAMED[e.toLowerCase()] ?? m;
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : m;
    });
  return s;
}

/**
 * Characters of a feed field read at most (a title, a summary, a content of 5 MB is cut here,
 * before any markup is taken out): what is kept of a field is at most SUMMARY_CHARS, and markup
 * rarely takes more than 15 characters in 16.
 */
export const FIELD_INPUT_CHARS = 32 * SUMMARY_CHARS;
/** Characters of a field with no `max` of its own (titles, author names): longer ones end in `…`. */
export const TITLE_CHARS = 500;

/**
 * Plain text of a feed field that may carry HTML (titles of type html, descriptions): bounded
 * first (FIELD_INPUT_CHARS), tags, scripts and styles taken out by one linear scan
 * (lib/fetch/tags.ts), never by a backtracking pattern, control characters dropped.
 */
export function plainText(v: unknown, max = TITLE_CHARS): string {
  const raw =
    typeof v === 'string'
      ? v
      : typeof v === 'number'
        ? String(v)
        : v && typeof v === 'object' && 'value' in v
          ? String((v as { value: unknown }).value ?? '')
          : '';
  const s = raw.length > FIELD_INPUT_CHARS ? raw.slice(0, FIELD_INPUT_CHARS) : raw;
  const text = collapseSpace(withoutControls(stripTags(decodeRefs(stripTags(s, { dropScripts: true, scriptWith: ' ', breakWith: ' ' })))));
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

const language = (v: unknown): string | null => {
  const s = typeof v === 'string' ? v.trim() : '';
  const m = /^([a-z]{2,3})(?:[-_]|$)/i.exec(s);
  return m ? m[1]!.toLowerCase() : null;
};

/** Google Alerts (and Google News) link through google.com/url?url=<the article>. */
function unwrapRedirect(u: URL): URL {
  if (/^(www\.)?google\.[a-z.]+$/i.test(u.hostname) && u.pathname === '/url') {
    const inner = u.searchParams.get('url') ?? u.searchParams.get('q');
    if (inner) {
      try {
        const t = new URL(inner);
        if (t.protocol === 'http:' || t.protocol === 'https:') return t;
      } catch {
        /* not a URL: keep the redirect */
      }
    }
  }
  return u;
}

/** An absolute http(s) URL from a feed's link text (whitespace inside removed, as sitemaps break lines in URLs), or null. */
export function absoluteUrl(v: unknown, base: string): string | null {
  const s = typeof v === 'string' ? v.replace(/\s+/g, '') : '';
  if (!s) return null;
  try {
    const u = unwrapRedirect(new URL(s, base));
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** Names of RSS `author` ('jdoe@example.com (Jane Doe)'), dc:creator and Atom/JSON persons. */
function names(...lists: unknown[]): string[] {
  const out: string[] = [];
  for (const l of lists)
    for (const p of Array.isArray(l) ? l : l == null ? [] : [l]) {
      const raw = typeof p === 'string' ? p : p && typeof p === 'object' ? (p as { name?: unknown }).name : null;
      if (typeof raw !== 'string') continue;
      let n = plainText(raw);
      const paren = /^\S+@\S+\s*\((.+)\)$/.exec(n);
      if (paren) n = paren[1]!.trim();
      if (n && !/^\S+@\S+$/.test(n) && !out.includes(n)) out.push(n);
    }
  return out;
}

const hashKey = (...parts: unknown[]) => `h:${crypto.createHash('sha1').update(JSON.stringify(parts)).digest('hex').slice(0, 24)}`;

// ---------- feeds (feedsmith) ----------

/** sy:updatePeriod / sy:updateFrequency as minutes (RSS 1.0 syndication module: hourly by default, once per period). */
function updateMinutes(sy: SyNs.Feed<string> | undefined): number | null {
  if (!sy?.updatePeriod && !sy?.updateFrequency) return null;
  const periods: Record<string, number> = { hourly: 60, daily: 1440, weekly: 10_080, monthly: 43_200, yearly: 525_600 };
  const period = periods[(sy.updatePeriod ?? 'hourly').trim().toLowerCase()];
  const freq = Number(sy.updateFrequency ?? 1);
  return period && freq >= 1 ? period / freq : null;
}

const keyOr = (id: unknown, url: string | null, title: string, published: string | null) => {
  const k = id == null ? '' : String(id).trim();
  return k || url || hashKey(title, published);
};

function atomFeed(feed: AtomFeed.Feed<string>, feedUrl: string, now: number): ParsedFeed {
  const feedLang = language(feed.xml?.lang ?? feed.dc?.languages?.[0]);
  const items = (feed.entries ?? []).map((e): FeedItem => {
    const links = e.links ?? [];
    const alt =
      links.find((l) => (!l.rel || l.rel === 'alternate') && (!l.type || /html/i.test(l.type))) ??
      links.find((l) => !l.rel || l.rel === 'alternate') ??
      links[0];
    const url = absoluteUrl(alt?.href, feedUrl);
    const published = parseFeedDate(e.published ?? e.updated ?? e.dc?.dates?.[0], now);
    const title = plainText(e.title);
    return {
      key: keyOr(e.id, url, title, published),
      url,
      title,
      summary: plainText(e.summary ?? e.content, SUMMARY_CHARS) || null,
      authors: names(e.authors, e.dc?.creators),
      published,
      language: language(e.dc?.languages?.[0]) ?? feedLang,
    };
  });
  return {
    kind: 'atom',
    title: plainText(feed.title) || null,
    language: feedLang,
    items,
    sitemaps: [],
    ttlMinutes: null,
    updateMinutes: updateMinutes(feed.sy),
  };
}

function jsonFeed(feed: JsonFeed.Feed<string>, feedUrl: string, now: number): ParsedFeed {
  const feedLang = language(feed.language);
  const items = (feed.items ?? []).map((i): FeedItem => {
    const url = absoluteUrl(i.url ?? i.external_url, feedUrl);
    const published = parseFeedDate(i.date_published ?? i.date_modified, now);
    const title = plainText(i.title) || plainText(i.summary ?? i.content_text, 120);
    return {
      key: keyOr(i.id, url, title, published),
      url,
      title,
      summary: plainText(i.summary ?? i.content_text ?? i.content_html, SUMMARY_CHARS) || null,
      authors: names(i.authors ?? feed.authors),
      published,
      language: language(i.language) ?? feedLang,
    };
  });
  return { kind: 'json', title: plainText(feed.title) || null, language: feedLang, items, sitemaps: [], ttlMinutes: null, updateMinutes: null };
}

function rssFeed(kind: 'rss' | 'rdf', feed: RssFeed.Feed<string> | RdfFeed.Feed<string>, feedUrl: string, now: number): ParsedFeed {
  const rss = kind === 'rss' ? (feed as RssFeed.Feed<string>) : null;
  const feedLang = language(rss?.language ?? feed.dc?.languages?.[0]);
  const items = (feed.items ?? []).map((i: RssFeed.Item<string> | RdfFeed.Item<string>): FeedItem => {
    const r = 'guid' in i || 'pubDate' in i || 'authors' in i ? (i as RssFeed.Item<string>) : null;
    const guidText = r?.guid?.value?.trim() ?? '';
    // a guid is a permalink unless it says isPermaLink="false"
    const guidUrl = guidText && r?.guid?.isPermaLink !== false && /^https?:/i.test(guidText) ? absoluteUrl(guidText, feedUrl) : null;
    const about = 'rdf' in i ? i.rdf?.about : undefined;
    const url = absoluteUrl(i.link, feedUrl) ?? guidUrl ?? absoluteUrl(about, feedUrl);
    const published = parseFeedDate(r?.pubDate ?? i.dc?.dates?.[0] ?? i.dcterms?.modified, now);
    const title = plainText(i.title) || plainText(i.description, 120);
    return {
      key: keyOr(guidText, url, title, published),
      url,
      title,
      summary: plainText(i.description ?? i.content?.encoded, SUMMARY_CHARS) || null,
      authors: names(r?.authors, i.dc?.creators),
      published,
      language: language(i.dc?.languages?.[0]) ?? feedLang,
    };
  });
  const ttl = Number(rss?.ttl);
  return {
    kind,
    title: plainText(feed.title) || null,
    language: feedLang,
    items,
    sitemaps: [],
    ttlMinutes: Number.isFinite(ttl) && ttl > 0 ? ttl : null,
    updateMinutes: updateMinutes(feed.sy),
  };
}

function fromFeedsmith(parsed: AnyFeed<string>, feedUrl: string, now: number): ParsedFeed {
  switch (parsed.format) {
    case 'atom':
      return atomFeed(parsed.feed, feedUrl, now);
    case 'json':
      return jsonFeed(parsed.feed, feedUrl, now);
    case 'rdf':
      return rssFeed('rdf', parsed.feed, feedUrl, now);
    default:
      return rssFeed('rss', parsed.feed, feedUrl, now);
  }
}

// ---------- sitemaps (fast-xml-parser) ----------

const sitemapXml = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: false,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'url' || name === 'sitemap' || name === 'news:news',
});

/** An element as fast-xml-parser gives it. */
type XmlNode = { [name: string]: unknown };
const node = (v: unknown): XmlNode | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as XmlNode) : undefined);
const nodes = (v: unknown): XmlNode[] => (Array.isArray(v) ? v : [v]).map(node).filter((n): n is XmlNode => !!n);
/** A child by local name (`urlset`, `sm:urlset`). */
const child = (n: XmlNode | undefined, name: string): unknown => (n ? Object.entries(n).find(([k]) => k === name || k.endsWith(`:${name}`))?.[1] : undefined);

function fromSitemap(text: string, feedUrl: string, now: number): ParsedFeed | null {
  const doc = node(sitemapXml.parse(text));
  const base = { title: null, language: null, ttlMinutes: null, updateMinutes: null };
  const index = child(doc, 'sitemapindex');
  if (index !== undefined) {
    const sitemaps = nodes(child(node(index), 'sitemap'))
      .map((s) => ({ url: absoluteUrl(child(s, 'loc'), feedUrl), lastmod: parseFeedDate(child(s, 'lastmod'), now) }))
      .filter((s): s is ChildSitemap => s.url !== null);
    return { ...base, kind: 'sitemapindex', items: [], sitemaps };
  }
  const urlset = child(doc, 'urlset');
  if (urlset === undefined) return null;
  const items = nodes(child(node(urlset), 'url')).map((u): FeedItem => {
    const url = absoluteUrl(child(u, 'loc'), feedUrl);
    const news = nodes(u['news:news'])[0];
    const pub = node(news?.['news:publication']);
    const published = parseFeedDate(news?.['news:publication_date'] ?? child(u, 'lastmod'), now);
    return {
      key: url ?? hashKey(child(u, 'loc')),
      url,
      title: plainText(news?.['news:title']),
      summary: plainText(news?.['news:keywords'], SUMMARY_CHARS) || null,
      authors: [],
      published,
      language: language(pub?.['news:language']),
    };
  });
  return { ...base, kind: 'sitemap', items, sitemaps: [] };
}

// ---------- the doors ----------

/** Items with the same key keep the first (a sitemap may list a URL twice). */
function uniqueKeys(feed: ParsedFeed): ParsedFeed {
  const seen = new Set<string>();
  return { ...feed, items: feed.items.filter((i) => (seen.has(i.key) ? false : (seen.add(i.key), true))) };
}

/**
 * A feed or sitemap from its text. `feedUrl` (where it was fetched from) resolves relative links.
 * Throws `FeedError` (`not_well_formed`, `not_a_feed`).
 */
export function parseFeedText(text: string, feedUrl: string, now: number = Date.now()): ParsedFeed {
  const body = text.replace(/^[\s\ufeff]+/, '');
  if (body.startsWith('{') || body.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (e) {
      throw new FeedError('not_well_formed', `not well-formed JSON: ${(e as Error).message}`);
    }
    try {
      return uniqueKeys(fromFeedsmith(feedsmithParse(json), feedUrl, now));
    } catch (e) {
      throw new FeedError('not_a_feed', `JSON but not a JSON Feed (${(e as Error).message})`);
    }
  }
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new FeedError('not_well_formed', `not well-formed XML at line ${line}, column ${col}: ${msg}`);
  }
  try {
    return uniqueKeys(fromFeedsmith(feedsmithParse(body), feedUrl, now));
  } catch (e) {
    if (!(e instanceof DetectError) && !/format/i.test((e as Error).message)) throw new FeedError('not_a_feed', (e as Error).message);
  }
  const sitemap = fromSitemap(body, feedUrl, now);
  if (sitemap) return uniqueKeys(sitemap);
  throw new FeedError('not_a_feed', 'well-formed XML, but neither RSS, RDF, Atom nor a sitemap');
}

export interface DecodedFeed extends ParsedFeed {
  /** the encoding the bytes were read with, and where it came from (see lib/fetch/charset.ts) */
  charset: string;
  charsetSource: string;
}

/**
 * A feed or sitemap from its bytes and the response's Content-Type. Throws `FeedError`
 * (`encoding` when the text read from the bytes still holds replacement characters).
 */
export function parseFeedBytes(bytes: Uint8Array, contentType: string | undefined, feedUrl: string, now: number = Date.now()): DecodedFeed {
  const json = /json/i.test(contentType ?? '');
  const decoded = json && !headerCharset(contentType) ? decodeXml(bytes, 'application/json; charset=utf-8') : decodeXml(bytes, contentType);
  const bad = (decoded.text.match(/\ufffd/g) ?? []).length;
  if (bad >= 5 || (bad > 0 && bad * 2000 >= decoded.text.length))
    throw new FeedError('encoding', `the bytes are not ${decoded.charset} (read from the ${decoded.source}): ${bad} characters cannot be decoded`);
  return { ...parseFeedText(decoded.text, feedUrl, now), charset: decoded.charset, charsetSource: decoded.source };
}
