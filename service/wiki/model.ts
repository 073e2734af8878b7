/** An encyclopedia article as the wiki store keeps it: metadata, then its text by section. */
export interface WikiSection {
  /** the heading ("" for the lead, the text before the first heading) */
  heading: string;
  /** headings from the top level down to this one, joined with " > " ("" for the lead) */
  path: string;
  /** 0 for the lead, 1 for == h2 ==, 2 for === h3 ===, ... */
  level: number;
  text: string;
}

export interface WikiArticle {
  /** canonical URL, the article's key: https://<site>/wiki/<Title_with_underscores> */
  url: string;
  title: string;
  pageId: number | null;
  revisionId: number | null;
  /** Wikidata item (Q…), when the source gives it (saved HTML pages do; XML exports do not) */
  wikibaseItem: string | null;
  categories: string[];
  /** time of the revision loaded */
  timestamp: Date;
  /** time of the page's first revision, when the source gives it */
  created: Date | null;
  /** size of the source text in bytes (the wikitext of a dump; the article text of an HTML page) */
  textBytes: number;
  /** titles of the articles it links to (for the derived popularity) */
  links: string[];
  sections: WikiSection[];
  source: 'xml' | 'html';
}

/** `Title with spaces` -> `Title_with_spaces`, first letter upper-case (MediaWiki's canonical form). */
export function canonicalTitle(title: string): string {
  const t = title.trim().replace(/\s+/g, ' ');
  return (t.charAt(0).toUpperCase() + t.slice(1)).replace(/ /g, '_');
}

export function articleUrl(site: string, title: string): string {
  return `${site.replace(/\/+$/, '')}/wiki/${encodeURIComponent(canonicalTitle(title)).replace(/%2F/g, '/').replace(/%3A/g, ':')}`;
}
