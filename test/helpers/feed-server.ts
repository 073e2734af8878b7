/**
 * A loopback server of the 56 real feeds and sitemaps of `../shared/data/feeds/` (their bytes as
 * published, cut to a stage), for the feed poller's tests and bench.
 *
 * - Each file is served at /feeds/<kind>/<name> with its kind's Content-Type (no charset: the
 *   bytes and their XML declaration decide), an ETag and a Last-Modified per content; a
 *   conditional request for the content served last gets a 304 (counted).
 * - Items appear over time: at stage k of `stages` (`reveal(k)`), a feed shows its last
 *   ceil(k/stages * n) items (the bottom of a feed first, new ones on top, as feeds grow); the
 *   items are cut out of the bytes at the element boundaries saxes reports (no byte is changed
 *   inside what is kept; a JSON Feed is re-serialised).
 * - Item links point here: every origin an item (or a sitemap index's sitemap) links to is
 *   rewritten, in the bytes, to http://HOST:PORT/x/<host> (ASCII in every encoding of the files).
 *   Links mapped to a page of `../shared/data/html/readability/` (one page per item, `pages` of
 *   them) serve that page; every other link answers 404. A sitemap index's sitemaps serve the
 *   five news sitemaps in turn.
 * - /robots.txt is `robots` (default: our agent may not fetch /private/); `extras` adds a copy of
 *   a feed under /private/, a truncated feed, a feed in UTF-16 bytes declared UTF-8 by the header,
 *   and windows-1251 bytes declared UTF-8 by the header.
 * - `requests` counts requests per path (with query), `notModified` the 304s per path; `hook`
 *   answers a path instead (429s, stalls).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { SaxesParser } from 'saxes';
import { parseFeedBytes, type FeedItem } from '../../lib/feeds/parse.js';
import { sharedDir } from './paths.js';
import { pageNames, pagesDir } from './readability-pages.js';

export const feedsDir = path.join(sharedDir, 'data', 'feeds');

export interface ManifestEntry {
  file: string;
  kind: 'rss2' | 'atom' | 'rdf' | 'jsonfeed' | 'sitemap';
  publisher: string;
  items: number;
}
export const feedManifest = (): ManifestEntry[] => JSON.parse(fs.readFileSync(path.join(feedsDir, 'manifest.json'), 'utf8')) as ManifestEntry[];

const CONTENT_TYPES: Record<ManifestEntry['kind'], string> = {
  rss2: 'application/rss+xml',
  atom: 'application/atom+xml',
  rdf: 'application/rdf+xml',
  jsonfeed: 'application/feed+json',
  sitemap: 'application/xml',
};

export interface ServedFeed {
  file: string;
  kind: ManifestEntry['kind'];
  publisher: string;
  path: string;
  url: string;
  /** the items of the whole file (links rewritten), in document order, as lib/feeds reads them */
  items: FeedItem[];
  /** the items shown at a stage */
  visibleAt(stage: number): FeedItem[];
  /** the content served at a stage */
  bodyAt(stage: number): Buffer;
  contentType: string;
  /** which validators it sends: both, or only one of them */
  validators: 'both' | 'etag' | 'last-modified';
}

export interface FeedServer {
  origin: string;
  port: number;
  feeds: ServedFeed[];
  /** feed by file name (`rss2/guardian-us.rss`) */
  feed(file: string): ServedFeed;
  /** item link -> readability page name */
  pages: Map<string, string>;
  stages: number;
  stage: number;
  /** show stage k (1..stages) */
  reveal(k: number): void;
  /** extra sources (with `extras`): name -> URL */
  extras: Record<string, string>;
  requests: Map<string, number>;
  notModified: Map<string, number>;
  /** requests of a path (with query) so far */
  count(p: string): number;
  /** answer a path (pathname) instead of the server: return true when handled */
  hook: Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => boolean>;
  robots: string;
  close(): Promise<void>;
}

export interface FeedServerOptions {
  /** manifest files to serve (default: all 56) */
  files?: string[];
  /** stages until every item shows (default 4) */
  stages?: number;
  /** item links that serve a readability page (default: all 35 pages, one item each) */
  pages?: number;
  robots?: string;
  extras?: boolean;
  host?: string;
  /** where the files are served (default /feeds); a prefix per copy when one server serves several copies */
  prefix?: string;
}

export const DEFAULT_ROBOTS = 'User-agent: *\nAllow: /\n\nUser-agent: newsflow\nDisallow: /private/\n';

