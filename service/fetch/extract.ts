/**
 * The article of a fetched page: `@mozilla/readability` on a `linkedom` document, checked against
 * the page's own JSON-LD `articleBody`, then cleaned of the boilerplate Readability keeps.
 *
 * Chosen by measurement (bench/extract.ts: Readability, defuddle, @extractus/article-extractor,
 * Postlight Parser and trafilatura on the shared Readability pages and on real pages other
 * libraries ship with their expected text; docs/service.md, "Fetching pages"):
 * - Readability finds the article (no `isProbablyReaderable` gate: it said no to short-paragraph
 *   CJK pages and to pages whose article sits in `<div>`s, which Readability reads well);
 * - JSON-LD `articleBody` is the text when Readability found much less of it (a page whose body is
 *   built by script, or a teaser page) or nothing;
 * - boilerplate inside the article is removed: boxes named for newsletters, subscriptions, cookies,
 *   consent, related or recommended stories, sharing, promotion; "Read more"/"Related:" link lines;
 * - a page with no markup around its text (served as HTML) is its text;
 * - tables and lists are kept (one row or item a line in the text).
 *
 * A page is `{skipped: reason}` only when no text of an article is found: fewer than 150 letters
 * or digits, or a list of links (most of its text in links: a front page's headlines).
 *
 * Metadata, first source that has it: `pub_date` article:published_time, JSON-LD
 * datePublished, Readability's publishedTime (ISO UTC; a time without zone is read as UTC);
 * `site_name` og:site_name, then Readability's; `language` `<html lang>`, then og:locale, then
 * detected from the text (service/enrich/language.ts); `image_url` og:image (then
 * twitter:image), made absolute against the page URL.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { detectLanguage } from '../enrich/language.js';

export interface ExtractedArticle {
  title: string;
  /** the article's text, one paragraph per line group */
  text: string;
  /** the article's cleaned HTML */
  html?: string;
  /** names of the byline */
  authors: string[];
  /** ISO 8601 UTC, null when the page has none */
  pub_date: string | null;
  site_name: string | null;
  /** ISO 639-1 code (primary subtag of the page's language), or 'unknown' */
  language: string;
  image_url: string | null;
  excerpt: string | null;
  /** `<link rel="canonical">` (else og:url) made absolute, as the page declares it */
  canonical_url: string | null;
}

export type ExtractResult = ExtractedArticle | { skipped: string };

type Doc = ReturnType<typeof parseHTML>['document'];

const meta = (doc: Doc, ...keys: string[]): string | null => {
  for (const k of keys) {
    const el = doc.querySelector(`meta[property="${k}"], meta[name="${k}"]`);
    const v = el?.getAttribute('content')?.trim();
    if (v) return v;
  }
  return null;
};

interface JsonLd {
  /** datePublished of the first object (or @graph member) that has one */
  datePublished: string | null;
  /** the longest articleBody */
  articleBody: string | null;
}

function readJsonLd(doc: Doc): JsonLd {
  const out: JsonLd = { datePublished: null, articleBody: null };
  const walk = (v: unknown, depth: number): void => {
    if (depth > 6) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.datePublished === 'string') out.datePublished ??= o.datePublished;
    if (typeof o.articleBody === 'string' && o.articleBody.length > (out.articleBody?.length ?? 0)) out.articleBody = o.articleBody;
    for (const k of ['@graph', 'mainEntity', 'mainEntityOfPage', 'hasPart']) if (o[k] && typeof o[k] === 'object') walk(o[k], depth + 1);
  };
  for (const s of doc.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      walk(JSON.parse(s.textContent ?? ''), 0);
    } catch {
      // a broken JSON-LD block says nothing
    }
  }
  return out;
}

