/**
 * One page read by a reader thread (reader-pool.ts): the fetched bytes decoded (charset
 * detection, lib/fetch/charset.ts) and read (page.ts), or HTML already decoded, read. Both are CPU
 * work on an untrusted body, so both run off the service's event loop within the page's budget.
 */
import { decodePage, type FetchedBytes } from '../../lib/fetch/fetcher.js';
import { readPage, type ReadPage } from './page.js';

/** A page to read: its fetched bytes (decoded in the thread), or its HTML. */
export type ReadInput = { url: string; html: string; bytes?: undefined } | { url: string; bytes: FetchedBytes; html?: undefined };

export interface ReadOutput {
  read: ReadPage;
  /** for bytes: the encoding they were decoded with and where it came from */
  charset: string | null;
  charsetSource: string | null;
}

export function readJob(input: ReadInput): ReadOutput {
  if (input.bytes === undefined) return { read: readPage(input.html, input.url), charset: null, charsetSource: null };
  const page = decodePage(input.bytes);
  return { read: readPage(page.html, page.url), charset: page.charset, charsetSource: page.charsetSource };
}
