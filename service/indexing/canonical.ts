/**
 * The URL an indexed page is known by (dedupe key and `article_url`): the page's
 * `<link rel="canonical">` (or og:url) when it names the same site as the URL the page was read
 * from, else that URL; normalised either way.
 *
 * A canonical of another site is ignored: a page may not claim another publisher's URL (it would
 * pose as that publisher, and dedupe would then refuse the real article).
 */
import crypto from 'node:crypto';

/** Query parameters that only track a click; dropped from the key. */
const TRACKING = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|_ga|ref_src)$/i;

/**
 * Normalised URL: lower-case scheme and host, no default port, no fragment, no tracking
 * parameters, no `www.`-less rewriting (hosts are kept as given). Null when not http(s).
 */
export function normaliseUrl(raw: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (TRACKING.test(k)) u.searchParams.delete(k);
  if ([...u.searchParams.keys()].length === 0) u.search = '';
  return u.href;
}

/** Second-level labels under which registrations sit (`bbc.co.uk`, `abc.net.au`). */
const SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'gov', 'ac', 'edu', 'go', 'or', 'ne', 'gob', 'nic']);

/** The site of a host: its registrable domain, approximated (IP literals are their own site). */
export function siteOf(host: string): string {
  const h = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
  if (/^[\d.]+$/.test(h) || h.includes(':')) return h;
  const labels = h.split('.');
  if (labels.length <= 2) return h;
  const n = labels.length;
  const take = labels[n - 1]!.length === 2 && SECOND_LEVEL.has(labels[n - 2]!) ? 3 : 2;
  return labels.slice(n - take).join('.');
}

/** The page's key: its same-site canonical URL, else the URL it was read from (both normalised). */
export function canonicalUrl(finalUrl: string, declared: string | null | undefined): string {
  const own = normaliseUrl(finalUrl) ?? finalUrl;
  if (!declared) return own;
  const c = normaliseUrl(declared, finalUrl);
  if (!c) return own;
  const a = new URL(own);
  const b = new URL(c);
  if (a.protocol !== b.protocol && !(a.protocol === 'http:' && b.protocol === 'https:')) return own;
  if (siteOf(a.hostname) !== siteOf(b.hostname)) return own;
  if (a.port !== b.port) return own;
  return c;
}

/** The domain an article is filed under: the host without `www.`. */
export const domainOf = (url: string): string =>
  new URL(url).hostname
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/^\[|\]$/g, '');

/** A text shorter than this is no fingerprint of an article (a teaser, a cookie wall). */
export const BODY_HASH_MIN_CHARS = 500;

/**
 * The content hash of a page's text, the second dedupe key beside the canonical URL: the SHA-1 of
 * its words (letters and digits, lower case, one space apart), null for a text under
 * BODY_HASH_MIN_CHARS. The same article served under two URLs (a redirect link and its target, a
 * tracking copy) has one hash.
 */
export function bodyHash(text: string): string | null {
  const words =
    text
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.join(' ') ?? '';
  return words.length < BODY_HASH_MIN_CHARS ? null : crypto.createHash('sha1').update(words).digest('hex');
}
