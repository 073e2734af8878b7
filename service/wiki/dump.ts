/**
 * The MediaWiki XML export format (Special:Export, the dumps' pages-articles.xml[.bz2]) read as a
 * stream: bytes -> (bunzip2) -> SAX events -> one page at a time, so a dump of many GB needs the
 * memory of one page. Several revisions of a page (a history export): the last one is kept, the
 * first one's time is the page's creation time. A malformed page is reported with its line and
 * title and skipped; the pages after it are read.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import unbzip2 from 'unbzip2-stream';

export interface DumpPage {
  title: string;
  ns: number;
  id: number | null;
  /** target title when the page is a redirect */
  redirect: string | null;
  revisionId: number | null;
  timestamp: Date | null;
  /** first revision's time in the export */
  created: Date | null;
  model: string | null;
  text: string;
  bytes: number | null;
  /** line where the page starts */
  line: number;
}

export type DumpEvent =
  | { kind: 'site'; base: string | null; dbname: string | null }
  | { kind: 'page'; page: DumpPage }
  | { kind: 'error'; line: number; title: string | null; message: string };

const date = (s: string | undefined) => {
  if (!s) return null;
  const d = new Date(s.trim());
  return Number.isNaN(d.getTime()) ? null : d;
};

/** Read a dump file (.xml, or .bz2 compressed). */
export async function* readDump(file: string): AsyncGenerator<DumpEvent> {
  let source: Readable = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  if (/\.bz2$/i.test(file)) source = new Readable({ objectMode: false }).wrap(source.pipe(unbzip2()) as unknown as NodeJS.ReadableStream);
  yield* readDumpStream(source);
}

export async function* readDumpStream(source: AsyncIterable<Buffer | string>): AsyncGenerator<DumpEvent> {
  const parser = new SaxesParser({ position: true });
  const out: DumpEvent[] = [];
  const stack: string[] = [];
  let text = '';
  let page: (Partial<DumpPage> & { revs: number; bad: string | null; fields: Record<string, string> }) | null = null;
  let rev: Record<string, string> = {};
  const site: Record<string, string> = {};
  let inSite = false;

  parser.on('opentag', (t) => {
    const name = t.name.replace(/^.*:/, '');
    stack.push(name);
    text = '';
    if (name === 'siteinfo') inSite = true;
    else if (name === 'page') {
      if (page) out.push({ kind: 'error', line: page.line!, title: page.fields.title ?? null, message: 'page not closed before the next <page>' });
      page = { revs: 0, bad: null, fields: {}, line: parser.line, redirect: null, bytes: null, created: null };
    } else if (page && name === 'redirect') page.redirect = String((t.attributes as Record<string, string>).title ?? '');
    else if (page && name === 'revision') rev = {};
    else if (page && name === 'text') {
      const b = Number((t.attributes as Record<string, string>).bytes);
      page.bytes = Number.isFinite(b) ? b : null;
    }
  });
  parser.on('text', (t) => (text += t));
  parser.on('cdata', (t) => (text += t));
  parser.on('error', (e) => {
    const message = e.message.replace(/^[^:]*:\d+:\d+: /, '');
    if (page) {
      page.bad ??= message;
    } else out.push({ kind: 'error', line: parser.line, title: null, message });
  });
  parser.on('closetag', (t) => {
    const name = t.name.replace(/^.*:/, '');
    const parent = stack[stack.length - 2];
    stack.pop();
    if (inSite) {
      if (name === 'base' || name === 'dbname') site[name] = text.trim();
      if (name === 'siteinfo') {
        inSite = false;
        out.push({ kind: 'site', base: site.base ?? null, dbname: site.dbname ?? null });
      }
    } else if (page) {
      if (parent === 'page' && (name === 'title' || name === 'ns' || name === 'id')) page.fields[name] = text;
      else if (parent === 'revision' && (name === 'id' || name === 'timestamp' || name === 'model' || name === 'text')) rev[name] = text;
      else if (name === 'revision') {
        page.revs++;
        const ts = date(rev.timestamp);
        if (page.revs === 1) page.created = ts;
        page.revisionId = rev.id ? Number(rev.id) : null;
        page.timestamp = ts;
        page.model = rev.model ?? null;
        page.text = rev.text ?? '';
      } else if (name === 'page') {
        const p = page;
        page = null;
        const title = p.fields.title?.trim() ?? '';
        const ns = Number(p.fields.ns ?? (/^[^:]+:/.test(title) ? NaN : 0));
        const bad = p.bad ?? (!title ? 'page without a <title>' : !p.revs ? 'page without a <revision>' : !Number.isInteger(ns) ? 'page without a valid <ns>' : null);
        if (bad) out.push({ kind: 'error', line: p.line!, title: title || null, message: bad });
        else out.push({ kind: 'page', page: { title, ns, id: p.fields.id ? Number(p.fields.id) : null, redirect: p.redirect ?? null, revisionId: p.revisionId ?? null, timestamp: p.timestamp ?? null, created: p.created ?? null, model: p.model ?? null, text: p.text ?? '', bytes: p.bytes ?? null, line: p.line! } });
      }
    }
    text = '';
  });

  const decoder = new StringDecoder('utf8');
  for await (const chunk of source) {
    parser.write(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    while (out.length) yield out.shift()!;
  }
  parser.write(decoder.end());
  parser.close();
  const open = page as { line?: number; fields: Record<string, string> } | null;
  if (open) out.push({ kind: 'error', line: open.line ?? parser.line, title: open.fields.title ?? null, message: 'the file ends inside this page (truncated?)' });
  while (out.length) yield out.shift()!;
}
