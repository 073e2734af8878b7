/** Publisher distribution analytics (interface "Publisher distribution endpoints"; ../shared/spec/asknews-facts.md §10). */
import { z } from 'zod';
import { DistributionMetric } from './enums.js';
import { DateTime, record, UnixSeconds, Uuid } from './common.js';
import { Paginated } from './alerts.js';
import { inOneUtcMonth, notBefore, X_RULES } from './rules.js';

export const DISTRIBUTION_LIMITS = {
  limitMax: 100,
  timeseriesLimitMax: 1000,
  requestRate: 0.2,
  burst: 5,
  concurrency: 2,
  cacheSeconds: 30,
} as const;

/** [start, end) of the UTC calendar month that holds `unixSeconds`. */
export function utcMonthOf(unixSeconds: number): { start: number; end: number } {
  const d = new Date(unixSeconds * 1000);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  return { start, end };
}
export function sameUtcMonth(a: number, b: number): boolean {
  return utcMonthOf(a).start === utcMonthOf(b).start;
}

type Dates = { start_date?: number | null; end_date?: number | null };
/** Dates required, end not before start, both inside one UTC calendar month. */
export function checkDistributionDates(v: Dates, ctx: z.RefinementCtx): void {
  if (v.start_date == null || v.end_date == null) return; // reported as missing by the field schema
  // zod runs this rule even when a field failed: a date its field refuses (reported there) is
  // not compared, so no month is asked of a Date that cannot hold it
  if (!UnixSeconds.safeParse(v.start_date).success || !UnixSeconds.safeParse(v.end_date).success) return;
  if (v.end_date < v.start_date) {
    ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'end_date is before start_date' });
  } else if (!sameUtcMonth(v.start_date, v.end_date)) {
    const month = (s: number) => new Date(s * 1000).toISOString().slice(0, 7);
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      message: `start_date (${month(v.start_date)}) and end_date (${month(v.end_date)}) must be in the same UTC calendar month`,
    });
  }
}

const DomainNames = z.array(z.string().min(1)).min(1);
const dates = { start_date: UnixSeconds, end_date: UnixSeconds };
const limit = z.int().min(1).max(DISTRIBUTION_LIMITS.limitMax).default(10);
const page = z.int().min(1).default(1);
const withDates = <T extends z.ZodRawShape>(shape: T) =>
  z
    .object({ ...shape, ...dates })
    .superRefine((v, ctx) => checkDistributionDates(v as Dates, ctx))
    .meta({ [X_RULES]: [notBefore('start_date', 'end_date'), inOneUtcMonth('start_date', 'end_date')] });

export const HitShareQuery = withDates({ domain_names: DomainNames, is_publisher: z.boolean().default(true) });
export const TopNForDomainsQuery = withDates({ domain_names: DomainNames, limit, page, metric: DistributionMetric.default('surface') });
export const TopNForDomainTimeseriesQuery = withDates({
  domain_name: z.string().min(1),
  limit: z.int().min(1).max(DISTRIBUTION_LIMITS.timeseriesLimitMax).default(10),
});
export const TopNArticlesQuery = withDates({ limit, page, domain_names: z.array(z.string()).nullable().optional() });
export const DomainQueriesQuery = withDates({ domain_names: DomainNames, limit });
export const MonthQuery = z.object({
  domain_names: DomainNames,
  year: z.int().min(2000).max(2100),
  month: z.int().min(1).max(12),
});
export const MetricsQuery = withDates({ domain_names: DomainNames });
export const CountQuery = withDates({ domain_name: z.string().min(1) });
export const TopNDomainsQuery = withDates({ limit, names: z.array(z.string()).nullable().optional() });
export const FindDomainsQuery = z.object({
  page: z.int().min(1).default(1),
  per_page: z.int().min(1).max(100).default(10),
  names: z.array(z.string()).nullable().optional(),
  is_tollbit: z.boolean().nullable().optional(),
  publisher: z.boolean().nullable().optional(),
  full_text: z.boolean().nullable().optional(),
});
export const DomainPath = z.object({ name: z.string().min(1) });