/** An ISO UTC time, or null; a date-time without zone is read as UTC. */
export function isoUtc(value: string | null | undefined): string | null {
  if (!value) return null;
  let v = value.trim().replace(/^(\d{4}-\d{2}-\d{2})[ T]/, '$1T');
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v)) v += 'Z';
  else if (/^\d{4}-\d{2}-\d{2}$/.test(v)) v += 'T00:00:00Z';
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** The names of a byline: "By A, B and C" -> [A, B, C]. */
export function splitByline(byline: string | null | undefined): string[] {
  if (!byline) return [];
  const names = byline
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(by|von|par|por|di|door)\s+/i, '')
    // a date glued to the byline ("Nathan Willis March 25, 2015", "Lucas Nolan22 Dec 2016")
    .replace(/\s*\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d[\s\S]*$/i, '')
    .replace(/\d[\s\S]*$/, '')
    // "A (avec B et C)" -> A, B, C
    .replace(/\(\s*(?:avec|with|mit|con|com)\s+/gi, ', ')
    .replace(/[()]/g, ' ')
    .split(/\s*(?:,|;|\||\band\b|&|\bund\b|\bet\b|\by\b|\be\b)\s*/i)
    .map((n) =>
      n
        .replace(/^(by)\s+/i, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((n) => n.length > 1 && /\p{L}/u.test(n));
  return [...new Set(names)];
}

const absolute = (u: string | null, base: string): string | null => {
  if (!u) return null;
  try {
    return new URL(u, base).href;
  } catch {
    return null;
  }
};

const primaryTag = (lang: string | null | undefined): string | null => {
  const t = lang?.trim().split(/[-_]/)[0]?.toLowerCase();
  return t && /^[a-z]{2,3}$/.test(t) ? t : null;
};

const tidyText = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.replace(/[\s\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** Letters and digits in a text: its size in any script. */
const letters = (text: string): number => text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;

type El = Doc['body'];

const BLOCK = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'MAIN',
  'BLOCKQUOTE',
  'PRE',
  'UL',
  'OL',
  'LI',
  'DL',
  'DT',
  'DD',
  'TABLE',
  'THEAD',
  'TBODY',
  'TFOOT',
  'TR',
  'FIGURE',
  'FIGCAPTION',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HR',
  'BR',
  'CAPTION',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
]);
const CELL = new Set(['TD', 'TH']);

/** The text of an element, a line per block (paragraph, list item, table row), cells apart. */
export function blockText(root: El): string {
  const out: string[] = [];
  const walk = (n: El): void => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out.push(c.textContent ?? '');
      else if (c.nodeType === 1) {
        const tag = (c as El).tagName;
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') continue;
        const block = BLOCK.has(tag);
        if (block) out.push('\n');
        walk(c as El);
        if (block) out.push('\n');
        else if (CELL.has(tag)) out.push('\t');
      }
    }
  };
  walk(root);
  return out
    .join('')
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0\r\f\v]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

/** Names of boxes that are not the article: newsletters, cookies, related stories, sharing. */
const BOILERPLATE_NAME =
  /(^|[\s_-])(newsletters?|subscribe|subscription|sign-?up|cookies?|cookie-?(banner|consent|notice)|consent|gdpr|paywall|related|recommended|recommendations|read-?more|more-?stories|also-?read|promo|share|sharing|share-?bar|social|outbrain|taboola|advert|advertisement|sponsored)([\s_-]|$)/i;
/** A line that sends the reader elsewhere. */
const BOILERPLATE_LINE =
  /^(read more|read next|related( stories| articles| coverage)?:?|also read|recommended( for you)?|sign up|subscribe( now)?|click here|follow us|share this)\b/i;

const linkLetters = (el: Pick<El, 'querySelectorAll'>): number => {
  let n = 0;
  for (const a of el.querySelectorAll('a')) n += letters(a.textContent ?? '');
  return n;
};

/** Remove the boilerplate Readability keeps inside an article (never most of the article). */
function removeBoilerplate(root: El, removed: string[]): void {
  const total = letters(root.textContent ?? '');
  // Readability's article is not in the document (isConnected is false): still under the root?
  const inside = (el: Element): boolean => {
    for (let n: unknown = el; n; n = (n as Element).parentElement) if (n === root) return true;
    return false;
  };
  for (const el of [...root.querySelectorAll('[class], [id], [aria-label], [data-component]')]) {
    if (!inside(el)) continue;
    const name = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('data-component') ?? ''}`;
    if (!BOILERPLATE_NAME.test(name)) continue;
    const n = letters(el.textContent ?? '');
    if (n < total * 0.25) {
      removed.push(el.textContent ?? '');
      el.remove();
    }
  }
  for (const el of [...root.querySelectorAll('p, li, div, h2, h3, h4, strong')]) {
    if (!inside(el) || el.querySelector('p, li, div')) continue;
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (text.length > 200 || !BOILERPLATE_LINE.test(text)) continue;
    const n = letters(text);
    if (n === 0 || linkLetters(el) >= n * 0.5 || /^(read more|related|also read)\b/i.test(text)) {
      removed.push(text);
      el.remove();
    }
  }
}

/** articleBody as text: its paragraphs as the page wrote them (some bodies carry HTML). */
const bodyText = (body: string): string => {
  const plain = /<\/?(p|br|div)\b/i.test(body) ? blockText(parseHTML(`<!doctype html><html><body>${body}</body></html>`).document.body) : body;
  return tidyText(plain.replace(/\r\n?/g, '\n').replace(/\n/g, '\n\n'));
};

/** A page with (almost) no markup around its text: a text served as HTML. */
const bareText = (document: Doc): string | null => {
  const body = document.body;
  if (!body || body.querySelector('p, div, article, main, section, table, li')) return null;
  return tidyText(body.textContent ?? '');
};

function parseDocument(html: string): Doc {
  const { document } = parseHTML(html);
  if (document.documentElement && document.body) return document;
  // text with no <html> or <body>: linkedom leaves the document without an element
  return parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`).document;
}

