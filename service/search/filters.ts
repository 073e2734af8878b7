/** Search filters compiled to one predicate over documents of the index. */
import type { SearchParamsParsed } from '../../spec/index.js';
import { GeoPolygon, normaliseDomain, normaliseList } from '../../spec/index.js';
import type { NewsArticle } from '../article/model.js';
import { sentimentLabel } from '../text/sentiment.js';

export interface DocView {
  a: NewsArticle;
  /** lowercased searchable text: title, summary, key points, full text */
  text: string;
  /** "type:value" lowercased */
  entityKeys: Set<string>;
  /** [lat, lon] of the article's locations */
  points: [number, number][];
  /** `a.pubDate` / `a.crawlDate` in epoch ms and `a.isPremium`, kept on the view so the filter of
   * every search (time window, premium) reads plain fields instead of the article record */
  pubMs: number;
  crawlMs: number;
  premium: boolean;
  /** `a.owner`: null for the shared corpus, else the only owner who sees the document */
  owner: string | null;
  /** left the index (past the retention, or replaced by a newer version of the article): no search finds it */
  gone?: boolean;
}

const EARTH_RADIUS_M = 6_371_008.8;
/** Great-circle distance in metres (haversine). */
export function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const dLat = (lat2 - lat1) * r;
  const dLon = (lon2 - lon1) * r;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Ray casting; points on the edge count as inside. */
export function inRing(lat: number, lon: number, ring: { lat: number; lon: number }[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (a.lat > lat !== b.lat > lat && lon < ((b.lon - a.lon) * (lat - a.lat)) / (b.lat - a.lat) + a.lon) inside = !inside;
  }
  return inside;
}

export function inPolygon(lat: number, lon: number, p: GeoPolygon): boolean {
  return inRing(lat, lon, p.exterior) && !(p.interiors ?? []).some((h) => inRing(lat, lon, h));
}

const domainMatch = (d: string, wanted: string[]) => wanted.some((w) => d === w || d.endsWith(`.${w}`));
const normDomain = normaliseDomain;

export interface FilterContext {
  /** [from, to] in epoch ms on `field`, either side open */
  window: { field: 'crawl_date' | 'pub_date'; from: number | null; to: number | null };
  /** publisher organizations see only their domains */
  onlyDomains: string[] | null;
  /**
   * whose documents the caller sees besides the shared corpus (auth/principal.ts `ownerOf`);
   * absent or null: the shared corpus only
   */
  viewer?: string | null;
  /** whether any document has an owner (false: the owner check is skipped) */
  owned?: boolean;
  /** whether any document left the index (false: that check is skipped) */
  removed?: boolean;
}

export function compileFilter(p: SearchParamsParsed, ctx: FilterContext): (d: DocView) => boolean {
  const checks: ((d: DocView) => boolean)[] = [];
  const { field, from, to } = ctx.window;
  if (from !== null || to !== null) {
    const lo = from ?? -Infinity;
    const hi = to ?? Infinity;
    checks.push(field === 'pub_date' ? (d) => d.pubMs >= lo && d.pubMs <= hi : (d) => d.crawlMs >= lo && d.crawlMs <= hi);
  }
  if (ctx.removed !== false) checks.push((d) => !d.gone);
  if (ctx.owned !== false) {
    const viewer = ctx.viewer ?? null;
    checks.push((d) => d.owner === null || d.owner === viewer);
  }
  if (ctx.onlyDomains) {
    const own = ctx.onlyDomains.map(normDomain);
    checks.push((d) => domainMatch(d.a.domain, own));
  }
  const cats = p.categories?.filter((c) => c !== 'All');
  if (cats?.length) checks.push((d) => d.a.classification.some((c) => cats.includes(c as never)));
  if (p.provocative && p.provocative !== 'all') checks.push((d) => d.a.provocative === p.provocative);
  const voices = normaliseList(p.reporting_voice);
  if (voices?.length && !voices.includes('all')) checks.push((d) => voices.includes(d.a.reportingVoice as never));
  const only = normaliseList(p.domain_url)?.map(normDomain);
  if (only?.length) checks.push((d) => domainMatch(d.a.domain, only));
  const bad = normaliseList(p.bad_domain_url)?.map(normDomain);
  if (bad?.length) checks.push((d) => !domainMatch(d.a.domain, bad));
  if (p.podcasts === 'only') checks.push((d) => d.a.isPodcast);
  if (p.podcasts === 'none') checks.push((d) => !d.a.isPodcast);
  if (p.page_rank != null) checks.push((d) => d.a.pageRank <= p.page_rank!);
  if (!p.premium) checks.push((d) => !d.premium);
  if (p.string_guarantee?.length) {
    const ss = p.string_guarantee.map((s) => s.toLowerCase());
    checks.push(p.string_guarantee_op === 'OR' ? (d) => ss.some((s) => d.text.includes(s)) : (d) => ss.every((s) => d.text.includes(s)));
  }
  if (p.reverse_string_guarantee?.length) {
    const ss = p.reverse_string_guarantee.map((s) => s.toLowerCase());
    checks.push((d) => !ss.some((s) => d.text.includes(s)));
  }
  const entKey = (item: string) => {
    const i = item.indexOf(':');
    return `${item.slice(0, i).trim().toLowerCase()}:${item
      .slice(i + 1)
      .trim()
      .toLowerCase()}`;
  };
  if (p.entity_guarantee?.length) {
    const ks = p.entity_guarantee.map(entKey);
    checks.push(p.entity_guarantee_op === 'AND' ? (d) => ks.every((k) => d.entityKeys.has(k)) : (d) => ks.some((k) => d.entityKeys.has(k)));
  }
  if (p.reverse_entity_guarantee?.length) {
    const ks = p.reverse_entity_guarantee.map(entKey);
    checks.push((d) => !ks.some((k) => d.entityKeys.has(k)));
  }
  if (p.languages?.length) checks.push((d) => p.languages!.includes(d.a.language as never));
  if (p.countries?.length) {
    const cs = p.countries.map((c) => c.toUpperCase());
    checks.push((d) => cs.includes(d.a.country));
  }
  if (p.countries_blacklist?.length) {
    const cs = p.countries_blacklist.map((c) => c.toUpperCase());
    checks.push((d) => !cs.includes(d.a.country));
  }
  if (p.continents?.length) checks.push((d) => d.a.continent !== null && p.continents!.includes(d.a.continent as never));
  if (p.sentiment) checks.push((d) => sentimentLabel(d.a.sentiment) === p.sentiment);
  if (p.authors?.length) {
    const names = p.authors.map((n) => n.toLowerCase());
    checks.push((d) => !!d.a.authors?.some((au) => au.name && names.includes(au.name.toLowerCase())));
  }
  if (p.geo_lat != null && p.geo_lon != null && p.geo_radius != null) {
    const { geo_lat: lat, geo_lon: lon, geo_radius: r } = p;
    checks.push((d) => d.points.some(([a, b]) => haversine(lat, lon, a, b) <= r));
  }
  if (p.geo_polygon) {
    const poly = GeoPolygon.parse(JSON.parse(p.geo_polygon));
    checks.push((d) => d.points.some(([a, b]) => inPolygon(a, b, poly)));
  }
  if (checks.length === 0) return () => true;
  if (checks.length === 1) return checks[0]!;
  return (d) => {
    for (let i = 0; i < checks.length; i++) if (!checks[i]!(d)) return false;
    return true;
  };
}
