/**
 * What indexing keeps of a fetched page: the article (extract.ts) when it is one, else an
 * outline (title and visible text) so that every fetched page, article or not, is in the web
 * search index.
 */
import { extractArticle, isoUtc, type ExtractedArticle } from '../fetch/extract.js';
import { parseDocument, type LElement } from '../fetch/document.js';
import { detectLanguage } from '../text/language.js';

export interface ReadPage {
  /** the article, or null with `skipped` saying why the page is not one */
  article: ExtractedArticle | null;
  skipped: string | null;
  title: string;
  text: string;
  canonical: string | null;
  siteName: string | null;
  language: string;
  /** ISO UTC */
  published: string | null;
}

/** At most this much text of a page is kept in the web index. */
export const PAGE_TEXT_CHARS = 200_000;

/** Elements whose text is put on a line of its own. */
const BLOCKS = new Set('p,div,li,h1,h2,h3,h4,h5,h6,br,tr,section,article,header,footer,blockquote,pre,dd,dt,td,th,figcaption'.toUpperCase().split(','));
/** Elements whose text is not the page's (parseDocument leaves script, style and template out already). */
const UNSHOWN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'NAV', 'IFRAME', 'FORM']);

const tidy = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n')
    .slice(0, PAGE_TEXT_CHARS);

/** The visible text under `el`, a block's text on a line of its own; one walk (the tree is at most MAX_DEPTH deep). */
function visibleText(el: LElement, out: string[]): void {
  for (const c of el.childNodes) {
    if (c.nodeType === 3) out.push(c.textContent);
    else if (c.nodeType === 1) {
      const tag = (c as LElement).tagName;
      if (UNSHOWN.has(tag)) continue;
      visibleText(c as LElement, out);
      if (BLOCKS.has(tag)) out.push('\n');
    }
  }
}

/**
 * Title and visible text of any HTML page (scripts, styles and navigation left out). Read on the
 * extraction's DOM (fetch/document.ts: a page's skeleton always there, nesting bounded), in one
 * walk: any body, markup only or none at all (200,000 `<`), costs linear time.
 */
export function outline(html: string, url: string): Omit<ReadPage, 'article' | 'skipped'> {
  const document = parseDocument(html, url);
  const metas = new Map<string, string>();
  for (const el of document.getElementsByTagName('meta')) {
    const v = el.getAttribute('content')?.trim();
    if (!v) continue;
    for (const k of [el.getAttribute('property'), el.getAttribute('name')]) if (k && !metas.has(k)) metas.set(k, v);
  }
  const meta = (k: string) => metas.get(k) ?? null;
  const first = (tag: string) => document.getElementsByTagName(tag)[0]?.textContent;
  const title = (meta('og:title') ?? first('title') ?? first('h1') ?? '').replace(/\s+/g, ' ').trim();
  const canonicalHref =
    document
      .getElementsByTagName('link')
      .find((l) => l.getAttribute('rel')?.trim().toLowerCase() === 'canonical')
      ?.getAttribute('href')
      ?.trim() || meta('og:url');
  let canonical: string | null;
  try {
    canonical = canonicalHref ? new URL(canonicalHref, url).href : null;
  } catch {
    canonical = null;
  }
  const parts: string[] = [];
  visibleText(document.body, parts);
  const text = tidy(parts.join(''));
  const lang = document.documentElement.getAttribute('lang')?.trim().split(/[-_]/)[0]?.toLowerCase();
  return {
    title: title || url,
    text,
    canonical,
    siteName: meta('og:site_name'),
    language: lang && /^[a-z]{2,3}$/.test(lang) ? lang : detectLanguage(title, text.slice(0, 5000)),
    published: isoUtc(meta('article:published_time')),
  };
}

export function readPage(html: string, url: string): ReadPage {
  const r = extractArticle(html, url);
  if ('skipped' in r) return { article: null, skipped: r.skipped, ...outline(html, url) };
  return {
    article: r,
    skipped: null,
    title: r.title || url,
    text: r.text.slice(0, PAGE_TEXT_CHARS),
    canonical: r.canonical_url,
    siteName: r.site_name,
    language: r.language,
    published: r.pub_date,
  };
}
