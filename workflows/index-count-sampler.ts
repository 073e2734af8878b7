/**
 * indexCountSampler: sample GET /v1/index_counts for a window ending at the run's scheduled time
 * (the last `lookback`), one activity per domain (or one over every domain), and land the buckets
 * (merge key: domain, bucket start, sampling, filter hash), then write the load's `_loads` row.
 * Re-sampling the lookback updates buckets that grew since the last run. Pure orchestration.
 */
import { ApplicationFailure, defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { IndexCountSamplerActivities, Sampling } from '../activities/index-count-sampler.js';
import { evaluateChecks, failOnChecks, type LoadChecksConfig } from './checks.js';

export interface IndexCountSamplerInput {
  /** the named pipeline (project file) this run belongs to: its `_loads` rows carry it */
  pipeline?: string;
  sampling: Sampling;
  /** one series per domain; default: one series over every domain (domain '*') */
  domains?: string[];
  /** any index_counts filter (categories, languages, time_filter, ...); part of the series' identity */
  filters?: Record<string, unknown>;
  /** how far before the run's scheduled time to sample: "90m", "6h", "3d", "2w"; default DEFAULT_LOOKBACK[sampling] */
  lookback?: string;
  /** an explicit window (ISO) instead: from defaults to `to` - lookback, `to` to the scheduled time */
  from?: string;
  to?: string;
  /** the pipeline's checks (the project file's `checks:`): a failed one fails the run, non-retryable (workflows/checks.ts) */
  checks?: LoadChecksConfig;
}
export interface IndexCountSamplerResult {
  loadId: string;
  domains: number;
  buckets: number;
  inserted: number;
  updated: number;
  articles: number;
}

/** Default lookback per sampling: the current bucket and enough before it to catch late arrivals. */
export const DEFAULT_LOOKBACK: Record<Sampling, string> = { '5m': '1h', '1h': '6h', '12h': '2d', '1d': '3d', '1w': '3w', '1m': '62d' };

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** "90m", "6h", "3d", "2w" -> ms */
export function lookbackMs(s: string): number {
  const m = /^\s*(\d+)\s*([mhdw])\s*$/.exec(s);
  if (!m || Number(m[1]) <= 0) throw new Error(`lookback "${s}" is not a duration like 90m, 6h, 3d or 2w`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

const { sampleIndexCounts, recordIndexCountLoad } = proxyActivities<IndexCountSamplerActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export const indexCountProgress = defineQuery<{ done: number; domains: number; buckets: number }>('progress');

export async function indexCountSampler(input: IndexCountSamplerInput): Promise<IndexCountSamplerResult> {
  const info = workflowInfo();
  // a scheduled (or backfilled) run samples up to its scheduled time, not its start time
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const at = scheduled ? new Date(scheduled as string | Date) : info.startTime;
  let to: number;
  let from: number;
  try {
    to = input.to ? Date.parse(input.to) : at.getTime();
    from = input.from ? Date.parse(input.from) : to - lookbackMs(input.lookback ?? DEFAULT_LOOKBACK[input.sampling]);
    if (Number.isNaN(from) || Number.isNaN(to) || to < from) throw new Error(`window from ${input.from} to ${input.to} is not an ordered pair of ISO times`);
  } catch (e) {
    throw ApplicationFailure.nonRetryable((e as Error).message, 'WindowError');
  }
  const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const named = [...new Set((input.domains ?? []).map((d) => d.trim().toLowerCase()).filter(Boolean))];
  const domains: (string | null)[] = named.length ? named : [null];
  const loadId = `${info.workflowId}/${info.runId}`;
  const s = { done: 0, buckets: 0, inserted: 0, updated: 0, articles: 0, contiguous: true, perDomain: [] as number[] };
  setHandler(indexCountProgress, () => ({ done: s.done, domains: domains.length, buckets: s.buckets }));
  for (const domain of domains) {
    const r = await sampleIndexCounts({ loadId, sampling: input.sampling, domain, filters: input.filters ?? {}, ...window });
    s.done++;
    s.buckets += r.buckets;
    s.inserted += r.inserted;
    s.updated += r.updated;
    s.articles += r.articles;
    s.contiguous &&= r.contiguous;
    s.perDomain.push(r.buckets);
  }
  const invariants = {
    sampling: input.sampling,
    domains: domains.length,
    buckets_contiguous: s.contiguous,
    same_buckets_per_domain: s.perDomain.every((n) => n === s.perDomain[0]),
    articles: s.articles,
  };
  const checks = evaluateChecks(input.pipeline ?? 'index-counts', input.checks, { received: s.buckets }, invariants);
  await recordIndexCountLoad({
    loadId,
    pipeline: input.pipeline,
    workflowId: info.workflowId,
    runId: info.runId,
    ...window,
    received: s.buckets,
    inserted: s.inserted,
    updated: s.updated,
    startedAt: info.startTime.toISOString(),
    invariants,
    ...(checks ? { checks } : {}),
  });
  failOnChecks(checks);
  return { loadId, domains: domains.length, buckets: s.buckets, inserted: s.inserted, updated: s.updated, articles: s.articles };
}
