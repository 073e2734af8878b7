/** GET /v1/news/search: the parameter table with every rule, and the response (../shared/spec/asknews-facts.md §3). */
import { z } from 'zod';
import {
  Continent,
  Language,
  Podcasts,
  ProvocativeFilter,
  ReportingVoiceFilter,
  ReturnType,
  SearchCategory,
  SearchMethod,
  SearchStrategy,
  SentimentFilter,
  StringOp,
  TimeFilter,
  TryCache,
} from './enums.js';
import { LookbackHours, oneOrMany, UnixSeconds, Uuid } from './common.js';
import { SearchResponseDictItem } from './article.js';
import { allOrNone, notBefore, X_RULES, type CrossFieldRule } from './rules.js';
import { ENTITY_GUARANTEE } from './patterns.js';

export const SEARCH_LIMITS = {
  nArticlesMax: 101,
  recentWindowHours: 48,
  latestNewsHours: 24,
  newsKnowledgeDays: 60,
  cachedCreditFactor: 0.25,
} as const;

export const GeoPoint = z.object({ lon: z.number().min(-180).max(180), lat: z.number().min(-90).max(90) });
export const GeoRing = z
  .array(GeoPoint)
  .min(4, 'a ring needs at least 4 points (3 corners and the closing point)')
  .refine((r) => r.length > 0 && r[0]!.lon === r[r.length - 1]!.lon && r[0]!.lat === r[r.length - 1]!.lat, {
    message: 'ring is not closed: the first and last points must be equal',
  });
const GeoPolygonShape = z.object({ exterior: GeoRing, interiors: z.array(GeoRing).optional() });
export const GeoPolygon = GeoPolygonShape.meta({ id: 'GeoPolygon' });
export type GeoPolygon = z.infer<typeof GeoPolygon>;
/** GeoPolygon as JSON Schema: the contentSchema of the geo_polygon text (ring closure is a rule of SEARCH_RULES). */
const GEO_POLYGON_SCHEMA: Record<string, unknown> = { ...z.toJSONSchema(GeoPolygonShape, { target: 'draft-2020-12', io: 'input' }) };
delete GEO_POLYGON_SCHEMA.$schema;

/** Entity guarantee item `<entity_type>:<entity_value>` (the value on one line: JavaScript's `.+`, spelled so every regex engine reads it alike). */
export const EntityGuaranteeItem = z.string().regex(ENTITY_GUARANTEE, 'expected "<entity_type>:<entity_value>"');

/** The filter set shared by search, chat filter_params, graph filter_params and alert sources. */
export const filterShape = {
  query: z.string().default(''),
  n_articles: z.int().min(1).max(SEARCH_LIMITS.nArticlesMax).default(10),
  start_timestamp: UnixSeconds.nullable().optional(),
  end_timestamp: UnixSeconds.nullable().optional(),
  time_filter: TimeFilter.default('crawl_date'),
  return_type: ReturnType.default('dicts'),
  historical: z.boolean().default(false),
  method: SearchMethod.default('kw'),
  similarity_score_threshold: z.number().default(0.5),
  offset: z.union([z.int().min(0), Uuid]).default(0),
  categories: z.array(SearchCategory).optional(),
  doc_start_delimiter: z.string().default('<doc>'),
  doc_end_delimiter: z.string().default('</doc>'),
  provocative: ProvocativeFilter.optional(),
  reporting_voice: oneOrMany(ReportingVoiceFilter).optional(),
  domain_url: oneOrMany(z.string()).nullable().optional(),
  bad_domain_url: oneOrMany(z.string()).nullable().optional(),
  podcasts: Podcasts.default('include'),
  page_rank: z.int().nullable().optional(),
  diversify_sources: z.boolean().default(false),
  strategy: SearchStrategy.default('default'),
  hours_back: LookbackHours.default(24),
  string_guarantee: z.array(z.string()).nullable().optional(),
  string_guarantee_op: StringOp.default('AND'),
  reverse_string_guarantee: z.array(z.string()).nullable().optional(),
  entity_guarantee: z.array(EntityGuaranteeItem).nullable().optional(),
  reverse_entity_guarantee: z.array(EntityGuaranteeItem).nullable().optional(),
  entity_guarantee_op: StringOp.default('OR'),
  return_graphs: z.boolean().default(false),
  return_geo: z.boolean().default(false),
  languages: z.array(Language).nullable().optional(),
  countries: z.array(z.string().length(2)).nullable().optional(),
  countries_blacklist: z.array(z.string().length(2)).nullable().optional(),
  continents: z.array(Continent).nullable().optional(),
  sentiment: SentimentFilter.nullable().optional(),
  premium: z.boolean().default(false),
  authors: z.array(z.string()).nullable().optional(),
  try_cache: TryCache.nullable().optional(),
  geo_lat: z.number().min(-90).max(90).nullable().optional(),
  geo_lon: z.number().min(-180).max(180).nullable().optional(),
  geo_radius: z.number().positive().nullable().optional(),
  geo_polygon: z
    .string()
    .meta({
      description: 'JSON object {"exterior":[{"lon":..,"lat":..},...], "interiors":[[...]]}; rings closed (first point = last)',
      contentMediaType: 'application/json',
      contentSchema: GEO_POLYGON_SCHEMA,
    })
    .nullable()
    .optional(),
};
/** The rules of checkSearchRules, published as `x-newsflow-rules` (spec/rules.ts). */
export const SEARCH_RULES: CrossFieldRule[] = [
  allOrNone('geo_lat', 'geo_lon', 'geo_radius'),
  {
    rule: 'closed-rings',
    fields: ['geo_polygon'],
    description: 'geo_polygon is JSON text of its contentSchema; each ring (exterior, interiors) is closed: its first point equals its last',
  },
  notBefore('start_timestamp', 'end_timestamp'),
];
export const SEARCH_PARAM_NAMES = Object.keys(filterShape);