/** [start, end) of each top-level item element of a feed or sitemap (char offsets of the latin1 text = byte offsets). */
export function itemRanges(latin1: string, kind: ManifestEntry['kind']): [number, number][] {
  const local = (n: string) => n.slice(n.indexOf(':') + 1);
  const parent: Record<string, string[]> = { rss2: ['channel'], rdf: ['RDF'], atom: ['feed'], sitemap: ['urlset', 'sitemapindex'], jsonfeed: [] };
  const child: Record<string, string[]> = { rss2: ['item'], rdf: ['item'], atom: ['entry'], sitemap: ['url', 'sitemap'], jsonfeed: [] };
  const parser = new SaxesParser({ xmlns: false });
  const stack: string[] = [];
  const out: [number, number][] = [];
  let open: { start: number; depth: number } | null = null;
  parser.on('error', () => undefined);
  parser.on('opentag', (t) => {
    const up = stack.at(-1);
    stack.push(local(t.name));
    if (!open && up && parent[kind]!.includes(up) && child[kind]!.includes(local(t.name))) {
      const start = latin1.lastIndexOf('<', parser.position - 1);
      if (t.isSelfClosing) out.push([start, parser.position]);
      else open = { start, depth: stack.length };
    }
  });
  parser.on('closetag', () => {
    if (open && stack.length === open.depth) {
      out.push([open.start, parser.position]);
      open = null;
    }
    stack.pop();
  });
  parser.write(latin1).close();
  return out;
}

/** Rewrite every link to `hosts` (http or https, slashes escaped or not) to `origin`/x/<host>. */
function rewriteOrigins(latin1: string, hosts: Set<string>, origin: string): string {
  let s = latin1;
  for (const host of [...hosts].sort((a, b) => b.length - a.length)) {
    const h = host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    s = s.replace(new RegExp(`https?:(\\\\?/\\\\?/)${h}(?=[/"'<\\s?#:\\\\&]|$)`, 'gi'), (_m, slashes: string) => {
      const o = `${origin}/x/${host}`;
      return slashes.includes('\\') ? o.replaceAll('/', '\\/') : o;
    });
  }
  return s;
}

