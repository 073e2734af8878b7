/**
 * A saved Wikipedia (MediaWiki) HTML page to an article: the parser output of #mw-content-text by
 * section (infobox rows and tables as lines; references, navigation boxes, edit links and
 * reference-only sections dropped), metadata from the page's own config, JSON-LD and footer.
 */
import { parseHTML } from 'linkedom';
import { articleUrl, type WikiArticle, type WikiSection } from './model.js';

/** Sections holding only references and links out; left out of the text. */
export const SKIPPED_SECTIONS = new Set([
  'references',
  'notes',
  'external links',
  'further reading',
  'sources',
  'citations',
  'bibliography',
  'footnotes',
  'notes and references',
  'references and notes',
  'see also',
]);

const DROP = [
  'script',
  'style',
  'noscript',
  '.mw-editsection',
  'sup.reference',
  '.reference',
  '.mw-references-wrap',
  'ol.references',
  '.reflist',
  '.navbox',
  '.vertical-navbox',
  '.toc',
  '#toc',
  '.metadata',
  '.noprint',
  '.mw-empty-elt',
  '.ambox',
  '.sistersitebox',
  '.hatnote',
  '.thumb',
  'figure',
  'annotation',
  '.mw-cite-backlink',
  '.printfooter',
  '#catlinks',
  '.catlinks',
  '.navbar',
  '.plainlinks.hlist',
  'link',
  'meta',
].join(',');

const clean = (s: string) =>
  s
    .replace(/\[\d+\]|\[citation needed\]|\[edit\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

function cfg(html: string, name: string): string | null {
  const m = new RegExp(`"${name}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*"|-?\\d+|true|false|!0|!1|null)`).exec(html);
  if (!m) return null;
  const v = m[1]!;
  if (v.startsWith('"')) return JSON.parse(v) as string;
  return v === '!0' ? 'true' : v === '!1' ? 'false' : v;
}

/** "28 October 2016, at 06:56" (the footer's last-modified line) as UTC. */
function footerDate(text: string): Date | null {
  const m = /(\d{1,2}) (January|February|March|April|May|June|July|August|September|October|November|December) (\d{4}), at (\d{2}):(\d{2})/.exec(text);
  if (!m) return null;
  const month = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].indexOf(m[2]!);
  return new Date(Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5])));
}

const date = (s: string | null | undefined) => {
  if (!s) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
};

type El = {
  tagName: string;
  textContent: string | null;
  children: ArrayLike<El>;
  querySelectorAll(s: string): ArrayLike<El>;
  getAttribute(n: string): string | null;
  classList: { contains(c: string): boolean };
  remove(): void;
};

function tableText(t: El): string {
  const lines: string[] = [];
  let header: string[] = [];
  for (const tr of Array.from(t.querySelectorAll('tr'))) {
    const cells = Array.from(tr.children).filter((c) => c.tagName === 'TH' || c.tagName === 'TD');
    const texts = cells.map((c) => clean(c.textContent ?? ''));
    if (cells.length && cells.every((c) => c.tagName === 'TH') && cells.length > 1) {
      header = texts;
      continue;
    }
    if (t.classList.contains('infobox') && cells.length === 2 && cells[0]!.tagName === 'TH') {
      if (texts[1]) lines.push(`${texts[0]}: ${texts[1]}`);
      continue;
    }
    const parts = texts.map((x, i) => (x && header[i] && header.length === texts.length ? `${header[i]}: ${x}` : x)).filter(Boolean);
    if (parts.length) lines.push(parts.join('; '));
  }
  return lines.join('\n');
}

