/**
 * The one fetcher of web pages (index_urls, web search, crawl; below both halves, so the toolkit's feed poller uses it too, and alert webhooks its pool: webhook.ts): undici, through an Agent whose
 * `connect` resolves the host itself, judges EVERY resolved address with the address policy
 * (policy.ts) and connects only to an allowed address — by address, so what was checked is what
 * is connected to (no DNS rebinding between check and connect); the socket's remote address is
 * judged once more when connected. Redirects are followed by hand, each hop parsed, its scheme
 * checked and its connection judged again.
 *
 * Every failure is a `FetchRefused` with a reason code, never a raw exception.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { Socket } from 'node:net';
import { Agent, buildConnector, request, errors as undiciErrors } from 'undici';
import { decodeHtml, type DecodedPage } from './charset.js';
import { PUBLIC_ONLY, hostLiteral, refusal, type FetchPolicy } from './policy.js';

export type RefusalReason =
  | 'invalid_url' // not a URL
  | 'scheme' // not http(s)
  | 'forbidden_address' // the policy refuses every address of the host
  | 'dns' // the host does not resolve
  | 'network' // connection refused, reset, TLS failure
  | 'timeout' // connect, headers, body or total time exceeded
  | 'too_many_redirects'
  | 'http_status' // a status other than 2xx (or a 3xx without Location)
  | 'not_html' // a Content-Type other than text/html or application/xhtml+xml
  | 'too_large' // the body exceeds the size cap
  | 'redirect' // a webhook answered with a redirect (webhooks never follow one: webhook.ts), or `follow` declined one
  | 'invalid_header'; // a header the caller gave is not a valid HTTP field (webhook.ts)

export class FetchRefused extends Error {
  override readonly name = 'FetchRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
    readonly url: string,
    /** the HTTP status, for `http_status` */
    readonly status?: number,
    /** the response's Retry-After header (seconds or an HTTP date), for `http_status` */
    readonly retryAfter?: string,
    /** where a redirect `follow` declined points (absolute), for `redirect` */
    readonly location?: string,
  ) {
    super(message);
  }
}

export interface LookupAddress {
  address: string;
  family: number;
}

export interface FetchOptions {
  /** allow list (the configured one: ServiceConfig / Project `fetchPolicy`); default: public addresses only */
  policy?: FetchPolicy;
  /** resolves a host name to its addresses; default: the system resolver (`dns.lookup`, all) */
  lookup?: (hostname: string) => Promise<LookupAddress[]>;
  /** TCP (and TLS) connect timeout per address; default 10 s */
  connectTimeoutMs?: number;
  /** time to the response headers; default 15 s */
  headersTimeoutMs?: number;
  /** longest pause between two body chunks; default 15 s */
  bodyTimeoutMs?: number;
  /** the whole fetch, redirects included; default 30 s */
  totalTimeoutMs?: number;
  /** size cap of a body, counted as it streams; default 5 MB (5 * 1024 * 1024 bytes) */
  maxBytes?: number;
  /** redirects followed; default 5 (the 6th is `too_many_redirects`) */
  maxRedirects?: number;
  /** User-Agent header; default `newsflow-fetch/0.1 (+self-hosted news API)` */
  userAgent?: string;
  signal?: AbortSignal;
}

export const FETCH_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  totalTimeoutMs: 30_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'newsflow-fetch/0.1 (+self-hosted news API)',
} as const;

export interface FetchedPage {
  /** the URL the page was read from (after redirects) */
  url: string;
  /** the URLs that redirected, in order (the requested URL first); empty without redirects */
  redirects: string[];
  status: number;
  /** media type of the Content-Type header (lower case), '' when absent (then sniffed as HTML) */
  contentType: string;
  /** the encoding the body was decoded with and where it came from */
  charset: string;
  charsetSource: DecodedPage['source'];
  bytes: number;
  html: string;
}

/** An HTML page as fetched, before decoding (`PageFetcher.fetchBytes`). */
export interface FetchedBytes {
  url: string;
  redirects: string[];
  status: number;
  contentType: string;
  /** the Content-Type header as sent (its charset parameter), absent when there was none */
  header: string | undefined;
  body: Uint8Array;
}

