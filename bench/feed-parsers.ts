/**
 * Feed parsers measured against each other on the 56 real feeds and sitemaps of the shared folder
 * (`../shared/data/feeds/`, its manifest.json gives each file's item count), to choose the one
 * lib/feeds/ parses with.
 *
 * Candidates: feedsmith, @rowanmanning/feed-parser, rss-parser, @extractus/feed-extractor (feeds),
 * fast-xml-parser (sitemaps: none of the feed parsers reads them). Every candidate gets the same
 * text, the bytes decoded by lib/fetch/charset.ts (`decodeXml`), and the feed's URL (its own
 * `rel=self`, else its alternate link) to resolve relative links against.
 *
 * What is checked, per file and in total:
 * - items: the number found against the manifest's count (counted with Python's ElementTree);
 * - titles, links, dates: each item against a reference read from the same text with saxes (an
 *   XML parser none of the candidates uses): title text (tags stripped, entities decoded, spaces
 *   collapsed), the item's link (Atom: rel=alternate, resolved against xml:base and the feed URL),
 *   its date (pubDate, dc:date, published/updated, news:publication_date, lastmod) where
 *   `Date.parse` reads it, to the second. Items are matched in document order.
 * - speed: CPU milliseconds per file over all files, every candidate parsing each file `ROUNDS` times.
 *
 * `node --import tsx bench/feed-parsers.ts` prints a table per candidate and one JSON line;
 * `--files` adds a line per file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { parseFeed as feedsmithParse } from 'feedsmith';
import { parseFeed as rowanParse } from '@rowanmanning/feed-parser';
import RssParser from 'rss-parser';
import { extractFromJson, extractFromXml } from '@extractus/feed-extractor';
import { XMLParser } from 'fast-xml-parser';
import { decodeXml } from '../lib/fetch/charset.js';
import { parseFeedText } from '../lib/feeds/parse.js';

export const feedsDir = path.resolve(process.env.NEWSFLOW_SHARED_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared'), 'data', 'feeds');

interface ManifestEntry {
  file: string;
  kind: 'rss2' | 'atom' | 'rdf' | 'jsonfeed' | 'sitemap';
  items: number;
  encoding: string;
}
export const manifest = (): ManifestEntry[] => JSON.parse(fs.readFileSync(path.join(feedsDir, 'manifest.json'), 'utf8')) as ManifestEntry[];

/** What every candidate is reduced to. */
interface Item {
  title: string | null;
  link: string | null;
  /** epoch ms */
  date: number | null;
}
interface Ref extends Item {
  rawDate: string | null;
}

const ROUNDS = Number(process.env.ROUNDS ?? 20);

// ---------- text helpers (the same for reference and candidates) ----------

const ENT: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
function decodeEntities(s: string): string {
  for (let i = 0; i < 3; i++) {
    const next = s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) =>
      e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENT[e.toLowerCase()] ?? m),
    );
    if (next === s) break;
    s = next;
  }
  return s;
}
export const normTitle = (s: string | null | undefined) =>
  decodeEntities(decodeEntities(s ?? '').replace(/<[^>]*>/g, ''))
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
const resolve = (href: string | null | undefined, base: string | null): string | null => {
  const h = (href ?? '').trim();
  if (!h) return null;
  try {
    return new URL(h, base ?? undefined).href;
  } catch {
    return h;
  }
};
const ms = (raw: unknown): number | null => {
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.getTime();
  if (typeof raw !== 'string' || !raw.trim()) return null;
  const t = Date.parse(raw.trim());
  return Number.isNaN(t) ? null : t;
};

// ---------- the reference: saxes, element by element ----------

interface RefFeed {
  feedUrl: string | null;
  items: Ref[];
}

