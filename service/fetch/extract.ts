/**
 * The article of a fetched page: `@mozilla/readability` on a `linkedom` document.
 *
 * A page that is not an article is `{skipped: reason}`: Readability's `isProbablyReaderable`
 * says no, or the page calls itself a website front (`og:type` `website` with a canonical URL
 * that is a home or section page, e.g. `//us.yahoo.com/news/`), or Readability finds no content.
 *
 * Metadata, first source that has it: `pub_date` article:published_time, JSON-LD
 * datePublished, Readability's publishedTime (ISO UTC; a time without zone is read as UTC);
 * `site_name` og:site_name, then Readability's; `language` `<html lang>`, then og:locale, then
 * detected from the text (service/enrich/language.ts); `image_url` og:image (then
 * twitter:image), made absolute against the page URL.
 */
import { isProbablyReaderable, Readability } from '@mozilla/readability';
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

/** datePublished of the first JSON-LD object (or @graph member) that has one. */
function jsonLdDate(doc: Doc): string | null {
  const find = (v: unknown): string | null => {
    if (Array.isArray(v)) {
      for (const x of v) {
        const d = find(x);
        if (d) return d;
      }
      return null;
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.datePublished === 'string') return o.datePublished;
      return find(o['@graph']);
    }
    return null;
  };
  for (const s of doc.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      const d = find(JSON.parse(s.textContent ?? ''));
      if (d) return d;
    } catch {
      // a broken JSON-LD block says nothing
    }
  }
  return null;
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

/** Whether a URL is a home or section page (a path of at most one segment). */
const frontPath = (u: string, base: string): boolean => {
  try {
    return new URL(u, base).pathname.split('/').filter(Boolean).length <= 1;
  } catch {
    return false;
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

export function extractArticle(html: string, url: string): ExtractResult {
  const { document } = parseHTML(html);
  if (!isProbablyReaderable(document as unknown as Document)) {
    return { skipped: 'not an article: too little article-like text (Readability isProbablyReaderable)' };
  }
  const ogType = meta(document, 'og:type')?.toLowerCase();
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href')?.trim() || meta(document, 'og:url');
  if (ogType === 'website' && canonical && frontPath(canonical, url)) {
    return { skipped: `not an article: a front page (og:type website, canonical ${canonical})` };
  }
  // metadata before Readability, which rewrites the document
  const published = meta(document, 'article:published_time', 'og:published_time') ?? jsonLdDate(document);
  const ogSite = meta(document, 'og:site_name');
  const htmlLang = primaryTag(document.documentElement?.getAttribute('lang')) ?? primaryTag(meta(document, 'og:locale'));
  const image = absolute(meta(document, 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src'), url);

  // linkedom has no document URL: give Readability the page's (and its <base href>) so that the
  // links and images of the article's HTML come out absolute
  const base = absolute(document.querySelector('base[href]')?.getAttribute('href') ?? null, url) ?? url;
  Object.defineProperty(document, 'baseURI', { value: base, configurable: true });
  Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
  const article = new Readability(document as unknown as Document).parse();
  if (!article || !article.textContent?.trim()) return { skipped: 'not an article: Readability found no content' };
  const title = (article.title ?? '').replace(/\s+/g, ' ').trim();
  const text = tidyText(article.textContent);
  return {
    title,
    text,
    html: article.content ?? undefined,
    authors: splitByline(article.byline),
    pub_date: isoUtc(published) ?? isoUtc(article.publishedTime),
    site_name: ogSite ?? article.siteName?.trim() ?? null,
    language: htmlLang ?? primaryTag(article.lang) ?? detectLanguage(title, text),
    image_url: image,
    excerpt: article.excerpt?.replace(/\s+/g, ' ').trim() || null,
    canonical_url: absolute(canonical ?? null, url),
  };
}
