/**
 * Reads the news corpus files (the layout below; loading: docs/service.md, "Loading") into raw articles. Nothing here is
 * enriched; ids are derived from the source so that loading twice gives the same articles.
 *
 * - news/headlines-2022.json: one article per distinct `link` (a link posted to several
 *   subreddits is one article with several source categories).
 * - news/bbc-fulltext-2004-2005/bbc-fulltext.jsonl: the files carry no URL and no date. We derive
 *   a stable URL `https://www.bbc.co.uk/news/<category>/<NNN>` (marked `url_derived`) and a
 *   publication time spread deterministically over 2004-2005 from the id (marked `date_derived`).
 */
import { UserError } from '../../lib/errors.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface RawArticle {
  articleId: string;
  /** `web`: a page fetched by URL indexing (index_urls, crawl) */
  source: 'headlines-2022' | 'bbc-2004-2005' | 'web';
  sourceKey: string;
  url: string;
  domain: string;
  title: string;
  /** body text, '' when the source has only a headline */
  text: string;
  /** a feed's summary of an article whose page was not read (index_urls with `metadata.feed_item`): enriched in place of `text`, which stays '' */
  feedSummary?: string;
  pubDate: Date;
  /** categories of the source (subreddits, BBC sections) */
  sourceCategories: string[];
  /** the source's own sentiment score, when it has one */
  sourceSentiment: number | null;
  urlDerived: boolean;
  dateDerived: boolean;
  /** what the page itself says (web pages): byline names, declared language, og:image */
  authors?: string[];
  language?: string;
  imageUrl?: string | null;
  /**
   * who may see it: null (or absent) the shared corpus, else the owner of the URL indexing job
   * that fetched it (`org:<id>` / `user:<id>`; service/indexing/runner.ts)
   */
  owner?: string | null;
}

/** UUID (v5 layout) from a name: the same source key always gives the same article id. */
export function stableUuid(name: string): string {
  const h = crypto.createHash('sha1').update(`newsflow:${name}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export class CorpusError extends UserError {}

export const CORPUS_FILES = {
  headlines: path.join('news', 'headlines-2022.json'),
  bbc: path.join('news', 'bbc-fulltext-2004-2005', 'bbc-fulltext.jsonl'),
} as const;

const normDomain = (d: string) =>
  d
    .trim()
    .toLowerCase()
    .replace(/^www\./, '');

export function readHeadlines(file: string): RawArticle[] {
  const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    title: string;
    domain: string;
    link: string;
    timestamp: number;
    category: string;
    sentiment: number;
  }[];
  if (!Array.isArray(rows)) throw new CorpusError(`${file}: expected a JSON array of headlines`);
  const byLink = new Map<string, RawArticle>();
  for (const r of rows) {
    if (!r.link || !r.title || !Number.isFinite(r.timestamp)) continue;
    const prev = byLink.get(r.link);
    if (prev) {
      if (!prev.sourceCategories.includes(r.category)) prev.sourceCategories.push(r.category);
      continue;
    }
    let domain = normDomain(r.domain ?? '');
    try {
      domain = normDomain(new URL(r.link).hostname) || domain;
    } catch {
      /* keep the given domain */
    }
    byLink.set(r.link, {
      articleId: stableUuid(`headlines-2022:${r.link}`),
      source: 'headlines-2022',
      sourceKey: r.link,
      url: r.link,
      domain,
      title: r.title.trim(),
      text: '',
      pubDate: new Date(r.timestamp * 1000),
      sourceCategories: [r.category],
      sourceSentiment: Number.isFinite(r.sentiment) ? r.sentiment : null,
      urlDerived: false,
      dateDerived: false,
    });
  }
  return [...byLink.values()];
}

const BBC_START = Date.UTC(2004, 0, 1);
const BBC_END = Date.UTC(2006, 0, 1);

export function readBbc(file: string): RawArticle[] {
  const out: RawArticle[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { id: string; category: string; title: string; text: string };
    const [section, num] = r.id.split('/');
    const h = crypto.createHash('sha1').update(r.id).digest().readUInt32BE(0);
    const when = BBC_START + Math.floor((h / 0xffffffff) * (BBC_END - BBC_START - 1));
    out.push({
      articleId: stableUuid(`bbc-2004-2005:${r.id}`),
      source: 'bbc-2004-2005',
      sourceKey: r.id,
      url: `https://www.bbc.co.uk/news/${section}/${num}`,
      domain: 'bbc.co.uk',
      title: r.title.trim(),
      text: r.text.trim(),
      pubDate: new Date(Math.floor(when / 1000) * 1000),
      sourceCategories: [r.category],
      sourceSentiment: null,
      urlDerived: true,
      dateDerived: true,
    });
  }
  return out;
}

/**
 * Read a corpus: a directory holding the shared layout (data/ or data/news/), or one file
 * (.json headlines or .jsonl full text).
 */
export function readCorpus(p: string): RawArticle[] {
  const abs = path.resolve(p);
  if (!fs.existsSync(abs)) throw new CorpusError(`corpus path ${abs} does not exist; point --corpus (or NEWSFLOW_CORPUS) at shared/data`);
  if (fs.statSync(abs).isFile()) {
    if (abs.endsWith('.jsonl')) return readBbc(abs);
    if (abs.endsWith('.json')) return readHeadlines(abs);
    throw new CorpusError(`${abs}: expected a .json headlines file or a .jsonl full-text file`);
  }
  const roots = [abs, path.dirname(abs)];
  const out: RawArticle[] = [];
  for (const [kind, rel] of Object.entries(CORPUS_FILES)) {
    const found = roots
      .map((r) => path.join(r, rel))
      .concat(roots.map((r) => path.join(r, rel.replace(/^news[\\/]/, ''))))
      .find((f) => fs.existsSync(f));
    if (found) out.push(...(kind === 'headlines' ? readHeadlines(found) : readBbc(found)));
  }
  if (out.length === 0) throw new CorpusError(`no corpus files under ${abs}; expected ${Object.values(CORPUS_FILES).join(' or ')}`);
  return out;
}