export async function startFeedServer(opts: FeedServerOptions = {}): Promise<FeedServer> {
  const host = opts.host ?? '127.0.0.1';
  const prefix = opts.prefix ?? '/feeds';
  const sockets = new Set<Socket>();
  const fs_: FeedServer = {
    origin: '',
    port: 0,
    feeds: [],
    feed: (file) =>
      fs_.feeds.find((f) => f.file === file) ??
      (() => {
        throw new Error(`not served: ${file}`);
      })(),
    pages: new Map(),
    stages: opts.stages ?? 4,
    stage: 1,
    reveal: (k) => void (fs_.stage = Math.max(1, Math.min(fs_.stages, k))),
    extras: {},
    requests: new Map(),
    notModified: new Map(),
    count: (p) => fs_.requests.get(p) ?? 0,
    hook: new Map(),
    robots: opts.robots ?? DEFAULT_ROBOTS,
    close: async () => undefined,
  };
  const routes = new Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const key = `${u.pathname}${u.search}`;
    fs_.requests.set(key, (fs_.requests.get(key) ?? 0) + 1);
    if (fs_.hook.get(u.pathname)?.(req, res)) return;
    const route = routes.get(key) ?? routes.get(u.pathname);
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  fs_.port = (server.address() as AddressInfo).port;
  fs_.origin = `http://${host}:${fs_.port}`;
  fs_.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  routes.set('/robots.txt', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(fs_.robots));

  /** a handler serving `body(stage)` with validators and 304s */
  const serve = (p: string, contentType: string, body: (stage: number) => Buffer, validators: ServedFeed['validators']) => {
    const cache = new Map<number, { bytes: Buffer; etag: string }>();
    routes.set(p, (req, res) => {
      let c = cache.get(fs_.stage);
      if (!c) {
        const bytes = body(fs_.stage);
        cache.set(fs_.stage, (c = { bytes, etag: `"${crypto.createHash('sha1').update(bytes).digest('hex').slice(0, 20)}"` }));
      }
      // one Last-Modified per content: the stage at which it first showed (a stage that changed nothing keeps it)
      let since = fs_.stage;
      while (since > 1 && cache.get(since - 1)?.etag === c.etag) since--;
      const lastModified = new Date(Date.UTC(2024, 0, 1) + since * 3_600_000).toUTCString();
      const headers: Record<string, string> = { 'content-type': contentType };
      if (validators !== 'last-modified') headers.etag = c.etag;
      if (validators !== 'etag') headers['last-modified'] = lastModified;
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      const fresh =
        (validators !== 'last-modified' && inm !== undefined && inm === c.etag) ||
        (validators === 'last-modified' && ims !== undefined && Date.parse(ims) >= Date.parse(lastModified));
      if (fresh) {
        fs_.notModified.set(p, (fs_.notModified.get(p) ?? 0) + 1);
        res.writeHead(304, headers).end();
        return;
      }
      res.writeHead(200, headers).end(c.bytes);
    });
  };

  const manifest = feedManifest().filter((e) => !opts.files || opts.files.includes(e.file));
  const validatorsCycle: ServedFeed['validators'][] = ['both', 'etag', 'last-modified'];
  const newsSitemaps: string[] = [];
  const indexChildren: { feed: string; urls: string[] }[] = [];
  for (const [i, e] of manifest.entries()) {
    const p = `${prefix}/${e.file}`;
    const url = `${fs_.origin}${p}`;
    const original = fs.readFileSync(path.join(feedsDir, e.file));
    const contentType = CONTENT_TYPES[e.kind];
    const first = parseFeedBytes(original, contentType, url);
    const hosts = new Set<string>();
    for (const it of first.items) if (it.url && !it.url.startsWith(fs_.origin)) hosts.add(new URL(it.url).host);
    for (const s of first.sitemaps) if (!s.url.startsWith(fs_.origin)) hosts.add(new URL(s.url).host);
    const rewritten = rewriteOrigins(original.toString('latin1'), hosts, fs_.origin);
    const full = Buffer.from(rewritten, 'latin1');
    let bodyAt: (stage: number) => Buffer;
    let count: number;
    if (e.kind === 'jsonfeed') {
      const doc = JSON.parse(full.toString('utf8')) as { items?: unknown[] };
      count = doc.items?.length ?? 0;
      bodyAt = (stage) => {
        const m = Math.ceil((stage / fs_.stages) * count);
        return Buffer.from(JSON.stringify({ ...doc, items: (doc.items ?? []).slice(count - m) }, null, 2));
      };
    } else {
      const ranges = itemRanges(rewritten, e.kind);
      count = ranges.length;
      bodyAt = (stage) => {
        const m = Math.ceil((stage / fs_.stages) * count);
        if (count === 0 || m === count) return full;
        const cutFrom = ranges[0]![0];
        const keepFrom = m === 0 ? ranges[count - 1]![1] : ranges[count - m]![0];
        return Buffer.concat([full.subarray(0, cutFrom), full.subarray(keepFrom)]);
      };
    }
    const parsedFull = parseFeedBytes(full, contentType, url);
    const items = parsedFull.items;
    const validators = validatorsCycle[i % validatorsCycle.length]!;
    const visibleAt = (stage: number) => {
      const parsed = parseFeedBytes(bodyAt(stage), contentType, url);
      return parsed.items;
    };
    serve(p, contentType, bodyAt, validators);
    fs_.feeds.push({ file: e.file, kind: e.kind, publisher: e.publisher, path: p, url, items, visibleAt, bodyAt, contentType, validators });
    if (e.kind === 'sitemap' && parsedFull.kind === 'sitemap' && parsedFull.items.some((x) => x.title)) newsSitemaps.push(p);
    if (parsedFull.kind === 'sitemapindex') indexChildren.push({ feed: p, urls: parsedFull.sitemaps.map((s) => s.url) });
  }
  // a sitemap index's sitemaps: the news sitemaps (and the articles sitemap), in turn
  const childTargets = [
    ...newsSitemaps,
    ...fs_.feeds.filter((f) => f.kind === 'sitemap' && !newsSitemaps.includes(f.path) && !indexChildren.some((c) => c.feed === f.path)).map((f) => f.path),
  ];
  for (const c of indexChildren)
    c.urls.forEach((u, j) => {
      const target = childTargets.length ? routes.get(childTargets[j % childTargets.length]!) : undefined;
      if (target) routes.set(new URL(u).pathname, target);
    });
  // one readability page per item, round robin over the feeds, the items that show first
  const want = Math.min(opts.pages ?? pageNames.length, pageNames.length);
  const candidates = fs_.feeds.filter((f) => f.kind !== 'sitemap' || f.items.some((x) => x.title));
  const taken = new Set<string>();
  for (let round = 0, n = 0; n < want && round < 50; round++)
    for (const f of candidates) {
      if (n >= want) break;
      const it = [...f.items].reverse().filter((x) => x.url && x.url.startsWith(`${fs_.origin}/x/`) && !taken.has(x.url))[round];
      if (!it?.url) continue;
      const name = pageNames[n++]!;
      taken.add(it.url);
      fs_.pages.set(it.url, name);
      const u = new URL(it.url);
      const page = fs.readFileSync(path.join(pagesDir, name, 'source.html'));
      routes.set(`${u.pathname}${u.search}`, (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
    }
  if (opts.extras) {
    // copies of two feeds, their links rewritten as the served feeds' are
    const copy = (file: string) => {
      const bytes = fs.readFileSync(path.join(feedsDir, file));
      const first = parseFeedBytes(bytes, undefined, fs_.origin);
      const hosts = new Set(first.items.flatMap((i) => (i.url && !i.url.startsWith(fs_.origin) ? [new URL(i.url).host] : [])));
      return Buffer.from(rewriteOrigins(bytes.toString('latin1'), hosts, fs_.origin), 'latin1');
    };
    const guardian = copy('rss2/guardian-us.rss');
    const oren = copy('rss2/oren-ru-windows-1251.xml');
    const fixed = (p: string, ct: string, bytes: Buffer) => {
      serve(p, ct, () => bytes, 'both');
      return `${fs_.origin}${p}`;
    };
    fs_.extras = {
      private: fixed('/private/guardian.rss', 'application/rss+xml', guardian),
      truncated: fixed('/broken/truncated.rss', 'application/rss+xml', guardian.subarray(0, Math.floor(guardian.length * 0.6))),
      utf16: fixed('/broken/utf16.rss', 'application/rss+xml; charset=utf-8', Buffer.from(guardian.toString('utf8').replace(/^\ufeff/, ''), 'utf16le')),
      misdeclared: fixed('/misdeclared/oren.xml', 'application/rss+xml; charset=utf-8', oren),
    };
  }
  return fs_;
}