/** Decode a fetched page's bytes (charset from BOM, header, meta or the bytes: lib/fetch/charset.ts). */
export function decodePage(r: FetchedBytes): FetchedPage {
  const decoded = decodeHtml(r.body, r.header);
  return {
    url: r.url,
    redirects: r.redirects,
    status: r.status,
    contentType: r.contentType,
    charset: decoded.charset,
    charsetSource: decoded.source,
    bytes: r.body.length,
    html: decoded.text,
  };
}

/** A resource read as bytes (`PageFetcher.fetchResource`): a feed, a sitemap, robots.txt. */
export interface FetchedResource {
  /** the URL it was read from (after redirects) */
  url: string;
  redirects: string[];
  /** 2xx, or 304 for a conditional request the resource has not changed since */
  status: number;
  /** the Content-Type header as sent ('' when absent) */
  contentType: string;
  etag: string | null;
  lastModified: string | null;
  cacheControl: string | null;
  bytes: number;
  body: Buffer;
}

/** Drop a response body without reading it (its abort error is not an error of ours). */
const discard = (body: NodeJS.ReadableStream & { destroy(): unknown }) => {
  body.on('error', () => undefined);
  body.destroy();
};

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemLookup = async (hostname: string): Promise<LookupAddress[]> => dnsLookup(hostname, { all: true });

type ConnectOpts = Parameters<buildConnector.connector>[0];
type ConnectCallback = Parameters<buildConnector.connector>[1];

/**
 * A connection pool whose every connection is made under the policy (see policyConnector); the
 * page fetcher and webhook delivery (webhook.ts) both go through one. `destroy()` it when done.
 */
export function policyAgent(
  opts: Pick<FetchOptions, 'policy' | 'lookup'> & { connectTimeoutMs: number; headersTimeoutMs: number; bodyTimeoutMs: number },
): Agent {
  return new Agent({
    connect: policyConnector(opts.policy ?? PUBLIC_ONLY, opts.lookup ?? systemLookup, opts.connectTimeoutMs),
    headersTimeout: opts.headersTimeoutMs,
    bodyTimeout: opts.bodyTimeoutMs,
  });
}

/**
 * An undici connector that connects only to addresses the policy allows: the host is resolved
 * here, each address judged, the allowed ones tried in order by address (the TLS name stays the
 * host); the connected socket's remote address is judged again.
 */