export function extractArticle(html: string, url: string): ExtractResult {
  return extractWithBoilerplate(html, url).result;
}

/** extractArticle, with the texts of the boilerplate it removed from Readability's article. */
export function extractWithBoilerplate(html: string, url: string): { result: ExtractResult; boilerplate: string[] } {
  const boilerplate: string[] = [];
  return { result: extract(html, url, boilerplate), boilerplate };
}

function extract(html: string, url: string, boilerplate: string[]): ExtractResult {
  const document = parseDocument(html);
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href')?.trim() || meta(document, 'og:url');
  // metadata before Readability, which rewrites the document
  const ld = readJsonLd(document);
  const published = meta(document, 'article:published_time', 'og:published_time') ?? ld.datePublished;
  const ogSite = meta(document, 'og:site_name');
  const htmlLang = primaryTag(document.documentElement?.getAttribute('lang')) ?? primaryTag(meta(document, 'og:locale'));
  const image = absolute(meta(document, 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src'), url);
  const bare = bareText(document);

  // linkedom has no document URL: give Readability the page's (and its <base href>) so that the
  // links and images of the article's HTML come out absolute
  const base = absolute(document.querySelector('base[href]')?.getAttribute('href') ?? null, url) ?? url;
  Object.defineProperty(document, 'baseURI', { value: base, configurable: true });
  Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
  let article: ReturnType<Readability<El>['parse']>;
  try {
    article = new Readability<El>(document as unknown as Document, { serializer: (el) => el as unknown as El, keepClasses: true }).parse();
  } catch {
    article = null; // a document Readability cannot walk: the fallbacks below
  }
  let text = '';
  let content: string | undefined;
  let linkShare = 0;
  if (article?.content) {
    const root = article.content;
    removeBoilerplate(root, boilerplate);
    text = blockText(root);
    linkShare = linkLetters(root) / Math.max(1, letters(text));
    for (const el of root.querySelectorAll('[class]')) if (el.getAttribute('class') !== 'page') el.removeAttribute('class');
    content = root.innerHTML;
  }
  // JSON-LD articleBody: the text when Readability found much less of it
  const ldText = ld.articleBody ? bodyText(ld.articleBody) : '';
  if (letters(ldText) >= 150 && letters(text) < letters(ldText) * 0.7) {
    text = ldText;
    content = ldText
      .split('\n\n')
      .map((p) => `<p>${p.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`)
      .join('');
    linkShare = 0;
  }
  if (bare && letters(bare) > letters(text)) {
    text = bare;
    content = undefined;
    linkShare = 0;
  }
  if (letters(text) < 150) return { skipped: 'not an article: too little text (fewer than 150 letters of article text)' };
  if (linkShare > 0.5) return { skipped: 'not an article: a list of links (most of its text is link text)' };
  const title = (article?.title || meta(document, 'og:title') || document.querySelector('title')?.textContent || '').replace(/\s+/g, ' ').trim();
  return {
    title,
    text,
    html: content,
    authors: splitByline(article?.byline),
    pub_date: isoUtc(published) ?? isoUtc(article?.publishedTime),
    site_name: ogSite ?? article?.siteName?.trim() ?? null,
    language: htmlLang ?? primaryTag(article?.lang) ?? detectLanguage(title, text),
    image_url: image,
    excerpt: article?.excerpt?.replace(/\s+/g, ' ').trim() || null,
    canonical_url: absolute(canonical ?? null, url),
  };
}
