/**
 * Publisher facts: country, continent, podcast and premium flags, page rank.
 *
 * Country: a curated map of the publishers in our corpus first, then the country-code TLD
 * (`.co.uk` -> GB, `.de` -> DE ...), else `US` for generic TLDs (the headline corpus was
 * collected from US-centred forums). `country_source` in the publishers table says which rule
 * gave the answer (curated, tld, default).
 *
 * page_rank (lower is more prominent, as the `page_rank` filter is a maximum): publishers are
 * ranked by the number of articles they have in the store, most first, ties by domain; the rank
 * is 1-based. It is recomputed after every load.
 */
import type { Continent } from '../../spec/index.js';
import { gazetteer } from './geo.js';

const CURATED: Record<string, string> = {
  'theguardian.com': 'GB',
  'reuters.com': 'GB',
  'bbc.com': 'GB',
  'bbc.co.uk': 'GB',
  'news.sky.com': 'GB',
  'independent.co.uk': 'GB',
  'ft.com': 'GB',
  'economist.com': 'GB',
  'telegraph.co.uk': 'GB',
  'dailymail.co.uk': 'GB',
  'thetimes.co.uk': 'GB',
  'mirror.co.uk': 'GB',
  'aljazeera.com': 'QA',
  'dw.com': 'DE',
  'france24.com': 'FR',
  'euronews.com': 'FR',
  'rt.com': 'RU',
  'scmp.com': 'HK',
  'timesofindia.indiatimes.com': 'IN',
  'hindustantimes.com': 'IN',
  'ndtv.com': 'IN',
  'abc.net.au': 'AU',
  'smh.com.au': 'AU',
  'cbc.ca': 'CA',
  'theglobeandmail.com': 'CA',
  'japantimes.co.jp': 'JP',
  'kyivindependent.com': 'UA',
  'kyivpost.com': 'UA',
  'themoscowtimes.com': 'RU',
  'haaretz.com': 'IL',
  'timesofisrael.com': 'IL',
  'jpost.com': 'IL',
  'arabnews.com': 'SA',
  'straitstimes.com': 'SG',
  'nzherald.co.nz': 'NZ',
  'rnz.co.nz': 'NZ',
  'thelocal.se': 'SE',
  'politico.eu': 'BE',
  'cnn.com': 'US',
  'edition.cnn.com': 'US',
  'nytimes.com': 'US',
  'washingtonpost.com': 'US',
  'apnews.com': 'US',
  'nbcnews.com': 'US',
};

/** ccTLD -> ISO 3166-1 alpha-2 (uk is GB). */
const CCTLD_EXCEPTIONS: Record<string, string> = { uk: 'GB', su: 'RU', eu: 'BE' };
/** TLDs that look like country codes but are used generically. */
const GENERIC_CCTLDS = new Set(['tv', 'io', 'co', 'me', 'fm', 'ai', 'ly', 'gg', 'cc', 'ws', 'to', 'am']);

export function continentOf(country: string): Continent | null {
  return gazetteer().continentOf.get(country) ?? null;
}

export function publisherCountry(domain: string): { country: string; source: 'curated' | 'tld' | 'default' } {
  const d = domain.toLowerCase();
  const curated = CURATED[d] ?? CURATED[d.split('.').slice(-2).join('.')];
  if (curated) return { country: curated, source: 'curated' };
  const tld = d.split('.').pop() ?? '';
  if (tld.length === 2 && !GENERIC_CCTLDS.has(tld)) {
    const cc = CCTLD_EXCEPTIONS[tld] ?? tld.toUpperCase();
    if (gazetteer().continentOf.has(cc)) return { country: cc, source: 'tld' };
  }
  return { country: 'US', source: 'default' };
}

const PODCAST_HOSTS = new Set(['podcasts.apple.com', 'anchor.fm', 'podbean.com', 'stitcher.com', 'pca.st', 'overcast.fm', 'podcasts.google.com']);
/**
 * A podcast is an episode page, told by its URL: a podcast host, or a /podcast(s)/, /episode(s)/
 * or Spotify /show/ path. A news story that mentions a podcast is not one.
 */
export const PODCAST_URL = /\/(podcasts?|episodes?)\/|open\.spotify\.com\/(show|episode)\//i;
export function isPodcast(domain: string, url: string, _title = ''): boolean {
  return PODCAST_HOSTS.has(domain) || PODCAST_URL.test(url);
}

/** Subscription publishers: excluded from search unless `premium=true`. */
const PREMIUM = new Set([
  'wsj.com',
  'ft.com',
  'economist.com',
  'bloomberg.com',
  'nytimes.com',
  'washingtonpost.com',
  'thetimes.co.uk',
  'telegraph.co.uk',
  'theathletic.com',
  'barrons.com',
  'newyorker.com',
  'theatlantic.com',
  'wired.com',
  'businessinsider.com',
]);
export function isPremium(domain: string): boolean {
  return PREMIUM.has(domain) || PREMIUM.has(domain.split('.').slice(-2).join('.'));
}

/** source_id: the publisher's name label ("reuters" for reuters.com, "bbc" for bbc.co.uk, "cnn" for edition.cnn.com). */
export function sourceIdOf(domain: string): string {
  const labels = domain.toLowerCase().split('.');
  labels.pop();
  if (labels.length >= 2 && ['co', 'com', 'org', 'net', 'ac', 'gov'].includes(labels[labels.length - 1]!)) labels.pop();
  return labels[labels.length - 1] ?? domain;
}

/** Rank domains by article count (most first), ties by name; 1-based. */
export function pageRanks(counts: Map<string, number>): Map<string, number> {
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return new Map(sorted.map(([d], i) => [d, i + 1]));
}