function policyConnector(policy: FetchPolicy, lookup: FetchOptions['lookup'] & {}, connectTimeoutMs: number) {
  const base = buildConnector({ timeout: connectTimeoutMs });
  return (opts: ConnectOpts, callback: ConnectCallback): void => {
    const host = opts.hostname;
    const where = `${opts.protocol}//${opts.host}`;
    const refuse = (reason: RefusalReason, message: string) => callback(new FetchRefused(reason, message, where), null);
    void (async () => {
      const literal = hostLiteral(host);
      if (literal === 'malformed') return refuse('forbidden_address', `${host} is a malformed address`);
      let addresses: string[];
      if (literal) addresses = [literal];
      else {
        try {
          addresses = (await lookup(host)).map((a) => a.address);
        } catch (err) {
          return refuse('dns', `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
        }
        if (!addresses.length) return refuse('dns', `${host} has no address`);
      }
      const judged = addresses.map((a) => ({ address: a, refused: refusal(policy, host, a) }));
      const allowed = judged.filter((j) => !j.refused).map((j) => j.address);
      if (!allowed.length) {
        const list = judged.map((j) => `${j.address} (${j.refused})`).join(', ');
        return refuse('forbidden_address', `${host}: no address the fetch policy allows: ${list}`);
      }
      let lastErr: Error | null = null;
      for (const address of allowed) {
        const socket = await new Promise<Socket | null>((resolve) =>
          base({ ...opts, hostname: address }, (err, s) => {
            lastErr = err;
            resolve(err ? null : (s as Socket));
          }),
        );
        if (!socket) continue;
        const peer = socket.remoteAddress ?? '';
        const peerRefused = refusal(policy, host, peer);
        if (peerRefused) {
          socket.destroy();
          return refuse('forbidden_address', `${host}: connected to ${peer} (${peerRefused}), refused`);
        }
        return callback(null, socket);
      }
      callback(lastErr ?? new Error(`${host}: could not connect`), null);
    })();
  };
}

/** The refusal an error of undici (or of our connector) means. */
export function asRefusal(err: unknown, url: string, total: AbortSignal): FetchRefused {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (e instanceof FetchRefused) return e;
  const e = err as NodeJS.ErrnoException;
  if (
    total.aborted ||
    e instanceof undiciErrors.ConnectTimeoutError ||
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError
  ) {
    return new FetchRefused('timeout', `${url}: ${total.aborted ? 'total time exceeded' : e.message}`, url);
  }
  if (e?.name === 'AbortError' || e instanceof undiciErrors.RequestAbortedError) {
    return new FetchRefused('network', `${url}: aborted`, url);
  }
  return new FetchRefused('network', `${url}: ${e?.code ?? ''} ${e?.message ?? String(err)}`.trim(), url);
}

/** An http(s) URL, else a `FetchRefused` (`invalid_url`, `scheme`). */
export function parseUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new FetchRefused('invalid_url', `not a URL: ${raw}`, raw);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefused('scheme', `only http(s) is fetched, not ${url.protocol}`, url.href);
  }
  return url;
}

/** HTML by its first bytes (for a response without Content-Type). */
const looksLikeHtml = (bytes: Uint8Array) =>
  /^(\ufeff)?\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body)\b/i.test(Buffer.from(bytes.subarray(0, 1024)).toString('latin1'));

/**
 * A fetcher with one connection pool; `close()` when done. Use `fetchPage` for a single page.
 */
export class PageFetcher {
  private readonly agent: Agent;
  private readonly o: Required<Omit<FetchOptions, 'signal' | 'policy' | 'lookup'>>;

  constructor(private readonly opts: FetchOptions = {}) {
    this.o = {
      connectTimeoutMs: opts.connectTimeoutMs ?? FETCH_DEFAULTS.connectTimeoutMs,
      headersTimeoutMs: opts.headersTimeoutMs ?? FETCH_DEFAULTS.headersTimeoutMs,
      bodyTimeoutMs: opts.bodyTimeoutMs ?? FETCH_DEFAULTS.bodyTimeoutMs,
      totalTimeoutMs: opts.totalTimeoutMs ?? FETCH_DEFAULTS.totalTimeoutMs,
      maxBytes: opts.maxBytes ?? FETCH_DEFAULTS.maxBytes,
      maxRedirects: opts.maxRedirects ?? FETCH_DEFAULTS.maxRedirects,
      userAgent: opts.userAgent ?? FETCH_DEFAULTS.userAgent,
    };
    this.agent = policyAgent({ ...this.o, policy: opts.policy, lookup: opts.lookup });
  }

  /**
   * One GET with redirects followed by hand, each hop judged again; the body read up to the size
   * cap. A status other than 2xx (and 304 when `conditional`) is `http_status`, with the
   * response's Retry-After; `accept` decides which Content-Types are read (else `not_html`).
   */
  private async get(
    rawUrl: string,
    o: {
      signal?: AbortSignal;
      accept: string;
      /** what `acceptType` accepts, for messages */
      what: string;
      headers?: Record<string, string>;
      conditional?: boolean;
      acceptType: (contentType: string, body: Buffer | null) => boolean;
      follow?: (next: string) => boolean;
    },
  ): Promise<{
    url: URL;
    redirects: string[];
    status: number;
    header: string | undefined;
    contentType: string;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }> {
    const total = AbortSignal.timeout(this.o.totalTimeoutMs);
    const stop = AbortSignal.any([total, ...(o.signal ? [o.signal] : []), ...(this.opts.signal ? [this.opts.signal] : [])]);
    let url = parseUrl(rawUrl);
    const redirects: string[] = [];
    for (;;) {
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, {
          method: 'GET',
          dispatcher: this.agent,
          signal: stop,
          headers: { ...o.headers, 'user-agent': this.o.userAgent, accept: o.accept, 'accept-encoding': 'identity' },
        });
      } catch (err) {
        throw asRefusal(err, url.href, total);
      }
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && location) {
        discard(res.body);
        if (redirects.length >= this.o.maxRedirects) {
          throw new FetchRefused('too_many_redirects', `more than ${this.o.maxRedirects} redirects`, url.href, res.statusCode);
        }
        const next = parseUrl(Array.isArray(location) ? location[0]! : location, url.href);
        if (o.follow && !o.follow(next.href)) {
          throw new FetchRefused('redirect', `redirected to ${next.href}, not followed`, url.href, res.statusCode, undefined, next.href);
        }
        redirects.push(url.href);
        url = next;
        continue;
      }
      const header = [res.headers['content-type']].flat()[0];
      const contentType = (header ?? '').split(';')[0]!.trim().toLowerCase();
      if (res.statusCode === 304 && o.conditional) {
        discard(res.body);
        return { url, redirects, status: 304, header, contentType, headers: res.headers, body: Buffer.alloc(0) };
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        discard(res.body);
        const retryAfter = [res.headers['retry-after']].flat()[0];
        throw new FetchRefused('http_status', `HTTP ${res.statusCode}`, url.href, res.statusCode, retryAfter);
      }
      if (contentType && !o.acceptType(contentType, null)) {
        discard(res.body);
        throw new FetchRefused('not_html', `not ${o.what}: ${contentType}`, url.href);
      }
      const declared = Number([res.headers['content-length']].flat()[0] ?? NaN);
      if (declared > this.o.maxBytes) {
        discard(res.body);
        throw new FetchRefused('too_large', `Content-Length ${declared} over the cap of ${this.o.maxBytes} bytes`, url.href);
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const chunk of res.body) {
          bytes += (chunk as Buffer).length;
          if (bytes > this.o.maxBytes) {
            discard(res.body);
            throw new FetchRefused('too_large', `body over the cap of ${this.o.maxBytes} bytes`, url.href);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        throw asRefusal(err, url.href, total);
      }
      const body = Buffer.concat(chunks);
      if (!contentType && !o.acceptType('', body)) throw new FetchRefused('not_html', `no Content-Type and not ${o.what}`, url.href);
      return { url, redirects, status: res.statusCode, header, contentType, headers: res.headers, body };
    }
  }

  /** One HTML page, decoded here (`decodeHtml`); a service decodes off its event loop instead: `fetchBytes`, then `decodePage` in a thread. */
  async fetch(rawUrl: string, signal?: AbortSignal): Promise<FetchedPage> {
    return decodePage(await this.fetchBytes(rawUrl, signal));
  }

  /** One HTML page as its bytes, not decoded (charset detection is CPU work on the body: `decodePage`). */
  async fetchBytes(rawUrl: string, signal?: AbortSignal): Promise<FetchedBytes> {
    const r = await this.get(rawUrl, {
      signal,
      accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
      what: 'HTML',
      acceptType: (type, body) => (body ? looksLikeHtml(body) : HTML_TYPES.has(type)),
    });
    return { url: r.url.href, redirects: r.redirects, status: r.status, contentType: r.contentType, header: r.header, body: r.body };
  }

  /**
   * Any resource (a feed, a sitemap, robots.txt) as bytes, under the same policy, caps and
   * redirects as a page; `headers` are sent as given (If-None-Match, If-Modified-Since: a 304 then
   * comes back as status 304 with an empty body). Types are not checked: the caller reads the body.
   * `follow` is asked before each redirect is followed: false stops there with a `redirect`
   * refusal whose `location` is where it pointed (the feed poller checks that origin's robots.txt).
   */
  async fetchResource(
    rawUrl: string,
    o: { signal?: AbortSignal; headers?: Record<string, string>; accept?: string; follow?: (next: string) => boolean } = {},
  ): Promise<FetchedResource> {
    const conditional = !!o.headers && Object.keys(o.headers).some((k) => /^if-(none-match|modified-since)$/i.test(k));
    const r = await this.get(rawUrl, {
      signal: o.signal,
      headers: o.headers,
      accept: o.accept ?? '*/*',
      what: 'any',
      conditional,
      acceptType: () => true,
      follow: o.follow,
    });
    const one = (k: string) => [r.headers[k]].flat()[0];
    return {
      url: r.url.href,
      redirects: r.redirects,
      status: r.status,
      contentType: r.header ?? '',
      etag: one('etag') ?? null,
      lastModified: one('last-modified') ?? null,
      cacheControl: one('cache-control') ?? null,
      bytes: r.body.length,
      body: r.body,
    };
  }

  /** Close the pool once the fetches under way are done. */
  close(): Promise<void> {
    return this.agent.close();
  }

  /** Drop the pool and every open connection now. */
  destroy(): Promise<void> {
    return this.agent.destroy();
  }
}

/** Fetch one HTML page under the address policy; throws only `FetchRefused`. */
export async function fetchPage(url: string, opts: FetchOptions = {}): Promise<FetchedPage> {
  const fetcher = new PageFetcher(opts);
  try {
    return await fetcher.fetch(url);
  } finally {
    await fetcher.destroy();
  }
}
