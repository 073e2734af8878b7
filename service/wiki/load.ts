/**
 * Loading encyclopedia content: MediaWiki XML exports (.xml, .xml.bz2, streamed) and saved
 * Wikipedia HTML pages, a file or a folder of them. Only main-namespace articles; redirects are
 * counted, not loaded. Unchanged articles (same content hash) are skipped: loading twice changes
 * nothing. A malformed page is reported (file, line, title) and the rest is loaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../search/embedder.js';
import { readDump, type DumpPage } from './dump.js';
import { parseWikipediaHtml } from './html.js';
import { parseWikitext } from './wikitext.js';
import { articleUrl, type WikiArticle } from './model.js';
import { chunkArticle, embeddingText } from './chunk.js';
import { articleHash, WikiRepo, type PreparedArticle } from './store.js';

export interface LoadProblem {
  file: string;
  /** line of the page in an XML file */
  line: number | null;
  /** the page's title when known */
  title: string | null;
  message: string;
}

export interface LoadReport {
  files: number;
  /** pages read (XML pages and HTML files that are MediaWiki pages) */
  pages: number;
  /** articles written (new or changed) */
  loaded: number;
  /** articles unchanged since the last load */
  unchanged: number;
  redirects: number;
  /** pages outside the main namespace (talk, user, category, file, ...) */
  otherNamespaces: number;
  /** HTML files that are not MediaWiki article pages */
  notArticles: number;
  chunks: number;
  problems: LoadProblem[];
}

export interface LoadOptions {
  embedder: Embedder | null;
  /** called with each batch written (the service's index adds them) */
  onWritten?: (batch: PreparedArticle[]) => void;
  onProgress?: (r: LoadReport, file: string) => void;
  batchSize?: number;
  /** stops the load between pages (service shutdown); what was written stays */
  signal?: AbortSignal;
}

const WIKI_FILE = /\.(xml|xml\.bz2|bz2|html?)$/i;

/** The files a path names: itself, or the wiki files under a folder (sorted). */
export function wikiFiles(p: string): string[] {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return [p];
  const out: string[] = [];
  for (const e of fs.readdirSync(p, { withFileTypes: true })) {
    const f = path.join(p, e.name);
    if (e.isDirectory()) out.push(...wikiFiles(f));
    else if (WIKI_FILE.test(e.name)) out.push(f);
  }
  return out.sort();
}

/** A dump page as an article (the export's site base gives the URL's host). */
export function pageArticle(page: DumpPage, site: string): WikiArticle {
  const parsed = parseWikitext(page.text);
  return {
    url: articleUrl(site, page.title),
    title: page.title,
    pageId: page.id,
    revisionId: page.revisionId,
    wikibaseItem: null,
    categories: parsed.categories,
    timestamp: page.timestamp!,
    created: page.created,
    textBytes: page.bytes ?? Buffer.byteLength(page.text),
    links: parsed.links,
    sections: parsed.sections.filter((s) => s.text || s.level === 0),
    source: 'xml',
  };
}

export async function loadWiki(repo: WikiRepo, target: string, opts: LoadOptions): Promise<LoadReport> {
  const report: LoadReport = { files: 0, pages: 0, loaded: 0, unchanged: 0, redirects: 0, otherNamespaces: 0, notArticles: 0, chunks: 0, problems: [] };
  const size = opts.batchSize ?? 32;
  let batch: WikiArticle[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const known = await repo.hashes(batch.map((a) => a.url));
    // the last copy of a page in a batch wins
    const todo = [...new Map(batch.map((a) => [a.url, a])).values()].filter((a) => known.get(a.url) !== articleHash(a));
    report.unchanged += batch.length - todo.length;
    batch = [];
    const prepared: PreparedArticle[] = todo.map((article) => ({ article, chunks: chunkArticle(article), vectors: null }));
    if (opts.embedder) {
      const texts = prepared.flatMap((p) => p.chunks.map((c) => embeddingText(p.article.title, c)));
      const vecs: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 128) vecs.push(...(await opts.embedder.embed(texts.slice(i, i + 128))));
      let k = 0;
      for (const p of prepared) p.vectors = p.chunks.map(() => vecs[k++]!);
    }
    await repo.write(prepared, opts.embedder?.model ?? null);
    report.loaded += prepared.length;
    report.chunks += prepared.reduce((n, p) => n + p.chunks.length, 0);
    opts.onWritten?.(prepared);
  };
  const add = async (a: WikiArticle) => {
    if (opts.signal?.aborted) throw new Error('the load was stopped (the service is shutting down)');
    batch.push(a);
    if (batch.length >= size) await flush();
  };

  for (const file of wikiFiles(target)) {
    report.files++;
    const name = path.basename(file);
    if (/\.html?$/i.test(name)) {
      let html: string;
      try {
        html = fs.readFileSync(file, 'utf8');
      } catch (e) {
        report.problems.push({ file, line: null, title: null, message: (e as Error).message });
        continue;
      }
      // not a MediaWiki page at all: skipped without parsing
      if (!html.includes('mw-content-text')) {
        report.notArticles++;
        continue;
      }
      const a = parseWikipediaHtml(html);
      if (!a) report.notArticles++;
      else {
        report.pages++;
        await add(a);
      }
      continue;
    }
    let site = 'https://en.wikipedia.org';
    try {
      for await (const ev of readDump(file)) {
        if (ev.kind === 'site') {
          try {
            if (ev.base) site = new URL(ev.base).origin;
          } catch {
            /* keep the default */
          }
        } else if (ev.kind === 'error') {
          report.problems.push({ file, line: ev.line, title: ev.title, message: ev.message });
        } else {
          const page = ev.page;
          report.pages++;
          if (page.ns !== 0) report.otherNamespaces++;
          else if (page.redirect !== null || /^\s*#redirect\s*\[\[/i.test(page.text)) report.redirects++;
          else if (!page.timestamp) report.problems.push({ file, line: page.line, title: page.title, message: 'revision without a valid <timestamp>' });
          else {
            let a: WikiArticle;
            try {
              a = pageArticle(page, site);
            } catch (e) {
              report.problems.push({ file, line: page.line, title: page.title, message: `wikitext not parsed: ${(e as Error).message}` });
              continue;
            }
            await add(a);
          }
        }
        opts.onProgress?.(report, file);
      }
    } catch (e) {
      report.problems.push({ file, line: null, title: null, message: `unreadable (${(e as Error).message}); the pages before were loaded` });
    }
  }
  await flush();
  return report;
}

/** One line per problem: `file:line: page "Title": message`. */
export const describeProblem = (p: LoadProblem) =>
  `${p.file}${p.line !== null ? `:${p.line}` : ''}: ${p.title !== null ? `page "${p.title}": ` : ''}${p.message}`;