/** The reference items of an XML feed or sitemap (no namespace processing: names as written, matched by local name). */
export function referenceXml(text: string, kind: ManifestEntry['kind']): RefFeed {
  const local = (n: string) => n.slice(n.indexOf(':') + 1);
  const parser = new SaxesParser({ xmlns: false, position: false });
  const stack: { name: string; attrs: Record<string, string>; base: string | null }[] = [];
  const items: Ref[] = [];
  let feedUrl: string | null = null;
  let feedAlt: string | null = null;
  let cur: (Ref & { depth: number; base: string | null; linkRel?: string }) | null = null;
  let field: { name: string; depth: number; text: string } | null = null;
  const isItem = (name: string, parent: string | undefined) => {
    const n = local(name);
    const p = parent ? local(parent) : '';
    if (kind === 'rss2') return n === 'item' && p === 'channel';
    if (kind === 'rdf') return n === 'item' && p === 'RDF';
    if (kind === 'atom') return n === 'entry' && p === 'feed';
    return (n === 'url' && p === 'urlset') || (n === 'sitemap' && p === 'sitemapindex');
  };
  parser.on('error', () => undefined);
  parser.on('opentag', (tag) => {
    const attrs = tag.attributes as Record<string, string>;
    const parentBase = stack.at(-1)?.base ?? feedUrl;
    const base = attrs['xml:base'] ? resolve(attrs['xml:base'], parentBase) : parentBase;
    const parent = stack.at(-1)?.name;
    stack.push({ name: tag.name, attrs, base });
    const n = local(tag.name);
    if (!cur && kind === 'atom' && n === 'link' && stack.length === 2) {
      if (attrs.rel === 'self') feedUrl ??= attrs.href ?? null;
      if (!attrs.rel || attrs.rel === 'alternate') feedAlt ??= attrs.href ?? null;
    }
    if (!cur && kind === 'rss2' && tag.name === 'atom:link' && attrs.rel === 'self') feedUrl ??= attrs.href ?? null;
    if (!cur && isItem(tag.name, parent)) {
      cur = { title: null, link: null, date: null, rawDate: null, depth: stack.length, base };
      return;
    }
    if (!cur || stack.length !== cur.depth + 1) return;
    if (kind === 'atom' && tag.name === 'link') {
      const rel = attrs.rel ?? 'alternate';
      if (rel === 'alternate' && (!cur.link || cur.linkRel !== 'alternate')) [cur.link, cur.linkRel] = [resolve(attrs.href, base), rel];
      return;
    }
    field = { name: tag.name, depth: stack.length, text: '' };
  });
  const onText = (t: string) => {
    if (field) field.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    const top = stack.pop();
    if (field && field.depth === stack.length + 1 && cur) {
      const v = field.text;
      const name = field.name;
      const n = local(name);
      const prefix = name.includes(':') ? name.slice(0, name.indexOf(':')) : '';
      if (kind === 'sitemap') {
        if (n === 'loc' && !prefix) cur.link = resolve(v, null);
        if (n === 'lastmod' && !cur.rawDate) cur.rawDate = v.trim();
      } else if (n === 'title' && !prefix) cur.title = normTitle(v);
      else if (n === 'link' && !prefix && kind !== 'atom') cur.link = resolve(v, top?.base ?? null);
      else if (name === 'pubDate' || name === 'published') cur.rawDate = v.trim();
      else if ((name === 'dc:date' || name === 'updated') && !cur.rawDate) cur.rawDate = v.trim();
      field = null;
    }
    // news:title and news:publication_date sit deeper in a sitemap's <url>
    if (cur && kind === 'sitemap' && stack.length > cur.depth && field === null) {
      /* handled below by the nested reader */
    }
    if (cur && stack.length === cur.depth - 1) {
      cur.date = ms(cur.rawDate);
      items.push({ title: cur.title, link: cur.link, date: cur.date, rawDate: cur.rawDate });
      cur = null;
    }
    void tag;
  });
  // the sitemap's nested news fields: a second, simpler pass over <news:title> and <news:publication_date>
  parser.write(text.replace(/^\s+(?=<\?xml)/, '')).close();
  if (kind === 'sitemap') {
    const nested = sitemapNews(text);
    items.forEach((it, i) => {
      const n = nested[i];
      if (n?.title) it.title = normTitle(n.title);
      if (n?.date) [it.rawDate, it.date] = [n.date.trim(), ms(n.date)];
    });
  }
  return { feedUrl: feedUrl ?? feedAlt, items };
}