export const HitShareResponse = record({
  data: z.array(z.object({ domain: z.string(), hit_share: z.number() })),
  total_share: z.number(),
}).meta({ id: 'HitShareResponse' });
export type HitShareResponse = z.infer<typeof HitShareResponse>;

export const TopNArticlesForDomainItem = z.looseObject({
  article_url: z.string().optional(),
  article_id: z.string().nullable().default(null),
  hit_count: z.int(),
});
export const TopNForDomainsResponse = record({
  data: z.array(TopNArticlesForDomainItem),
  total_count: z.int(),
  page: z.int().default(1),
  next_page: z.int().nullable().default(null),
}).meta({ id: 'TopNArticlesForDomainResponse' });
export type TopNForDomainsResponse = z.infer<typeof TopNForDomainsResponse>;

export const TopNArticlesByHitsResponse = record({
  data: z.array(z.object({ article_url: z.string(), hit_count: z.int() })),
  total_count: z.int(),
  page: z.int().default(1),
  next_page: z.int().nullable().default(null),
}).meta({ id: 'TopNArticlesByHitsResponse' });

export const TopNArticlesTimeseriesResponse = record({
  data: z.array(
    z.object({
      day: z.string(),
      articles: z.array(z.object({ article_url: z.string(), article_id: z.string().nullable().default(null), hit_count: z.int() })),
      total_count: z.int(),
    }),
  ),
  total_count: z.int(),
}).meta({ id: 'TopNArticlesTimeseriesResponse' });

export const TopNDomainsResponse = record({
  data: z.array(z.object({ domain: z.string(), hit_count: z.int() })),
  total_count: z.int(),
}).meta({ id: 'TopNDomainsByHitsResponse' });

export const DomainHitsSurfaceResponse = record({ hits: z.int(), surfaced: z.int() }).meta({ id: 'DomainHitsSurfaceResponse' });
export const DomainHitsSurfaceTimeWindowResponse = record({
  data: z.array(z.object({ day: z.string(), hits: z.int(), surfaced: z.int() })),
  total_hits: z.int(),
  total_surfaced: z.int(),
}).meta({ id: 'DomainHitsSurfaceTimeWindowResponse' });

/**
 * Two numbers (x, y). An array of length 2, not a tuple: a tuple is `prefixItems` in the OpenAPI
 * document, which Schemathesis (4.32.5) rewrites to a draft-7 `items` array when it checks a
 * response, then refuses as an invalid schema.
 */
const Pair = z.array(z.number()).length(2);
export const DomainQueriesResponse = record({
  data: z.array(
    z.object({
      cluster_label: z.string(),
      cluster_description: z.string(),
      cluster_classification: z.string(),
      centroid_coords: Pair,
      cluster_queries: z.array(
        z.object({
          query: z.string(),
          coords: Pair,
          n_hits: z.int(),
          articles: z.array(z.object({ article_id: z.string(), hit_date: z.string() })),
        }),
      ),
    }),
  ),
}).meta({ id: 'DomainQueriesResponse' });

export const DomainMetricsResponse = record({
  surfaces: z.int(),
  citations: z.int(),
  full_text: z.int(),
  grounded: z.int().default(0),
}).meta({ id: 'DomainMetricsResponse' });
export type DomainMetricsResponse = z.infer<typeof DomainMetricsResponse>;
export const DomainMetricsTimeseriesResponse = record({
  data: z.array(z.object({ day: z.string(), surfaces: z.int(), citations: z.int(), full_text: z.int(), grounded: z.int().default(0) })),
  total_surfaces: z.int(),
  total_citations: z.int(),
  total_full_text: z.int(),
  total_grounded: z.int().default(0),
}).meta({ id: 'DomainMetricsTimeWindowResponse' });

export const CountResponse = record({ count: z.int() }).meta({ id: 'CountResponse' });
export const ReadDomainResponse = record({
  id: Uuid,
  name: z.string(),
  owner: z.string().nullable().optional(),
  is_tollbit: z.boolean().default(false),
  publisher: z.boolean().default(false),
  full_text: z.boolean().default(true),
  created_at: DateTime,
  updated_at: DateTime.nullable().optional(),
}).meta({ id: 'ReadDomainResponse' });
export const DomainsPage = Paginated(ReadDomainResponse, 'PaginatedResponse_ReadDomainResponse');
