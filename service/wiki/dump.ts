/**
 * The MediaWiki XML export format (Special:Export, the dumps' pages-articles.xml[.bz2]) read as a
 * stream: bytes -> (bunzip2) -> text -> one <page>…</page> block at a time -> an XML parser
 * (saxes) per page, so a dump of many GB needs the memory of one page, and a malformed page is
 * reported (its line and title) and skipped while the pages after it are read. (In an export a
 * page's text is escaped, so "</page>" only ever closes a page.) Several revisions of a page (a
 * history export): the last one is kept, the first one's time is the page's creation time.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
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

/** A classic stream (unbzip2-stream is one) as an async iterable, paused while the consumer works. */
async function* drain(s: NodeJS.ReadableStream & { pause(): void; resume(): void }): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let done = false;
  let error: Error | null = null;
  let wake: (() => void) | null = null;
  const signal = () => {
    wake?.();
    wake = null;
  };
  s.on('data', (d: Buffer) => {
    queue.push(d);
    if (queue.length > 4) s.pause();
    signal();
  });
  s.on('end', () => {
    done = true;
    signal();
  });
  s.on('error', (e: Error) => {
    error = e;
    signal();
  });
  for (;;) {
    if (queue.length) {
      yield queue.shift()!;
      if (queue.length <= 1) s.resume();
      continue;
    }
    if (error) throw error;
    if (done) return;
    await new Promise<void>((r) => (wake = r));
  }
}

/** Read a dump file (.xml, or .bz2 compressed). */
export function readDump(file: string): AsyncGenerator<DumpEvent> {
  const raw: Readable = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  if (!/\.bz2$/i.test(file)) return readDumpStream(raw);
  const inflate = unbzip2();
  raw.on('error', (e) => inflate.emit('error', e));
  return bz2Errors(readDumpStream(drain(raw.pipe(inflate) as never)));
}

async function* bz2Errors(events: AsyncGenerator<DumpEvent>): AsyncGenerator<DumpEvent> {
  try {
    yield* events;
  } catch (e) {
    const msg = (e as Error).message;
    throw new Error(/ENOENT|EACCES|EISDIR/.test(msg) ? msg : `the bzip2 data is corrupt or truncated (${msg})`, { cause: e });
  }
}

/** One page block (`<page>…</page>`) parsed; `line` is the block's first line in the file. */
export function parsePage(block: string, line: number): DumpEvent {
  const parser = new SaxesParser({ position: true });
  const stack: string[] = [];
  let text = '';
  const fields: Record<string, string> = {};
  let rev: Record<string, string> = {};
  let revs = 0;
  let redirect: string | null = null;
  let bytes: number | null = null;
  let created: Date | null = null;
  let last: Record<string, string> = {};
  parser.on('opentag', (t) => {
    const name = t.name.replace(/^.*:/, '');
    stack.push(name);
    text = '';
    const attrs = t.attributes as Record<string, string>;
    if (name === 'redirect') redirect = String(attrs.title ?? '');
    else if (name === 'revision') rev = {};
    else if (name === 'text') {
      const b = Number(attrs.bytes);
      bytes = attrs.bytes !== undefined && Number.isFinite(b) ? b : null;
    }
  });
  parser.on('text', (t) => (text += t));
  parser.on('cdata', (t) => (text += t));
  parser.on('closetag', (t) => {
    const name = t.name.replace(/^.*:/, '');
    stack.pop();
    const parent = stack[stack.length - 1];
    if (parent === 'page' && (name === 'title' || name === 'ns' || name === 'id')) fields[name] = text;
    else if (parent === 'revision' && (name === 'id' || name === 'timestamp' || name === 'model' || name === 'text')) rev[name] = text;
    else if (name === 'revision') {
      revs++;
      if (revs === 1) created = date(rev.timestamp);
      last = rev;
    }
    text = '';
  });
  const title = () => fields.title?.trim() || /<title>([^<]*)<\/title>/.exec(block)?.[1]?.trim() || null;
  try {
    parser.write(block).close();
  } catch (e) {
    const m = /^(?:[^\d:][^:]*:)?(\d+):\d+: (.*)$/s.exec((e as Error).message);
    return { kind: 'error', line: line + (m ? Number(m[1]) - 1 : 0), title: title(), message: m ? m[2]! : (e as Error).message };
  }
  const t = title();
  const ns = Number(fields.ns ?? (t && /^[^:]+:/.test(t) ? NaN : 0));
  const bad = !t ? 'page without a <title>' : !revs ? 'page without a <revision>' : !Number.isInteger(ns) ? 'page without a valid <ns>' : null;
  if (bad) return { kind: 'error', line, title: t, message: bad };
  return {
    kind: 'page',
    page: {
      title: t!,
      ns,
      id: fields.id ? Number(fields.id) : null,
      redirect,
      revisionId: last.id ? Number(last.id) : null,
      timestamp: date(last.timestamp),
      created,
      model: last.model ?? null,
      text: last.text ?? '',
      bytes,
      line,
    },
  };
}

const PAGE_OPEN = /<page[\s>]/;
const count = (s: string, from: number, to: number) => {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

export async function* readDumpStream(source: AsyncIterable<Buffer | string>): AsyncGenerator<DumpEvent> {
  const decoder = new StringDecoder('utf8');
  let buf = '';
  /** line number of buf[0] */
  let line = 1;
  let siteDone = false;
  const consume = (to: number) => {
    line += count(buf, 0, to);
    buf = buf.slice(to);
  };
  const site = function* (): Generator<DumpEvent> {
    if (siteDone) return;
    const end = buf.indexOf('</siteinfo>');
    const firstPage = buf.search(PAGE_OPEN);
    if (end === -1 && firstPage === -1) return;
    siteDone = true;
    const info = end !== -1 && (firstPage === -1 || end < firstPage) ? buf.slice(0, end) : '';
    const base = /<base>([^<]*)<\/base>/.exec(info)?.[1]?.trim() ?? null;
    const dbname = /<dbname>([^<]*)<\/dbname>/.exec(info)?.[1]?.trim() ?? null;
    yield { kind: 'site', base, dbname };
  };
  const pages = function* (final: boolean): Generator<DumpEvent> {
    for (;;) {
      const start = buf.search(PAGE_OPEN);
      if (start === -1) {
        // keep a tail that may hold the start of "<page"
        if (buf.length > 16) consume(buf.length - 16);
        return;
      }
      consume(start);
      const close = buf.indexOf('</page>');
      const next = buf.slice(5).search(PAGE_OPEN);
      const nextAt = next === -1 ? -1 : next + 5;
      if (nextAt !== -1 && (close === -1 || nextAt < close)) {
        const title = /<title>([^<]*)<\/title>/.exec(buf.slice(0, nextAt))?.[1]?.trim() ?? null;
        yield { kind: 'error', line, title, message: 'page not closed before the next <page>' };
        consume(nextAt);
        continue;
      }
      if (close === -1) {
        if (final) {
          const title = /<title>([^<]*)<\/title>/.exec(buf)?.[1]?.trim() ?? null;
          yield { kind: 'error', line, title, message: 'the file ends inside this page (truncated?)' };
          buf = '';
        }
        return;
      }
      const end = close + '</page>'.length;
      yield parsePage(buf.slice(0, end), line);
      consume(end);
    }
  };
  for await (const chunk of source) {
    buf += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    yield* site();
    if (siteDone) yield* pages(false);
  }
  buf += decoder.end();
  yield* site();
  if (!siteDone) yield { kind: 'site', base: null, dbname: null };
  yield* pages(true);
}