/** news:title and news:publication_date of each <url> of a sitemap, in order (saxes). */
function sitemapNews(text: string): { title: string | null; date: string | null }[] {
  const parser = new SaxesParser({ xmlns: false, position: false });
  const out: { title: string | null; date: string | null }[] = [];
  let cur: { title: string | null; date: string | null } | null = null;
  let field: string | null = null;
  let buf = '';
  parser.on('error', () => undefined);
  parser.on('opentag', (t) => {
    if (t.name === 'url' || t.name === 'sitemap') cur = { title: null, date: null };
    if (t.name === 'news:title' || t.name === 'news:publication_date') [field, buf] = [t.name, ''];
  });
  parser.on('text', (t) => void (field && (buf += t)));
  parser.on('cdata', (t) => void (field && (buf += t)));
  parser.on('closetag', (t) => {
    if (cur && t.name === field) {
      if (field === 'news:title') cur.title = buf;
      else cur.date = buf;
      field = null;
    }
    if (cur && (t.name === 'url' || t.name === 'sitemap')) {
      out.push(cur);
      cur = null;
    }
  });
  parser.write(text.replace(/^\s+(?=<)/, '')).close();
  return out;
}

function referenceJson(text: string): RefFeed {
  const j = JSON.parse(text) as { feed_url?: string; items?: { title?: string; url?: string; external_url?: string; date_published?: string }[] };
  return {
    feedUrl: j.feed_url ?? null,
    items: (j.items ?? []).map((i) => ({
      title: i.title ? normTitle(i.title) : null,
      link: resolve(i.url, j.feed_url ?? null),
      date: ms(i.date_published),
      rawDate: i.date_published ?? null,
    })),
  };
}

// ---------- the candidates ----------

type Candidate = (text: string, kind: ManifestEntry['kind'], feedUrl: string | null) => Item[] | null | Promise<Item[] | null>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the candidates' outputs, read as they come
type AnyRec = Record<string, any>;
const first = <T>(v: T | T[] | undefined): T | undefined => (Array.isArray(v) ? v[0] : v);

const feedsmith: Candidate = (text, kind, feedUrl) => {
  if (kind === 'sitemap') return null;
  const { format, feed } = feedsmithParse(kind === 'jsonfeed' ? JSON.parse(text) : text) as { format: string; feed: AnyRec };
  if (format === 'atom')
    return ((feed.entries ?? []) as AnyRec[]).map((e) => {
      const links = (e.links ?? []) as AnyRec[];
      const alt = links.find((l) => !l.rel || l.rel === 'alternate') ?? links[0];
      const title = typeof e.title === 'object' && e.title ? e.title.value : e.title;
      return { title: normTitle(title), link: resolve(alt?.href, feedUrl), date: ms(e.published ?? e.updated) };
    });
  if (format === 'json')
    return ((feed.items ?? []) as AnyRec[]).map((i) => ({ title: normTitle(i.title), link: resolve(i.url, feedUrl), date: ms(i.date_published) }));
  return ((feed.items ?? []) as AnyRec[]).map((i) => ({
    title: normTitle(i.title),
    link: resolve(i.link, feedUrl),
    date: ms(i.pubDate ?? first(i.dc?.dates) ?? i.dc?.date),
  }));
};

const rowan: Candidate = (text, kind, feedUrl) => {
  if (kind === 'sitemap' || kind === 'jsonfeed') return null;
  const feed = rowanParse(text);
  return feed.items.map((i) => ({ title: normTitle(i.title), link: resolve(i.url, feedUrl), date: ms(i.published ?? i.updated) }));
};

const rssParser = new RssParser();
const rssParserC: Candidate = async (text, kind, feedUrl) => {
  if (kind === 'sitemap' || kind === 'jsonfeed') return null;
  const feed = await rssParser.parseString(text);
  return feed.items.map((i) => ({ title: normTitle(i.title), link: resolve(i.link, feedUrl), date: ms(i.isoDate ?? i.pubDate) }));
};

