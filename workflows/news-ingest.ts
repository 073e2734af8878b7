/**
 * newsIngest: page through a search window (offset paging) and land every page; then write the
 * load's `_loads` row. Pure orchestration: every I/O step is an activity.
 */
import type { NewsIngestActivities } from '../activities/news-ingest.js';
import { ApplicationFailure, continueAsNew, defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { RecordLoadActivities } from '../activities/record-load.js';
import { KIND_SPECS } from './kinds.js';
import { evaluateChecks, failOnChecks, type LoadChecksConfig } from './checks.js';

export interface NewsIngestInput {
  /** the named pipeline (project file) this run belongs to: its `_loads` rows and pipeline_articles carry it */
  pipeline?: string;
  query?: string;
  filters?: Record<string, unknown>;
  /** window on crawl_date (ISO); defaults: the `windowMs` before the run's scheduled (else start) time */
  from?: string;
  to?: string;
  /** the window's length when `from` is not given, in ms (default one hour) */
  windowMs?: number;
  pageSize?: number;
  /** the schema contract for fields the API adds or drops: evolve (default), freeze or discard */
  schema?: 'evolve' | 'freeze' | 'discard';
  /** the pipeline's checks (the project file's `checks:`): a failed one fails the run, non-retryable (workflows/checks.ts) */
  checks?: LoadChecksConfig;
  /** carried across continue-as-new */
  state?: { offset: number; received: number; inserted: number; updated: number; pages: number; startedAt: string; loadId: string };
}
export interface NewsIngestResult {
  loadId: string;
  pages: number;
  received: number;
  inserted: number;
  updated: number;
}

const { ingestPage } = proxyActivities<NewsIngestActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

const { recordLoad } = proxyActivities<RecordLoadActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });

export const progressQuery = defineQuery<{ pages: number; received: number; offset: number }>('progress');

/** Pages per run before continuing as new (keeps history small). */
const PAGES_PER_RUN = 200;

export async function newsIngest(input: NewsIngestInput): Promise<NewsIngestResult> {
  const info = workflowInfo();
  // a scheduled (or backfilled) run covers the window before its scheduled time, not its start time
  const scheduled = (info.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
  const started = scheduled ? new Date(scheduled as string | Date) : info.startTime;
  const to = input.to ?? started.toISOString();
  const from = input.from ?? new Date(Date.parse(to) - (input.windowMs ?? 3_600_000)).toISOString();
  // a window no retry can mend ends the run at once
  if (Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to)) || Date.parse(to) < Date.parse(from)) {
    throw ApplicationFailure.nonRetryable(`window from ${input.from} to ${input.to} is not an ordered pair of ISO times`, 'WindowError');
  }
  const pageSize = input.pageSize ?? 100;
  const s = input.state ?? {
    offset: 0,
    received: 0,
    inserted: 0,
    updated: 0,
    pages: 0,
    startedAt: info.startTime.toISOString(),
    loadId: `${info.workflowId}/${info.runId}`,
  };
  setHandler(progressQuery, () => ({ pages: s.pages, received: s.received, offset: s.offset }));
  for (let n = 0; ; n++) {
    if (n >= PAGES_PER_RUN) {
      return continueAsNew<typeof newsIngest>({ ...input, from, to, pageSize, state: s });
    }
    const page = await ingestPage({
      loadId: s.loadId,
      pipeline: input.pipeline,
      query: input.query ?? '',
      filters: input.filters ?? {},
      from,
      to,
      offset: s.offset,
      pageSize,
      ...(input.schema ? { schema: input.schema } : {}),
    });
    s.pages++;
    s.received += page.received;
    s.inserted += page.inserted;
    s.updated += page.updated;
    s.offset = page.nextOffset;
    if (page.done) break;
  }
  const invariants = { pages_contiguous: true, rows_equal_offset: s.received === s.offset, pages: s.pages };
  const checks = evaluateChecks(input.pipeline ?? KIND_SPECS.news.name, input.checks, s, invariants);
  await recordLoad({
    loadId: s.loadId,
    pipeline: input.pipeline,
    kind: KIND_SPECS.news.name,
    workflowId: info.workflowId,
    runId: info.runId,
    from,
    to,
    received: s.received,
    inserted: s.inserted,
    updated: s.updated,
    startedAt: s.startedAt,
    invariants,
    ...(checks ? { checks } : {}),
  });
  failOnChecks(checks);
  return { loadId: s.loadId, pages: s.pages, received: s.received, inserted: s.inserted, updated: s.updated };
}
