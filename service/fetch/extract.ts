/**
 * The article of a fetched page: `@mozilla/readability` on its own light DOM (document.ts), checked
 * against the page's own JSON-LD `articleBody`, then cleaned of the boilerplate Readability keeps.
 *
 * Chosen by measurement (bench/extract.ts: Readability, defuddle, @extractus/article-extractor,
 * Postlight Parser and trafilatura on the shared Readability pages and on real pages other
 * libraries ship with their expected text; docs/service.md, "Fetching pages"):
 * - Readability finds the article (no `isProbablyReaderable` gate: it said no to short-paragraph
 *   CJK pages and to pages whose article sits in `<div>`s, which Readability reads well);
 * - JSON-LD `articleBody` is the text when Readability found much less of it (a page whose body is
 *   built by script, or a teaser page) or nothing;
 * - boilerplate inside the article is removed: boxes named for newsletters, subscriptions, cookies,
 *   consent, related or recommended stories, teasers, sharing, promotion, tags, ratings, author
 *   boxes, comment sections, entry footers and meta lines, video players; `<nav>`; picture captions
 *   and credits (`<figcaption>`, boxes named caption or credit, of at most 300 letters); "Read
 *   more"/"Related:" link lines; the heading of a list of other pages ("See also", "Mehr zum
 *   Thema", "Lire aussi") with the links after it; lines that only work the page ("Back to
 *   overview", "Print", "Was this article helpful?") and copyright lines;
 * - a page with no markup around its text (served as HTML) is its text;
 * - a page built by script that gives no article but a copy of it in a `<noscript>` is read from
 *   that copy;
 * - tables and lists are kept (one row or item a line in the text).
 *
 * A page is `{skipped: reason}` only when no text of an article is found: fewer than 150 letters
 * or digits (as Readability found it, or fewer than 50 once the boilerplate is out), or a list of
 * links (most of its text in links: a front page's headlines).
 *
 * Metadata, first source that has it: `pub_date` article:published_time, JSON-LD
 * datePublished, Readability's publishedTime (ISO UTC; a time without zone is read as UTC);
 * `site_name` og:site_name, then Readability's; `language` `<html lang>`, then og:locale, then
 * detected from the text (service/text/language.ts); `image_url` og:image (then
 * twitter:image), made absolute against the page URL.
 */
import { Readability } from '@mozilla/readability';
import { detectLanguage } from '../text/language.js';
import { elementsOf, holds, type LDocument, type LElement, parseDocument } from './document.js';

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

/** The `<meta>` contents by property and name (the first of each). */
function metaOf(doc: LDocument): Map<string, string> {
  const out = new Map<string, string>();
  for (const el of doc.getElementsByTagName('meta')) {
    const v = el.getAttribute('content')?.trim();
    if (!v) continue;
    for (const k of [el.getAttribute('property'), el.getAttribute('name')]) if (k && !out.has(k)) out.set(k, v);
  }
  return out;
}