const extractus: Candidate = (text, kind, feedUrl) => {
  if (kind === 'sitemap') return null;
  const opts = { descriptionMaxLen: 0, baseUrl: feedUrl ?? undefined };
  const feed = kind === 'jsonfeed' ? extractFromJson(JSON.parse(text), opts) : extractFromXml(text, opts);
  return (feed.entries ?? []).map((e) => ({ title: normTitle(e.title), link: resolve(e.link, feedUrl), date: ms(e.published) }));
};

const fxp = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, isArray: (n) => n === 'url' || n === 'sitemap' });
const fastXml: Candidate = (text, kind) => {
  if (kind !== 'sitemap') return null;
  const doc = fxp.parse(text) as AnyRec;
  const rows = ((doc.urlset?.url ?? doc.sitemapindex?.sitemap ?? []) as AnyRec[]).map((u) => ({
    title: u.news?.title != null ? normTitle(String(u.news.title)) : null,
    link: resolve(String(u.loc ?? ''), null),
    date: ms(u.news?.publication_date ?? u.lastmod),
  }));
  return rows;
};

/**
 * The chosen pipeline (lib/feeds/parse.ts), for the record. It differs from the reference by
 * design: items with the same key are kept once (hukumonline lists 3 URLs twice, which shifts the
 * items after them), Google Alerts' google.com/url redirects are unwrapped to the article's URL,
 * a sitemap index's sitemaps are its children (listed here as items).
 */
const chosen: Candidate = (text, _kind, feedUrl) => {
  const r = parseFeedText(text, feedUrl ?? 'https://feeds.invalid/feed');
  if (r.kind === 'sitemapindex') return r.sitemaps.map((s) => ({ title: null, link: s.url, date: s.lastmod ? Date.parse(s.lastmod) : null }));
  return r.items.map((i) => ({ title: normTitle(i.title), link: i.url, date: i.published ? Date.parse(i.published) : null }));
};

export const CANDIDATES: Record<string, Candidate> = {
  feedsmith,
  '@rowanmanning/feed-parser': rowan,
  'rss-parser': rssParserC,
  '@extractus/feed-extractor': extractus,
  'fast-xml-parser (sitemaps)': fastXml,
  'chosen: lib/feeds': chosen,
};

// ---------- the run ----------

interface FileScore {
  file: string;
  kind: string;
  expected: number;
  found: number | null;
  error: string | null;
  titles: [number, number];
  links: [number, number];
  dates: [number, number];
  /** items whose date Date.parse cannot read but the candidate dated */
  oddDates: [number, number];
}

async function scoreFile(name: string, c: Candidate, e: ManifestEntry, text: string, ref: RefFeed): Promise<FileScore> {
  const s: FileScore = {
    file: e.file,
    kind: e.kind,
    expected: e.items,
    found: null,
    error: null,
    titles: [0, 0],
    links: [0, 0],
    dates: [0, 0],
    oddDates: [0, 0],
  };
  let items: Item[] | null;
  try {
    items = await c(text, e.kind, ref.feedUrl);
  } catch (err) {
    s.error = (err as Error).message.split('\n')[0]!.slice(0, 80);
    s.found = 0;
    items = [];
  }
  if (items === null) return s;
  s.found = items.length;
  // chosen: the pipeline resolves links against the feed URL it was fetched from and reads more dates; same reference
  void name;
  ref.items.forEach((r, i) => {
    const got = items![i];
    if (r.title) {
      s.titles[1]++;
      if (got && normTitle(got.title) === r.title) s.titles[0]++;
    }
    if (r.link) {
      s.links[1]++;
      if (got && got.link === r.link) s.links[0]++;
    }
    if (r.date !== null) {
      s.dates[1]++;
      if (got?.date != null && Math.abs(got.date - r.date) < 1000) s.dates[0]++;
    } else if (r.rawDate) {
      s.oddDates[1]++;
      if (got?.date != null) s.oddDates[0]++;
    }
  });
  return s;
}

