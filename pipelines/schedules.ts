/**
 * Schedules declared in code. `newsflow schedule apply` makes Temporal's schedules match this
 * list: creates what is missing, updates what changed (a hash of the declaration kept in the
 * schedule's memo), deletes newsflow schedules no longer declared. Idempotent.
 */
import crypto from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleSpec } from '@temporalio/client';
import type { z } from 'zod';
import { TASK_QUEUES } from './queues.js';
import { Sampling } from '../spec/index.js';
import { RESEARCH_MAX_DEPTH } from './research.js';

export interface ScheduleDecl {
  id: string;
  description: string;
  workflowType: string;
  taskQueue: string;
  spec: ScheduleSpec;
  overlap: ScheduleOverlapPolicy;
  /** how far back missed runs are caught up after an outage */
  catchupWindow: string;
  args: unknown[];
}

export const SCHEDULES: ScheduleDecl[] = [
  {
    id: 'news-ingest-15m',
    description: 'news ingest: every 15 minutes, the hour before each run',
    workflowType: 'newsIngest',
    taskQueue: TASK_QUEUES.news,
    spec: { intervals: [{ every: '15 minutes' }] },
    overlap: ScheduleOverlapPolicy.SKIP,
    catchupWindow: '1 hour',
    args: [{ pageSize: 100 }],
  },
];

/** The daily month-to-date distribution refresh, declared when NEWSFLOW_DISTRIBUTION_DOMAINS is set. */
const distributionDomains = (process.env.NEWSFLOW_DISTRIBUTION_DOMAINS ?? '')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean);
if (distributionDomains.length) {
  SCHEDULES.push({
    id: 'distribution-mtd-daily',
    description: 'distribution pull: month to date, daily at 02:00 UTC',
    workflowType: 'distributionPull',
    taskQueue: TASK_QUEUES.distribution,
    spec: { cronExpressions: ['0 2 * * *'] },
    overlap: ScheduleOverlapPolicy.SKIP,
    catchupWindow: '1 day',
    args: [{ domains: distributionDomains, pageSize: 100 }],
  });
}

/** The alert sync: every minute, one schedule per active alert (see activities/alert-runner.ts). */
if (process.env.NEWSFLOW_ALERTS !== '0') {
  SCHEDULES.push({
    id: 'alerts-sync-1m',
    description: 'alert runner: keep one schedule per active alert, every minute',
    workflowType: 'alertSync',
    taskQueue: TASK_QUEUES.alerts,
    spec: { intervals: [{ every: '1 minute' }] },
    overlap: ScheduleOverlapPolicy.SKIP,
    catchupWindow: '5 minutes',
    args: [],
  });
}

/**
 * Story tracking, hourly at :05: the trackers of NEWSFLOW_STORY_TRACKERS (a JSON array of
 * {name, query?, method?, strategy?, categories?, continent?, sort_by?, stories?, maxUpdates?,
 * maxArticles?}; default: the 20 top stories), `0` for none.
 */
