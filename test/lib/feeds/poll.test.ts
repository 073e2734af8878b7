/**
 * lib/feeds/poll.ts against the real feeds served on loopback (test/helpers/feed-server.ts):
 * conditional GETs answered 304, robots.txt honoured, 429 backing the host off, a sitemap index
 * read through its sitemaps, broken feeds failed with their reason.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GunzipRefused, gunzipCapped } from '../../../lib/fetch/gunzip.js';
import { PageFetcher } from '../../../lib/fetch/fetcher.js';
import { parseFetchAllow } from '../../../lib/fetch/policy.js';
import { HostGate } from '../../../lib/feeds/host-gate.js';
import { POLL_DEFAULTS, pollFeed, robotsThrough, type PollContext } from '../../../lib/feeds/poll.js';
import { startFeedServer, type FeedServer } from '../../helpers/feed-server.js';

let server: FeedServer;
let fetcher: PageFetcher;
const context = (): PollContext => {
  const gate = new HostGate({ delayMs: 0 });
  return { fetcher, gate, robots: robotsThrough(fetcher, gate) };
};

beforeAll(async () => {
  server = await startFeedServer({ extras: true, stages: 2 });
  fetcher = new PageFetcher({ policy: parseFetchAllow('127.0.0.1') });
});
afterAll(async () => {
  await fetcher?.destroy();
  await server?.close();
});

describe('polling one source', () => {
  it('sends the validators it was given and takes a 304 as not modified, without a body, for ETag and Last-Modified feeds alike', async () => {
    const ctx = context();
    server.reveal(1);
    for (const file of ['rss2/guardian-us.rss', 'rss2/jornal-de-noticias-ultimas.rss', 'rss2/uol-noticias.rss']) {
      const f = server.feed(file);
      const first = await pollFeed({ url: f.url }, ctx);
      expect(first.status, file).toBe('ok');
      expect(first.feed!.items.length).toBe(f.visibleAt(1).length);
      const again = await pollFeed({ url: f.url, etag: first.etag, lastModified: first.lastModified }, ctx);
      expect(again, file).toMatchObject({ status: 'not_modified', httpStatus: 304, bytes: 0, feed: null });
      expect(server.notModified.get(f.path), `${file} (${f.validators})`).toBe(1);
    }
    expect(new Set(['rss2/guardian-us.rss', 'rss2/jornal-de-noticias-ultimas.rss', 'rss2/uol-noticias.rss'].map((x) => server.feed(x).validators))).toEqual(
      new Set(['both', 'etag', 'last-modified']),
    );
  });

  it('reads the feed again once it changed, with the new items', async () => {
    const ctx = context();
    const f = server.feed('atom/daringfireball.atom');
    server.reveal(1);
    const first = await pollFeed({ url: f.url }, ctx);
    server.reveal(2);
    const next = await pollFeed({ url: f.url, etag: first.etag, lastModified: first.lastModified }, ctx);
    expect(next.status).toBe('ok');
    expect(next.feed!.items.length).toBe(48);
    expect(first.feed!.items.length).toBe(24);
  });

  it('does not request a feed robots.txt disallows', async () => {
    const p = await pollFeed({ url: server.extras.private! }, context());
    expect(p).toMatchObject({ status: 'disallowed', reason: 'robots' });
    expect(server.count('/private/guardian.rss')).toBe(0);
    expect(server.count('/robots.txt')).toBeGreaterThan(0);
  });

  it('backs the host off after a 429 with Retry-After, and asks it nothing more until then', async () => {
    const ctx = context();
    const f = server.feed('rss2/moscow-times.xml');
    const other = server.feed('rss2/lanacion.xml');
    server.hook.set(f.path, (_req, res) => (res.writeHead(429, { 'retry-after': '120' }).end(), true));
    try {
      const before = Date.now();
      const p = await pollFeed({ url: f.url }, ctx);
      expect(p).toMatchObject({ status: 'deferred', httpStatus: 429, reason: 'retry_after' });
      expect(p.retryAt! - before).toBeGreaterThanOrEqual(120_000);
      const asked = server.count(other.path);
      const q = await pollFeed({ url: other.url }, ctx);
      expect(q).toMatchObject({ status: 'deferred', reason: 'backoff' });
      expect(server.count(other.path)).toBe(asked);
    } finally {
      server.hook.delete(f.path);
    }
  });

  it('reads a sitemap index through its sitemaps', async () => {
    server.reveal(2);
    const p = await pollFeed({ url: server.feed('sitemap/washingtonpost-news-sitemap-index.xml').url }, context());
    expect(p.status).toBe('ok');
    expect(p.feed!.kind).toBe('sitemapindex');
    expect(p.feed!.sitemaps).toHaveLength(22);
    // its sitemaps are served from the shared sitemaps: every item of those is one of its items
    const expected = new Set(server.feeds.filter((f) => f.kind === 'sitemap' && f.items.length).flatMap((f) => f.items.map((i) => i.url)));
    expect(p.feed!.items.length).toBeGreaterThan(100);
    for (const i of p.feed!.items) expect(expected.has(i.url)).toBe(true);
  });

  it('fails a truncated feed and one in UTF-16 declared UTF-8, with their reasons, and reads windows-1251 declared UTF-8', async () => {
    const ctx = context();
    expect(await pollFeed({ url: server.extras.truncated! }, ctx)).toMatchObject({ status: 'failed', reason: 'not_well_formed', httpStatus: 200 });
    expect(await pollFeed({ url: server.extras.utf16! }, ctx)).toMatchObject({ status: 'failed', reason: 'not_well_formed' });
    const ok = await pollFeed({ url: server.extras.misdeclared! }, ctx);
    expect(ok.status).toBe('ok');
    expect(ok.feed!.items[0]!.title).toBe('В Бузулуке главные стройплощадки – детсад и Ледовый дворец');
    expect(await pollFeed({ url: `${server.origin}/feeds/missing.rss` }, ctx)).toMatchObject({ status: 'failed', reason: 'http_status', httpStatus: 404 });
  });

  it('reads a .xml.gz sitemap gzipped on the fly, and refuses a gzip bomb once its output passes the cap, without inflating the rest', async () => {
    server.reveal(2);
    const f = server.feed('sitemap/nytimes-news-sitemap.xml');
    const gzPath = '/feeds/sitemap/nytimes-news-sitemap.xml.gz';
    server.hook.set(gzPath, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      void pipeline(Readable.from([f.bodyAt(2)]), createGzip(), res);
      return true;
    });
    // 200 MB of zeros, gzipped once (about 200 KB on the wire)
    const zeros = Buffer.alloc(1024 * 1024);
    const parts: Buffer[] = [];
    const gz = createGzip({ level: 9 });
    gz.on('data', (c: Buffer) => parts.push(c));
    await pipeline(
      Readable.from(
        (function* () {
          for (let i = 0; i < 200; i++) yield zeros;
        })(),
      ),
      gz,
    );
    const bomb = Buffer.concat(parts);
    const bombPath = '/feeds/sitemap/bomb.xml.gz';
    server.hook.set(bombPath, (_req, res) => (res.writeHead(200, { 'content-type': 'application/x-gzip' }).end(bomb), true));
    try {
      const ctx = context();
      const p = await pollFeed({ url: `${server.origin}${gzPath}` }, ctx);
      expect(p.status).toBe('ok');
      expect(p.feed!.kind).toBe('sitemap');
      expect(p.feed!.items.map((i) => i.url)).toEqual(f.visibleAt(2).map((i) => i.url));
      expect(p.bytes).toBeLessThan(f.bodyAt(2).length);
      const b = await pollFeed({ url: `${server.origin}${bombPath}` }, ctx);
      expect(b).toMatchObject({ status: 'failed', reason: 'too_large', httpStatus: 200, bytes: bomb.length });
      expect(b.error).toMatch(new RegExp(`inflates past the cap of ${POLL_DEFAULTS.maxInflatedBytes} bytes`));
      // the stream stops within one zlib chunk of the cap: the other ~150 MB are never inflated
      const refused = await gunzipCapped(bomb, POLL_DEFAULTS.maxInflatedBytes).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GunzipRefused);
      expect((refused as GunzipRefused).inflated).toBeLessThanOrEqual(POLL_DEFAULTS.maxInflatedBytes + 64 * 1024);
      console.log(
        `gzip sitemap: ${p.bytes} bytes on the wire, ${f.bodyAt(2).length} inflated, ${p.feed!.items.length} items; ` +
          `bomb: ${bomb.length} bytes on the wire (200 MB inflated), refused after ${(refused as GunzipRefused).inflated} bytes: ${b.error}`,
      );
      // a corrupt gzip body is a reason, not a crash
      server.hook.set(bombPath, (_req, res) => (res.writeHead(200, { 'content-type': 'application/gzip' }).end(bomb.subarray(0, 1000)), true));
      expect(await pollFeed({ url: `${server.origin}${bombPath}` }, context())).toMatchObject({ status: 'failed', reason: 'gzip' });
    } finally {
      server.hook.delete(gzPath);
      server.hook.delete(bombPath);
    }
  });

  it('checks robots.txt of the origin a redirect lands on: a feed redirected to a second server that disallows it is never requested there', async () => {
    const second = await startFeedServer({ files: ['rss2/guardian-us.rss'], extras: true, robots: 'User-agent: newsflow\nDisallow: /feeds/\n' });
    const redirect = (from: string, to: string) => server.hook.set(from, (_req, res) => (res.writeHead(301, { location: to }).end(), true));
    try {
      const ctx = context();
      const target = second.feed('rss2/guardian-us.rss');
      redirect('/feeds/moved.rss', target.url);
      const p = await pollFeed({ url: `${server.origin}/feeds/moved.rss` }, ctx);
      expect(p).toMatchObject({ status: 'disallowed', reason: 'robots' });
      expect(p.error).toBe(`${server.origin}/feeds/moved.rss redirects to ${target.url}: robots.txt disallows ${target.path} for newsflow`);
      expect(second.count('/robots.txt')).toBe(1);
      expect(second.count(target.path)).toBe(0);
      // a page of the second server its robots.txt allows is followed to (its rules now cached)
      redirect('/feeds/moved-ok.rss', second.extras.misdeclared!);
      const ok = await pollFeed({ url: `${server.origin}/feeds/moved-ok.rss` }, ctx);
      expect(ok).toMatchObject({ status: 'ok', finalUrl: second.extras.misdeclared });
      expect(ok.feed!.items.length).toBeGreaterThan(0);
      expect(second.count('/robots.txt')).toBe(1);
      // a redirect within the first origin into its own disallowed /private/ is refused too
      redirect('/feeds/sneaky.rss', server.extras.private!);
      const before = server.count('/private/guardian.rss');
      expect(await pollFeed({ url: `${server.origin}/feeds/sneaky.rss` }, ctx)).toMatchObject({ status: 'disallowed', reason: 'robots' });
      expect(server.count('/private/guardian.rss')).toBe(before);
      console.log(`redirect to a disallowing origin: ${p.status} (${p.reason}): ${p.error}; second server's feed requested ${second.count(target.path)} times`);
    } finally {
      for (const k of ['/feeds/moved.rss', '/feeds/moved-ok.rss', '/feeds/sneaky.rss']) server.hook.delete(k);
      await second.close();
    }
  });
});