export async function benchFeedParsers(opts: { files?: boolean } = {}) {
  const entries = manifest();
  const inputs = entries.map((e) => {
    const bytes = fs.readFileSync(path.join(feedsDir, e.file));
    const decoded = e.kind === 'jsonfeed' ? { text: bytes.toString('utf8'), charset: 'utf-8' } : decodeXml(bytes);
    const text = decoded.text.replace(/^\s+(?=<)/, '');
    const ref = e.kind === 'jsonfeed' ? referenceJson(text) : referenceXml(text, e.kind);
    return { e, text, ref, bytes: bytes.length };
  });
  const refMismatch = inputs
    .filter((i) => i.ref.items.length !== i.e.items)
    .map((i) => `${i.e.file}: reference ${i.ref.items.length} vs manifest ${i.e.items}`);
  if (refMismatch.length) console.log(`reference counts differ from the manifest:\n  ${refMismatch.join('\n  ')}`);
  const summary: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(CANDIDATES)) {
    const scores: FileScore[] = [];
    for (const i of inputs) scores.push(await scoreFile(name, c, i.e, i.text, i.ref));
    const applicable = inputs.filter((_, k) => scores[k]!.found !== null);
    // speed: every applicable file ROUNDS times, CPU time
    const cpu0 = process.cpuUsage();
    for (let r = 0; r < ROUNDS; r++)
      for (const i of applicable) {
        try {
          await c(i.text, i.e.kind, i.ref.feedUrl);
        } catch {
          /* counted above */
        }
      }
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const sc = scores.filter((s) => s.found !== null);
    const sum = (f: (s: FileScore) => [number, number]) =>
      sc.reduce((a, s) => [a[0] + f(s)[0], a[1] + f(s)[1]] as [number, number], [0, 0] as [number, number]);
    const exact = sc.filter((s) => s.found === s.expected).length;
    const items = sc.reduce((a, s) => a + (s.found ?? 0), 0);
    const expected = sc.reduce((a, s) => a + s.expected, 0);
    const errors = sc.filter((s) => s.error);
    const [t, l, d, o] = [sum((s) => s.titles), sum((s) => s.links), sum((s) => s.dates), sum((s) => s.oddDates)];
    const bytes = applicable.reduce((a, i) => a + i.bytes, 0);
    const pct = (x: [number, number]) => `${x[0]}/${x[1]} (${x[1] ? ((100 * x[0]) / x[1]).toFixed(1) : '-'}%)`;
    console.log(`\n${name}: ${sc.length} files it reads (of ${inputs.length})`);
    console.log(`  item counts equal to the manifest: ${exact}/${sc.length} files; items ${items} of ${expected}; errors ${errors.length}`);
    console.log(`  titles right ${pct(t)}  links right ${pct(l)}  dates right ${pct(d)}  odd dates read ${pct(o)}`);
    console.log(
      `  speed: ${(cpuMs / (ROUNDS * applicable.length)).toFixed(2)} CPU ms per file, ${((bytes * ROUNDS) / 1e6 / (cpuMs / 1000)).toFixed(1)} MB per CPU second`,
    );
    for (const s of sc.filter((s) => s.error || s.found !== s.expected))
      console.log(`  ${s.file}: found ${s.found} of ${s.expected}${s.error ? ` (error: ${s.error})` : ''}`);
    if (opts.files)
      for (const s of sc)
        console.log(
          `    ${s.file.padEnd(48)} ${String(s.found).padStart(4)}/${String(s.expected).padEnd(4)} titles ${pct(s.titles)} links ${pct(s.links)} dates ${pct(s.dates)}`,
        );
    summary[name] = {
      files: sc.length,
      exactCounts: exact,
      items,
      expected,
      errors: errors.length,
      titles: t,
      links: l,
      dates: d,
      oddDates: o,
      cpuMsPerFile: Number((cpuMs / (ROUNDS * applicable.length)).toFixed(3)),
    };
  }
  return { bench: 'feed-parsers', rounds: ROUNDS, ...summary };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchFeedParsers({ files: process.argv.includes('--files') })));
