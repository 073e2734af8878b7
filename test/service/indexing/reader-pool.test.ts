/** Page decoding and reading in worker threads (service/indexing/reader-pool.ts, on lib/threads/budget-pool.ts): the same pages as in-thread reading, off the event loop. */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { PageReadTimeout, ReaderPool } from '../../../service/indexing/reader-pool.js';
import { READ_DEFAULTS, readTimeoutMs, serviceConfig } from '../../../service/config.js';
import { readPage } from '../../../service/indexing/page.js';
import { decodePage, type FetchedBytes } from '../../../lib/fetch/fetcher.js';
import { sharedDir } from '../../helpers/paths.js';

const dir = path.join(sharedDir, 'data', 'html', 'readability');
const pages = fs
  .readdirSync(dir)
  .filter((n) => fs.existsSync(path.join(dir, n, 'source.html')))
  .sort()
  .map((n) => ({ html: fs.readFileSync(path.join(dir, n, 'source.html'), 'utf8'), url: `https://pages.example/${n}/` }));

const pool = new ReaderPool(2);
afterAll(() => pool.close());

describe('the page reader pool', () => {
  it('reads the 35 real pages in worker threads exactly as in this thread, all at once', async () => {
    const threaded = await Promise.all(pages.map((p) => pool.read(p.html, p.url)));
    expect(threaded).toHaveLength(35);
    for (const [i, p] of pages.entries()) expect(threaded[i], p.url).toEqual(readPage(p.html, p.url));
    // every page reads as an article, the yahoo-2 front page by its featured story (service/fetch/extract.ts)
    expect(threaded.filter((r) => r.article).length).toBe(35);
  });

  it('keeps the event loop free while it reads', async () => {
    const big = pages.reduce((a, p) => (p.html.length > a.html.length ? p : a));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await Promise.all(Array.from({ length: 6 }, () => pool.read(big.html, big.url)));
    clearInterval(timer);
    // in this thread, six reads of the largest page would block the loop throughout: no tick at all
    expect(ticks).toBeGreaterThan(5);
  });

  it('decodes fetched bytes in the thread (charset detection off the event loop) and reads them as decodePage then readPage here', async () => {
    const para = 'Le café à la gare ouvre déjà à six heures, et les voyageurs pressés y prennent un crème. '.repeat(8);
    const html = `<html><head><meta charset="iso-8859-1"><title>Café de la gare</title></head><body><article><h1>Café de la gare</h1>${`<p>${para}</p>`.repeat(4)}</article></body></html>`;
    const bytes: FetchedBytes = {
      url: 'https://pages.example/cafe',
      redirects: [],
      status: 200,
      contentType: 'text/html',
      header: 'text/html',
      body: Buffer.from(html, 'latin1'),
    };
    const out = await pool.readBytes(bytes);
    const here = decodePage(bytes);
    expect(out).toEqual({ read: readPage(here.html, here.url), charset: here.charset, charsetSource: here.charsetSource });
    expect(out.charset).toBe('windows-1252');
    expect(out.read.text).toContain('Le café à la gare ouvre déjà');
    // the repro of issue 32 finding 1 (0xFF then 120,000 `<`): decoded and read in a thread, the loop ticks throughout
    const hostile: FetchedBytes = { ...bytes, url: 'https://pages.example/lt', body: Buffer.concat([Buffer.alloc(8, 0xff), Buffer.from('<'.repeat(120_000))]) };
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const t0 = performance.now();
    const read = await pool.readBytes(hostile);
    h.disable();
    console.log(
      `finding 1's body decoded and read in a thread in ${(performance.now() - t0).toFixed(1)} ms (${read.charset}, ${read.charsetSource}; ${read.read.skipped}); event loop delay max ${(h.max / 1e6).toFixed(1)} ms`,
    );
    expect(read.read.article).toBeNull();
  });

  it('with no threads (size 0) reads in this thread, with the same result', async () => {
    const inline = new ReaderPool(0);
    const p = pages[0]!;
    expect(await inline.read(p.html, p.url)).toEqual(readPage(p.html, p.url));
  });

  it('fails a page past its time budget with reason timeout, terminates its worker and replaces it, and the pages behind it go on', async () => {
    const one = new ReaderPool(1);
    try {
      const big = pages.reduce((a, p) => (p.html.length > a.html.length ? p : a));
      // the largest page four times over (several MB): reading it takes far longer than a 5 ms budget
      const huge = big.html.replace('<body', `<body>${big.html.repeat(4)}</body><body`);
      const small = pages[0]!;
      await one.read(small.html, small.url);
      const [first] = one.threads;
      const slow = one.read(huge, 'https://pages.example/huge/', { timeoutMs: 5 });
      const behind = one.read(small.html, small.url);
      const err = await slow.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PageReadTimeout);
      expect(err).toMatchObject({ reason: 'timeout', timeoutMs: 5, message: 'reading the page took longer than its budget of 5 ms' });
      // the stuck worker is gone at once; the page queued behind it is read by its replacement
      expect(one.threads).not.toContain(first);
      expect(await behind).toEqual(readPage(small.html, small.url));
      expect(one.threads).toHaveLength(1);
      expect(one.threads[0]).not.toBe(first);
      console.log(
        `a ${huge.length}-character page over a 5 ms budget: ${(err as Error).message}; thread ${first} terminated, thread ${one.threads[0]} read the next page`,
      );
    } finally {
      await one.close();
    }
    expect(readTimeoutMs({})).toBe(READ_DEFAULTS.timeoutMs);
    expect(READ_DEFAULTS.timeoutMs).toBe(20_000);
    expect(readTimeoutMs({ NEWSFLOW_PAGE_READ_TIMEOUT_MS: '1500' })).toBe(1500);
    expect(readTimeoutMs({ NEWSFLOW_PAGE_READ_TIMEOUT_MS: 'soon' })).toBe(20_000);
    // read by the service's config and passed to the shared pool when the service opens
    expect(serviceConfig({}, { NEWSFLOW_PAGE_READERS: '2', NEWSFLOW_PAGE_READ_TIMEOUT_MS: '1500' }).pageReaders).toEqual({ size: 2, timeoutMs: 1500 });
    expect(serviceConfig({}, { NEWSFLOW_PAGE_READERS: '0' }).pageReaders).toEqual({ size: 0, timeoutMs: READ_DEFAULTS.timeoutMs });
  });
});