const meta = (metas: Map<string, string>, ...keys: string[]): string | null => {
  for (const k of keys) {
    const v = metas.get(k);
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

function readJsonLd(doc: LDocument): JsonLd {
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
  for (const s of doc.getElementsByTagName('script')) {
    if (s.getAttribute('type')?.trim().toLowerCase() !== 'application/ld+json') continue;
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
const letters = (text: string): number => {
  // counted by runs, not a match per letter: the text of a whole page is counted this way
  let n = 0;
  for (const m of text.matchAll(LETTER_RUNS)) n += m[0].length;
  return n;
};
const LETTER_RUNS = /[\p{L}\p{N}]+/gu;

type El = LElement;

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

/**
 * The text of an element, a line per block (paragraph, list item, table row), cells apart. A line
 * break in the markup is a space, as a browser shows it (a table written a tag a line stays a row
 * a line), but in `<pre>`.
 */
export function blockText(root: El): string {
  const out: string[] = [];
  let pre = 0;
  const walk = (n: El): void => {
    for (const c of n.childNodes) {
      if (c.nodeType === 3) out.push(pre ? (c.textContent ?? '') : (c.textContent ?? '').replace(/[\r\n]+/g, ' '));
      else if (c.nodeType === 1) {
        const tag = (c as El).tagName;
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') continue;
        const block = BLOCK.has(tag);
        if (block) out.push('\n');
        if (tag === 'PRE') pre++;
        walk(c as El);
        if (tag === 'PRE') pre--;
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
  /(^|[\s_-])(newsletters?|subscribe|subscription|sign-?up|cookies?|cookie-?(banner|consent|notice)|consent|gdpr|paywall|related|recommended|recommendations|read-?more|more-?stories|also-?read|promo|share|sharing|share-?bar|social|outbrain|taboola|advert|advertisement|sponsored|tags|tag-?(list|cloud)|ratings?|teasers?|entry-?(utility|footer|meta)|post-?meta|meta-?data|reading-?time)([\s_-]|$)/i;
/**
 * Parts of names that mark a box as not the article wherever they sit in a name ("c-native-newsletterbox",
 * "BorlabsCookie", "relatedlinks", "author-bio-content"): the discard list of trafilatura's xpaths.py
 * (related, newsletter, cookie, author boxes, ratings, comment sections; not a `comment` alone, which code highlighting
 * names its comments) as parts of a class or id.
 */
const BOILERPLATE_PART =
  /newsletter|cookie|related|recommend|outbrain|taboola|author-?(bio|box|info|description)|about-?(the-?)?author|post-?ratings?|kommentare|comments|comment-?(section|list|area|form)|disclaimer|video-?(resource|asset|transcript|player|details|desc)|ad-?feedback|right-?rail|next-?(page|post|story)|post-?navigation|print-?(page|button|link)/i;
/** Names of a picture's caption or credit line (not of a box "with" or "without" a caption). */
const CAPTION_NAME = /(^|[\s_-])(?<!(no|has|with|without)[_-]?)(captions?|caption-?text|credits?|image-?credit|photo-?credit|copyright)([\s_-]|$)/i;
/** A caption is a line or two: more is not one, whatever its name. */
const CAPTION_LETTERS = 300;
/** A line that sends the reader elsewhere. */
const BOILERPLATE_LINE =
  /^(read more|read next|related( stories| articles| coverage)?:?|also read|recommended( for you)?|sign up|subscribe( now)?|click here|follow us|share this)\b/i;
/**
 * The heading of a list of other pages ("More on this", "Mehr zum Thema", "Lire aussi"), in the
 * languages of the gathered pages: as a whole line of at most 80 letters it goes, with the links
 * that follow it.
 */
const RELATED_LEAD = new RegExp(
  `^(${[
    'related( (stories|articles|posts|coverage|content|links|topics))?',
    'read (more|next|also)',
    'also read',
    'more (on|about|from) ',
    'more stories',
    'see also',
    'further reading',
    'you (may|might) also (like|be interested)',
    'recommended( for you| stories| articles)?',
    'mehr (zum thema|zu |lesen|themen|artikel|dazu|aus |vom |von )',
    '(zum )?weiterlesen',
    '(lesen sie|lies) (auch|mehr|weiter)',
    'auch interessant',
    'das könnte (sie|dich) (auch )?interessieren',
    'schon gelesen',
    '(empfohlene|ähnliche|verwandte|weitere) (beiträge|artikel|themen|nachrichten|meldungen|news|inhalte)',
    'siehe auch',
    '(à )?lire aussi',
    'voir aussi',
    'sur le même sujet',
    'le(e|er) (también|más)',
    'te puede interesar',
    'noticias relacionadas',
    'leggi anche',
    'czytaj (też|także|więcej)',
    'zobacz (też|także)',
    'lees (ook|meer)',
  ].join('|')})`,
  'i',
);
/** A line that only works the page: back to a list, print, share, rate, a loading notice. */
const NAVIGATION_LINE =
  /^(zurück( zur (übersicht|liste|listenansicht|startseite))?|zur übersicht|back( to (top|overview|list))?|drucken|print( this)?|teilen|share|loading\.*|lade weitere inhalte|war (der|dieser) (artikel|beitrag) (nützlich|hilfreich)\??|was this (article|page|post) (helpful|useful)\??|found this helpful|(möchten sie )?(den|diesen) (artikel|beitrag) teilen\??|diese geschichte teilen)$/i;
/** A copyright line ("© 2020 CBS Interactive Inc. All Rights Reserved."). */
const COPYRIGHT_LINE = /^(©|\(c\)\s|copyright\b|alle rechte vorbehalten|all rights reserved)/i;

const linkLetters = (el: El): number => {
  let n = 0;
  for (const a of el.getElementsByTagName('a')) n += letters(a.textContent ?? '');
  return n;
};

const LINE_TAGS = new Set(['P', 'LI', 'DIV', 'H2', 'H3', 'H4', 'STRONG']);
const BLOCK_TAGS = new Set(['P', 'LI', 'DIV']);
const TEXT_BLOCKS = new Set(['P', 'DIV', 'ARTICLE', 'MAIN', 'SECTION', 'TABLE', 'LI']);

/** Remove the boilerplate Readability keeps inside an article (never most of the article). */
function removeBoilerplate(root: El, removed: string[]): void {
  const total = letters(root.textContent ?? '');
  // still under the root (not in a box removed before)?
  const inside = (el: El): boolean => {
    for (let n: El | null = el; n; n = n.parentNode) if (n === root) return true;
    return false;
  };
  for (const el of root.getElementsByTagName('*')) {
    if (el.tagName === 'NAV' && inside(el)) {
      // navigation is never the article
      removed.push(el.textContent ?? '');
      el.remove();
      continue;
    }
    const name = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('data-component') ?? ''}`;
    const caption = el.tagName === 'FIGCAPTION' || CAPTION_NAME.test(name);
    if (!(caption || BOILERPLATE_NAME.test(name) || BOILERPLATE_PART.test(name)) || !inside(el)) continue;
    const n = letters(el.textContent ?? '');
    if (n < total * 0.25 && (!caption || n <= CAPTION_LETTERS)) {
      removed.push(el.textContent ?? '');
      el.remove();
    }
  }
  const drop = (el: El, text = el.textContent ?? '') => {
    removed.push(text);
    el.remove();
  };
  for (const el of elementsOf(root, LINE_TAGS)) {
    if (!inside(el) || holds(el, BLOCK_TAGS)) continue;
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (text.length > 200) continue;
    const n = letters(text);
    const linked = () => n === 0 || linkLetters(el) >= n * 0.5;
    if (NAVIGATION_LINE.test(text.replace(/[.:!…»>\s]+$/, '')) || COPYRIGHT_LINE.test(text)) drop(el, text);
    else if (RELATED_LEAD.test(text) && n <= 80) {
      // the heading of a list of other pages: it and the links after it (up to the first paragraph
      // that is more than links), from the block that is the heading line
      let line = el;
      while (line.parentNode && line.parentNode !== root && (line.parentNode.textContent ?? '').replace(/\s+/g, ' ').trim() === text) line = line.parentNode;
      for (let next = line.nextSibling; next; ) {
        const after = next.nextSibling;
        if (next.nodeType === 1) {
          const t = letters(next.textContent ?? '');
          if (t > 0 && linkLetters(next as El) < t * 0.5) break;
          drop(next as El, blockText(next as El));
        } else if ((next.textContent ?? '').trim()) break;
        next = after;
      }
      drop(line, text);
    } else if (BOILERPLATE_LINE.test(text) && (/^(read more|related|also read)\b/i.test(text) || linked())) drop(el, text);
    else if (RELATED_LEAD.test(text) && linked()) drop(el, text);
  }
}

/** articleBody as text: its paragraphs as the page wrote them (some bodies carry HTML). */
const bodyText = (body: string): string => {
  const plain = /<\/?(p|br|div)\b/i.test(body) ? blockText(parseDocument(body).body) : body;
  return tidyText(plain.replace(/\r\n?/g, '\n').replace(/\n/g, '\n\n'));
};

/** A page with (almost) no markup around its text: a text served as HTML. */
const bareText = (document: LDocument): string | null => (holds(document.body, TEXT_BLOCKS) ? null : tidyText(document.body.textContent ?? ''));

/** The steps Readability (0.6.0, `parse`) takes on the document before it looks for the article. */
interface ReadabilitySteps {
  _unwrapNoscriptImages(doc: LDocument): void;
  _removeScripts(doc: LDocument): void;
  _prepDocument(): void;
}

/** What Readability's `innerHTML` of the page is while it runs: the page is read again when it is set back. */
const PAGE_KEPT = '\u0000the page as it was\u0000';

/**
 * Readability on the document. Readability keeps the page's HTML (`body.innerHTML`) before it
 * looks for the article, to start again with looser rules when it found too little, and serialises
 * the whole page for it on every page, most of which never retry. Here the body
 * gives a token instead; a retry sets the token back, and the body is then read again from the page
 * and prepared again as Readability prepared it (`parse`: noscript images, scripts, `_prepDocument`),
 * which is the tree its serialisation would have given.
 */
function readability(document: LDocument, html: string, url: string): ReturnType<Readability<El>['parse']> {
  const reader = new Readability<El>(document as unknown as Document, { serializer: (el) => el as unknown as El, keepClasses: true });
  const steps = reader as unknown as ReadabilitySteps;
  const body = document.body;
  Object.defineProperty(body, 'innerHTML', {
    configurable: true,
    get: () => PAGE_KEPT,
    set: (value: string) => {
      if (value !== PAGE_KEPT) throw new Error('extract: Readability set the page to other HTML than it kept');
      for (const c of [...body.childNodes]) c.remove();
      for (const c of [...parseDocument(html, url).body.childNodes]) body.appendChild(c);
      steps._unwrapNoscriptImages(document);
      steps._removeScripts(document);
      steps._prepDocument();
    },
  });
  try {
    return reader.parse();
  } finally {
    delete (body as { innerHTML?: string }).innerHTML;
  }
}

export function extractArticle(html: string, url: string): ExtractResult {
  return extractWithBoilerplate(html, url).result;
}

/** extractArticle, with the texts of the boilerplate it removed from Readability's article. */
export function extractWithBoilerplate(html: string, url: string): { result: ExtractResult; boilerplate: string[] } {
  const boilerplate: string[] = [];
  return { result: extract(html, url, boilerplate), boilerplate };
}

/**
 * The page as it is without script, when it holds its text in a `<noscript>` (a page built by
 * script that gives a copy of its article to readers without it; Readability removes every
 * `<noscript>`): the page's head with, as its body, the `<noscript>` of the most text, of 150
 * letters or more. Read before Readability, which rewrites the document.
 */
function withoutScript(document: LDocument): string | null {
  let best: El | null = null;
  let most = 149;
  for (const el of document.body.getElementsByTagName('noscript')) {
    const n = letters(el.textContent ?? '');
    if (n > most) {
      best = el;
      most = n;
    }
  }
  const lang = document.documentElement.getAttribute('lang')?.replace(/[^\w-]/g, '');
  return best ? `<html${lang ? ` lang="${lang}"` : ''}><head>${document.head.innerHTML}</head><body>${best.innerHTML}</body></html>` : null;
}

function extract(html: string, url: string, boilerplate: string[], again = false): ExtractResult {
  // the page URL is the document's: Readability makes the article's links and images absolute
  // against it (or the page's <base href>)
  const document = parseDocument(html, url);
  // metadata before Readability, which rewrites the document
  const metas = metaOf(document);
  const canonical =
    document
      .getElementsByTagName('link')
      .find((l) => l.getAttribute('rel')?.trim().toLowerCase() === 'canonical')
      ?.getAttribute('href')
      ?.trim() || meta(metas, 'og:url');
  const ld = readJsonLd(document);
  const published = meta(metas, 'article:published_time', 'og:published_time') ?? ld.datePublished;
  const ogSite = meta(metas, 'og:site_name');
  const htmlLang = primaryTag(document.documentElement.getAttribute('lang')) ?? primaryTag(meta(metas, 'og:locale'));
  const image = absolute(meta(metas, 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src'), url);
  const bare = bareText(document);
  const noscript = again ? null : withoutScript(document);
  const pageTitle = document.title;

  let article: ReturnType<Readability<El>['parse']>;
  try {
    article = readability(document, html, url);
  } catch {
    article = null; // a document Readability cannot walk: the fallbacks below
  }
  let text = '';
  let content: string | undefined;
  let linkShare = 0;
  // the article's size as Readability found it: the boilerplate taken out of a short article (a
  // copyright line under a photo story) does not make it none
  let found = 0;
  if (article?.content) {
    const root = article.content;
    found = letters(root.textContent ?? '');
    removeBoilerplate(root, boilerplate);
    text = blockText(root);
    linkShare = linkLetters(root) / Math.max(1, letters(text));
    for (const el of root.getElementsByTagName('*')) if (el.hasAttribute('class') && el.getAttribute('class') !== 'page') el.removeAttribute('class');
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
  if (bare && letters(bare) >= letters(text)) {
    text = bare;
    content = undefined;
    linkShare = 0;
  }
  const tooLittle = letters(text) < 150 && (found < 150 || letters(text) < 50);
  if (tooLittle && noscript) {
    const r = extract(noscript, url, boilerplate, true);
    if (!('skipped' in r)) return r;
  }
  if (tooLittle) return { skipped: 'not an article: too little text (fewer than 150 letters of article text)' };
  if (linkShare > 0.5) return { skipped: 'not an article: a list of links (most of its text is link text)' };
  const title = (article?.title || meta(metas, 'og:title') || pageTitle || '').replace(/\s+/g, ' ').trim();
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
