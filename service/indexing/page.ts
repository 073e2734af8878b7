/**
 * What indexing keeps of a fetched page: the article (extract.ts) when it is one, else an
 * outline (title and visible text) so that every fetched page, article or not, is in the web
 * search index.
 */
import { parseHTML } from 'linkedom';
import { extractArticle, isoUtc, type ExtractedArticle } from '../fetch/extract.js';
import { detectLanguage } from '../enrich/language.js';

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

const BLOCKS = 'p,div,li,h1,h2,h3,h4,h5,h6,br,tr,section,article,header,footer,blockquote,pre,dd,dt,td,th,figcaption';

const tidy = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n')
    .slice(0, PAGE_TEXT_CHARS);

/** Title and visible text of any HTML page (scripts, styles and navigation left out). */
export function outline(html: string, url: string): Omit<ReadPage, 'article' | 'skipped'> {
  const { document } = parseHTML(html);
  const meta = (k: string) => document.querySelector(`meta[property="${k}"], meta[name="${k}"]`)?.getAttribute('content')?.trim() || null;
  const title = (meta('og:title') ?? document.querySelector('title')?.textContent ?? document.querySelector('h1')?.textContent ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const canonicalHref = document.querySelector('link[rel="canonical"]')?.getAttribute('href')?.trim() || meta('og:url');
  let canonical: string | null;
  try {
    canonical = canonicalHref ? new URL(canonicalHref, url).href : null;
  } catch {
    canonical = null;
  }
  for (const el of document.querySelectorAll('script,style,noscript,template,svg,nav,iframe,form')) el.remove();
  for (const el of document.querySelectorAll(BLOCKS)) el.appendChild(document.createTextNode('\n'));
  const text = tidy(document.body?.textContent ?? '');
  const lang = document.documentElement?.getAttribute('lang')?.trim().split(/[-_]/)[0]?.toLowerCase();
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
