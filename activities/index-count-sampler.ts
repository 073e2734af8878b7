/** Activities of indexCountSampler: one GET /v1/index_counts per domain and window, landed idempotently. */
import crypto from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { IndexCountsQuery, type IndexCountsQueryParsed } from '../spec/index.js';
import type { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { INDEX_COUNTS, indexCountRows } from '../warehouse/tables/index-counts.js';
import { failingFast } from './api-failure.js';
import { recordWindowLoad, type WindowLoad } from './record-load.js';

export type Sampling = IndexCountsQueryParsed['sampling'];

/** Parameters of index_counts the sampler sets itself; the rest are filters. */
const NOT_FILTERS = new Set(['start_datetime', 'end_datetime', 'domains', 'sampling']);

/**
 * The canonical form of a filter set, so equal filters give one filter_hash: validated by spec/,
 * defaults filled in (time_filter pub_date; string_guarantee_op AND and entity_guarantee_op OR when
 * their list is given, else dropped), empty values dropped, keys sorted, lists sorted without
 * repeats. Throws on invalid filters.
 */
export function canonicalFilters(filters: Record<string, unknown>): Record<string, unknown> {
  const reserved = Object.keys(filters).filter((k) => NOT_FILTERS.has(k));
  if (reserved.length) throw new Error(`filters may not set ${reserved.join(', ')} (the sampler sets them)`);
  const r = IndexCountsQuery.safeParse(filters);
  if (!r.success) throw new Error(`invalid index-count filters: ${r.error.issues.map((i) => `${i.path.join('.') || '(filters)'}: ${i.message}`).join('; ')}`);
  const out: Record<string, unknown> = {};
  // an operator without its list changes nothing
  const idle = new Set([
    ...(r.data.string_guarantee?.length ? [] : ['string_guarantee_op']),
    ...(r.data.entity_guarantee?.length ? [] : ['entity_guarantee_op']),
  ]);
  for (const [k, v] of Object.entries(r.data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (NOT_FILTERS.has(k) || idle.has(k) || v === null || v === undefined) continue;
    if (k === 'bad_domain_url' || Array.isArray(v)) {
      const list = [...new Set((Array.isArray(v) ? v : [v]) as string[])].sort();
      if (list.length) out[k] = list;
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** 16 hex characters of the SHA-1 of the canonical filters. */
export const filterHash = (canonical: Record<string, unknown>) => crypto.createHash('sha1').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);

export interface SampleInput {
  loadId: string;
  sampling: Sampling;
  /** one domain (its subdomains included, as the API matches them), or null for every domain */
  domain: string | null;
  filters: Record<string, unknown>;
  /** ISO; the API answers every bucket that meets [from, to) */
  from: string;
  to: string;
}
export interface SampleResult {
  buckets: number;
  inserted: number;
  updated: number;
  /** sum of the counts */
  articles: number;
  /** each bucket ends where the next starts */
  contiguous: boolean;
}

export function createIndexCountSamplerActivities(deps: { client: NewsClient; warehouse: Warehouse }) {
  return failingFast({
    async sampleIndexCounts(input: SampleInput): Promise<SampleResult> {
      Context.current().heartbeat({ domain: input.domain });
      let filters: Record<string, unknown>;
      try {
        filters = canonicalFilters(input.filters);
      } catch (e) {
        throw ApplicationFailure.nonRetryable((e as Error).message, 'InvalidFilters');
      }
      const domain = input.domain === null ? null : input.domain.trim().toLowerCase();
      const items = await deps.client.getIndexCounts({
        ...(filters as Parameters<NewsClient['getIndexCounts']>[0]),
        sampling: input.sampling,
        start_datetime: input.from,
        end_datetime: input.to,
        domains: domain ? [domain] : undefined,
      });
      const hash = filterHash(filters);
      const json = JSON.stringify(filters);
      const loadedAt = Date.now() * 1000;
      const rows = indexCountRows(items, { domain, sampling: input.sampling, filterHash: hash, filters: json, loadedAt, loadId: input.loadId });
      const counts = await deps.warehouse.land(INDEX_COUNTS, rows, [], input.loadId);
      Context.current().heartbeat({ domain: input.domain, buckets: rows.length });
      return {
        buckets: rows.length,
        inserted: counts.inserted,
        updated: counts.updated,
        articles: items.reduce((n, i) => n + i.count, 0),
        contiguous: items.every((it, k) => k === 0 || it.start === items[k - 1]!.end),
      };
    },

    async recordIndexCountLoad(input: WindowLoad): Promise<void> {
      await recordWindowLoad(deps.warehouse, 'index-counts', input); // the kind's one name (workflows/kinds.ts);
    },
  });
}
export type IndexCountSamplerActivities = ReturnType<typeof createIndexCountSamplerActivities>;