type GeoFields = {
  geo_lat?: number | null;
  geo_lon?: number | null;
  geo_radius?: number | null;
  geo_polygon?: string | null;
  start_timestamp?: number | null;
  end_timestamp?: number | null;
};
/** Cross-field rules: geo triple together, polygon JSON valid, window ordered. */
export function checkSearchRules(v: GeoFields, ctx: z.RefinementCtx): void {
  const geo = { geo_lat: v.geo_lat, geo_lon: v.geo_lon, geo_radius: v.geo_radius };
  const given = Object.entries(geo)
    .filter(([, x]) => x !== undefined && x !== null)
    .map(([k]) => k);
  if (given.length > 0 && given.length < 3) {
    for (const k of Object.keys(geo).filter((k) => !given.includes(k))) {
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: `geo_lat, geo_lon and geo_radius must be given together (got only ${given.join(', ')})`,
      });
    }
  }
  if (v.geo_polygon !== undefined && v.geo_polygon !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v.geo_polygon);
    } catch {
      ctx.addIssue({ code: 'custom', path: ['geo_polygon'], message: 'geo_polygon is not valid JSON' });
      return;
    }
    const r = GeoPolygon.safeParse(parsed);
    if (!r.success) {
      for (const issue of r.error.issues) {
        ctx.addIssue({ code: 'custom', path: ['geo_polygon', ...issue.path.map(String)], message: issue.message });
      }
    }
  }
  if (v.start_timestamp != null && v.end_timestamp != null && v.end_timestamp < v.start_timestamp) {
    ctx.addIssue({ code: 'custom', path: ['end_timestamp'], message: 'end_timestamp is before start_timestamp' });
  }
}

export const SearchParams = z
  .object(filterShape)
  .superRefine(checkSearchRules)
  .meta({ id: 'SearchParams', [X_RULES]: SEARCH_RULES });
export type SearchParams = z.input<typeof SearchParams>;
export type SearchParamsParsed = z.output<typeof SearchParams>;

/** Filters accepted inside chat, graph and DeepNews bodies: any search parameter, all optional (checked as search parameters, SEARCH_RULES included). */
export const FilterParams = z
  .looseObject(Object.fromEntries(Object.entries(filterShape).map(([k, s]) => [k, (s as z.ZodType).optional()])))
  .meta({ id: 'FilterParams', [X_RULES]: SEARCH_RULES });

export const Usage = z.object({ credits: z.number() }).meta({ id: 'SearchUsage' });
export const SearchResponse = z
  .looseObject({
    as_dicts: z.array(SearchResponseDictItem).nullable().optional(),
    as_string: z.string().nullable().optional(),
    offset: z.union([z.int(), z.string()]).nullable().optional(),
    usage: Usage.nullable().optional(),
  })
  .meta({ id: 'SearchResponse' });
export type SearchResponse = z.infer<typeof SearchResponse>;