export function storyTrackerSchedules(env: NodeJS.ProcessEnv): ScheduleDecl[] {
  const raw = env.NEWSFLOW_STORY_TRACKERS;
  if (raw === '0') return [];
  let trackers: unknown = undefined;
  if (raw) {
    try {
      trackers = JSON.parse(raw);
    } catch (e) {
      console.warn(
        `newsflow: NEWSFLOW_STORY_TRACKERS is not JSON (${(e as Error).message}); story-tracker schedule left out. e.g. [{"name":"top","strategy":"topstories","stories":20}]`,
      );
      return [];
    }
    if (!Array.isArray(trackers) || !trackers.every((t) => t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string')) {
      console.warn('newsflow: NEWSFLOW_STORY_TRACKERS must be a JSON array of objects with a "name"; story-tracker schedule left out');
      return [];
    }
  }
  return [
    {
      id: 'story-tracker-hourly',
      description: 'story tracker: the declared story queries, hourly at :05 UTC',
      workflowType: 'storyTracker',
      taskQueue: TASK_QUEUES.stories,
      spec: { cronExpressions: ['5 * * * *'] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '3 hours',
      args: [trackers ? { trackers } : {}],
    },
  ];
}
SCHEDULES.push(...storyTrackerSchedules(process.env));

/** A standing research question of NEWSFLOW_RESEARCH. */
export interface StandingQuestion {
  name: string;
  question: string;
  depth?: number;
  sources?: string[];
  model?: string;
  filters?: Record<string, unknown>;
  /** cron (UTC) of its runs; default daily at 06:00 */
  cron?: string;
}
export const RESEARCH_DEFAULT_CRON = '0 6 * * *';

/**
 * Standing research questions, one schedule each (`research-<name>`), daily at 06:00 UTC unless
 * the question gives a `cron`: NEWSFLOW_RESEARCH, a JSON array of {name, question, depth?,
 * sources?, model?, filters?, cron?}; unset or empty: none. Each run is a deepResearch workflow
 * whose cutoff is the scheduled time, landing a briefing in research_runs / research_sources.
 * A bad declaration is reported and left out (the rest still apply).
 */
export function researchSchedules(env: NodeJS.ProcessEnv): ScheduleDecl[] {
  const raw = (env.NEWSFLOW_RESEARCH ?? '').trim();
  if (!raw) return [];
  const example = '[{"name":"ukraine","question":"What changed in the war in Ukraine?","depth":3}]';
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (e) {
    console.warn(`newsflow: NEWSFLOW_RESEARCH is not JSON (${(e as Error).message}); research schedules left out. e.g. ${example}`);
    return [];
  }
  if (!Array.isArray(list)) {
    console.warn(`newsflow: NEWSFLOW_RESEARCH must be a JSON array, e.g. ${example}; research schedules left out`);
    return [];
  }
  const out: ScheduleDecl[] = [];
  const names = new Set<string>();
  for (const q of list as Partial<StandingQuestion>[]) {
    const bad =
      !q || typeof q !== 'object'
        ? 'not an object'
        : typeof q.name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(q.name)
          ? '"name" must be lower-case letters, digits and dashes'
          : names.has(q.name)
            ? `"name" ${q.name} is declared twice`
            : typeof q.question !== 'string' || !q.question.trim()
              ? '"question" must be a non-empty string'
              : q.depth !== undefined && (!Number.isInteger(q.depth) || q.depth < 1 || q.depth > RESEARCH_MAX_DEPTH)
                ? `"depth" must be an integer 1..${RESEARCH_MAX_DEPTH}`
                : q.sources !== undefined && (!Array.isArray(q.sources) || !q.sources.every((x) => typeof x === 'string'))
                  ? '"sources" must be an array of strings'
                  : q.cron !== undefined && (typeof q.cron !== 'string' || q.cron.trim().split(/\s+/).length !== 5)
                    ? '"cron" must be a 5-field cron expression'
                    : null;
    if (bad) {
      console.warn(`newsflow: NEWSFLOW_RESEARCH: ${JSON.stringify(q)?.slice(0, 80)}: ${bad}; left out`);
      continue;
    }
    names.add(q.name!);
    const { name, cron, ...params } = q as StandingQuestion;
    out.push({
      id: `research-${name}`,
      description: `research: "${params.question.slice(0, 60)}" (${cron ?? RESEARCH_DEFAULT_CRON} UTC)`,
      workflowType: 'deepResearch',
      taskQueue: TASK_QUEUES.research,
      spec: { cronExpressions: [cron ?? RESEARCH_DEFAULT_CRON] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '1 day',
      args: [{ name, ...params }],
    });
  }
  return out;
}
SCHEDULES.push(...researchSchedules(process.env));

/** Schedules of single alerts (`alert-<uuid>`) are kept by the alert sync, not by `schedule apply`. */
export const ALERT_SCHEDULE_PREFIX = 'alert-';
export const isAlertSchedule = (id: string) => /^alert-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
const notAlertSchedule = (id: string) => !isAlertSchedule(id);

/** Index-count sampling: when each sampling's schedule runs (UTC) and how far back missed runs are caught up. */
export const INDEX_COUNT_CADENCE: Record<z.infer<typeof Sampling>, { cron: string; catchupWindow: string }> = {
  '5m': { cron: '*/5 * * * *', catchupWindow: '15 minutes' },
  '1h': { cron: '0 * * * *', catchupWindow: '3 hours' },
  '12h': { cron: '0 0,12 * * *', catchupWindow: '1 day' },
  '1d': { cron: '0 0 * * *', catchupWindow: '2 days' },
  '1w': { cron: '0 0 * * 1', catchupWindow: '1 week' },
  '1m': { cron: '0 0 1 * *', catchupWindow: '1 week' },
};
/**
 * One schedule per sampling in NEWSFLOW_INDEX_COUNT_SAMPLINGS (default `1h,1d`; empty: none), each
 * over NEWSFLOW_INDEX_COUNT_DOMAINS (comma-separated; default: one series over every domain).
 * Unknown samplings are reported and left out.
 */
export function indexCountSchedules(env: NodeJS.ProcessEnv): ScheduleDecl[] {
  const split = (v: string) =>
    v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const wanted = split(env.NEWSFLOW_INDEX_COUNT_SAMPLINGS ?? '1h,1d');
  const bad = wanted.filter((x) => !Sampling.safeParse(x).success);
  if (bad.length)
    console.warn(`newsflow: NEWSFLOW_INDEX_COUNT_SAMPLINGS: unknown sampling ${bad.join(', ')} left out; samplings: ${Sampling.options.join(', ')}`);
  const domains = split(env.NEWSFLOW_INDEX_COUNT_DOMAINS ?? '');
  return Sampling.options
    .filter((x) => wanted.includes(x))
    .map((sampling) => ({
      id: `index-counts-${sampling}`,
      description: `index counts: ${sampling} buckets (${INDEX_COUNT_CADENCE[sampling].cron} UTC), re-sampling the lookback before each run`,
      workflowType: 'indexCountSampler',
      taskQueue: TASK_QUEUES.news,
      spec: { cronExpressions: [INDEX_COUNT_CADENCE[sampling].cron] },
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: INDEX_COUNT_CADENCE[sampling].catchupWindow,
      args: [domains.length ? { sampling, domains } : { sampling }],
    }));
}
SCHEDULES.push(...indexCountSchedules(process.env));

const MEMO_KEY = 'newsflow';
const hashOf = (d: ScheduleDecl) =>
  crypto
    .createHash('sha1')
    .update(JSON.stringify([d.workflowType, d.taskQueue, d.spec, d.overlap, d.catchupWindow, d.args]))
    .digest('hex')
    .slice(0, 16);

export interface ApplyResult {
  created: string[];
  updated: string[];
  deleted: string[];
  unchanged: string[];
}

/** Our schedules the server lists, within `scope` (default: all of ours). */
export async function listOurs(client: Client, scope: (id: string) => boolean = () => true): Promise<{ id: string; hash: string | null }[]> {
  const out: { id: string; hash: string | null }[] = [];
  for await (const s of client.schedule.list()) {
    const memo = s.memo?.[MEMO_KEY] as { hash?: string } | undefined;
    if (memo && scope(s.scheduleId)) out.push({ id: s.scheduleId, hash: memo.hash ?? null });
  }
  return out;
}

/** The hash of a declared schedule on the server (describe is consistent; listing is not), or undefined. */
async function serverHash(client: Client, id: string): Promise<string | null | undefined> {
  try {
    const d = await client.schedule.getHandle(id).describe();
    return (d.memo?.[MEMO_KEY] as { hash?: string } | undefined)?.hash ?? null;
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) return undefined;
    throw e;
  }
}

/**
 * Make the server's schedules within `scope` match `decls`. The default scope is every newsflow
 * schedule but the per-alert ones, which the alert sync applies with scope isAlertSchedule.
 */
export async function applySchedules(
  client: Client,
  decls: ScheduleDecl[] = SCHEDULES,
  scope: (id: string) => boolean = notAlertSchedule,
): Promise<ApplyResult> {
  // schedules of ours the server lists (eventually consistent), to find the undeclared ones
  const existing = new Map((await listOurs(client, scope)).map((s) => [s.id, s.hash]));
  for (const d of decls) {
    const h = await serverHash(client, d.id);
    if (h === undefined) existing.delete(d.id);
    else existing.set(d.id, h);
  }
  const r: ApplyResult = { created: [], updated: [], deleted: [], unchanged: [] };
  for (const d of decls) {
    const hash = hashOf(d);
    const action = { type: 'startWorkflow' as const, workflowType: d.workflowType, taskQueue: d.taskQueue, args: d.args, workflowId: `${d.id}-run` };
    const policies = { overlap: d.overlap, catchupWindow: d.catchupWindow };
    if (!existing.has(d.id)) {
      await client.schedule.create({ scheduleId: d.id, spec: d.spec, action, policies, memo: { [MEMO_KEY]: { hash, description: d.description } } });
      r.created.push(d.id);
    } else if (existing.get(d.id) !== hash) {
      // the memo cannot be updated in place: recreate
      await client.schedule.getHandle(d.id).delete();
      await client.schedule.create({ scheduleId: d.id, spec: d.spec, action, policies, memo: { [MEMO_KEY]: { hash, description: d.description } } });
      r.updated.push(d.id);
    } else {
      r.unchanged.push(d.id);
    }
    existing.delete(d.id);
  }
  for (const id of existing.keys()) {
    try {
      await client.schedule.getHandle(id).delete();
      r.deleted.push(id);
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e; // already gone: the listing lagged
    }
  }
  return r;
}