/** The article in a saved page, or null when the page is not a main-namespace article (or a redirect). */
export function parseWikipediaHtml(html: string, fallbackUrl?: string): WikiArticle | null {
  const { document } = parseHTML(html);
  const content = (document.querySelector('#mw-content-text .mw-parser-output') ?? document.querySelector('#mw-content-text')) as unknown as El | null;
  if (!content) return null;
  const ns = cfg(html, 'wgNamespaceNumber');
  const bodyClass = document.body?.getAttribute('class') ?? '';
  if (ns !== null ? ns !== '0' : !/\bns-0\b/.test(bodyClass)) return null;
  if (cfg(html, 'wgIsRedirect') === 'true') return null;
  const canonical =
    document.querySelector('link[rel="canonical"]')?.getAttribute('href') ??
    /<!-- saved from url=\(\d+\)(\S+) -->/.exec(html)?.[1] ??
    document.querySelector('meta[property="og:url"]')?.getAttribute('content') ??
    fallbackUrl;
  const title =
    clean(document.querySelector('#firstHeading')?.textContent ?? '') || cfg(html, 'wgTitle') || (document.title ?? '').replace(/ - Wikipedia$/, '');
  if (!title) return null;
  let site = 'https://en.wikipedia.org';
  try {
    if (canonical) site = new URL(canonical).origin;
  } catch {
    /* keep the default */
  }
  const ld = /"dateModified"\s*:\s*"([^"]+)"[\s\S]*?/.exec(html)?.[1];
  const published = /"datePublished"\s*:\s*"([^"]+)"/.exec(html)?.[1];
  const footer = document.querySelector('#footer-info-lastmod')?.textContent ?? '';
  const timestamp = date(ld) ?? footerDate(footer) ?? new Date(0);
  const categories = Array.from(document.querySelectorAll('#mw-normal-catlinks ul li a') as unknown as ArrayLike<El>)
    .map((a) => clean(a.textContent ?? ''))
    .filter(Boolean);
  const links = new Set<string>();
  for (const a of Array.from(content.querySelectorAll('a[href]'))) {
    const m = /(?:^|wikipedia\.org)\/wiki\/([^#?]+)/.exec(a.getAttribute('href') ?? '');
    if (!m) continue;
    let t: string;
    try {
      t = decodeURIComponent(m[1]!).replace(/_/g, ' ');
    } catch {
      continue;
    }
    if (!t.includes(':')) links.add(t);
  }
  for (const el of Array.from(content.querySelectorAll(DROP))) el.remove();

  const sections: WikiSection[] = [{ heading: '', path: '', level: 0, text: '' }];
  const trail: string[] = [];
  let skipping = false;
  const blocks: string[][] = [[]];
  const walk = (el: El) => {
    for (const c of Array.from(el.children)) {
      const tag = c.tagName;
      const h = /^H([2-6])$/.exec(tag);
      if (h) {
        const level = Number(h[1]) - 1;
        const heading = clean(c.textContent ?? '');
        if (!heading) continue;
        trail.length = level - 1;
        trail[level - 1] = heading;
        if (level === 1) skipping = SKIPPED_SECTIONS.has(heading.toLowerCase());
        if (skipping) continue;
        sections.push({ heading, path: trail.filter(Boolean).join(' > '), level, text: '' });
        blocks.push([]);
        continue;
      }
      if (skipping) continue;
      if (tag === 'TABLE') {
        const t = tableText(c);
        if (t) blocks[blocks.length - 1]!.push(t);
      } else if (tag === 'UL' || tag === 'OL') {
        const items = Array.from(c.children)
          .filter((li) => li.tagName === 'LI')
          .map((li) => clean(li.textContent ?? ''))
          .filter(Boolean);
        if (items.length) blocks[blocks.length - 1]!.push(items.join('\n'));
      } else if (tag === 'P' || tag === 'BLOCKQUOTE' || tag === 'DL' || tag === 'PRE') {
        const t = clean(c.textContent ?? '');
        if (t) blocks[blocks.length - 1]!.push(t);
      } else if (tag === 'DIV' || tag === 'SECTION') {
        walk(c);
      }
    }
  };
  walk(content);
  sections.forEach((s, i) => (s.text = blocks[i]!.join('\n')));
  const kept = sections.filter((s) => s.text || s.level === 0);
  const text = kept.map((s) => s.text).join('\n');
  const num = (v: string | null) => (v && /^\d+$/.test(v) ? Number(v) : null);
  return {
    url: articleUrl(site, title),
    title,
    pageId: num(cfg(html, 'wgArticleId')),
    revisionId: num(cfg(html, 'wgRevisionId')),
    wikibaseItem: cfg(html, 'wgWikibaseItemId'),
    categories,
    timestamp,
    created: date(published),
    textBytes: Buffer.byteLength(text),
    links: [...links],
    sections: kept,
    source: 'html',
  };
}
