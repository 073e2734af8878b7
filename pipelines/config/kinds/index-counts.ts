/** index-counts: sample the index counts per domain and bucket, one schedule per sampling. */
import { z } from 'zod';
import { IndexCountsQuery, Sampling } from '../../../spec/index.js';
import { KIND_SPECS, type DefaultSchedule } from '../../../workflows/kinds.js';
import { Duration, given, checksField, kindBase } from '../fields.js';
import { defineKind } from './define.js';
import { RunOptionError, windowOf } from './window.js';

/** Index-count sampling: when each sampling's schedule runs (UTC) and how far back missed runs are caught up. */
export const INDEX_COUNT_CADENCE: Record<z.infer<typeof Sampling>, DefaultSchedule & { cron: string }> = {
  '5m': { cron: '*/5 * * * *', catchup: '15m' },
  '1h': { cron: '0 * * * *', catchup: '3h' },
  '12h': { cron: '0 0,12 * * *', catchup: '1d' },
  '1d': { cron: '0 0 * * *', catchup: '2d' },
  '1w': { cron: '0 0 * * 1', catchup: '1w' },
  '1m': { cron: '0 0 1 * *', catchup: '1w' },
};

const countFilters = Object.fromEntries(
  Object.entries(IndexCountsQuery.shape)
    .filter(([k]) => !['start_datetime', 'end_datetime', 'domains', 'sampling'].includes(k))
    .map(([k, s]) => [k, given(s as z.ZodType)]),
);
export const IndexCountsPipeline = z
  .strictObject({
    ...kindBase,
    ...checksField(KIND_SPECS['index-counts'].checks.invariants),
    kind: z.literal('index-counts'),
    samplings: z.array(Sampling).min(1).default(['1h', '1d']).describe('bucket sizes; one schedule each, at its own cadence unless schedule is given'),
    domains: z.array(z.string().min(1)).optional().describe('one series per domain (default: one series over every domain)'),
    filters: z.strictObject(countFilters).optional().describe('any GET /v1/index_counts filter'),
    lookback: Duration.optional().describe('re-sample this far back on each run (default: per sampling)'),
  })
  .describe('index-counts: sample the index counts per domain and bucket');

export const indexCounts = defineKind({
  ...KIND_SPECS['index-counts'],
  config: IndexCountsPipeline,
  runs: (p) =>
    p.samplings.map((sampling) => ({
      id: `${p.name}-${sampling}`,
      args: {
        pipeline: p.name,
        sampling,
        ...(p.domains?.length ? { domains: p.domains } : {}),
        ...(p.filters && Object.keys(p.filters).length ? { filters: p.filters } : {}),
        ...(p.lookback ? { lookback: p.lookback } : {}),
      },
      what: `${sampling} buckets, re-sampling the lookback`,
      defaultSchedule: INDEX_COUNT_CADENCE[sampling],
    })),
  cli: {
    help: '--from, --to, --sampling, --domains, --filters (JSON)',
    run: async (o) => {
      const window = windowOf('index-counts', o);
      if (!Sampling.safeParse(o.sampling).success) throw new RunOptionError(`unknown --sampling "${o.sampling}"; samplings: ${Sampling.options.join(', ')}`);
      let filters: Record<string, unknown>;
      try {
        filters = o.filters ? JSON.parse(o.filters) : {};
        (await import('../../../activities/index-count-sampler.js')).canonicalFilters(filters);
      } catch (e) {
        throw new RunOptionError(`--filters: ${(e as Error).message}; e.g. --filters '{"languages":["en"],"categories":["Politics"]}'`);
      }
      return {
        input: { sampling: o.sampling, domains: o.domains, filters, ...window },
        show: (p: { done: number; domains: number; buckets: number }) => [p.done, p.domains, `${p.buckets} buckets`],
      };
    },
  },
});
