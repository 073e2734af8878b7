/**
 * `newsflow trace LOAD_ID`: one load as it ran, from the warehouse's `_loads` row (rows, API
 * usage, invariants) and the Temporal server's history of its workflow run (the activities in
 * order, each with its attempts, duration and result; retries counted as attempts past the first,
 * the way Temporal records a retried activity: one scheduled/started/closed triple whose
 * started event carries the last attempt). A load id is `<workflow id>/<run id>`; a workflow id
 * alone names its newest load. A history the server no longer keeps (the namespace's retention)
 * leaves the `_loads` part, said so.
 */
import type { Client } from '@temporalio/client';
import type { ReadRows } from './status.js';

export interface TraceActivity {
  /** the activity type, e.g. fetchPage */
  type: string;
  activityId: string;
  scheduledAt: string;
  /** ms from scheduled to closed (null while it runs) */
  ms: number | null;
  attempts: number;
  result: 'completed' | 'failed' | 'timed_out' | 'canceled' | 'running';
  /** the last failure's message, when the activity failed or was retried */
  error?: string;
}

export interface LoadTrace {
  load: Record<string, unknown>;
  workflow: { type: string; workflowId: string; runId: string; status: string; startedAt: string; closedAt: string | null } | null;
  /** why there is no workflow part */
  historyMissing?: string;
  activities: TraceActivity[];
  byType: { type: string; calls: number; retries: number; failed: number; ms: number }[];
}

export class TraceError extends Error {}

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The `_loads` row of `id` (a load id, or a workflow id: its newest load). */
export async function findLoad(rows: ReadRows, id: string): Promise<Record<string, unknown>> {
  const found = await rows(`SELECT * FROM _loads WHERE load_id = ${lit(id)} OR workflow_id = ${lit(id)} ORDER BY started_at DESC LIMIT 1`);
  if (!found[0])
    throw new TraceError(
      `no load ${id} in _loads; the newest: newsflow sql "SELECT load_id, pipeline, kind, started_at FROM _loads ORDER BY started_at DESC LIMIT 10"`,
    );
  return found[0];
}

type Ts = { seconds?: unknown; nanos?: number | null } | null | undefined;
const msOf = (t: Ts) => (t ? Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6) : 0);

/** The load of `id` with its workflow run's activities. */
export async function traceLoad(c: Client | null, rows: ReadRows, id: string): Promise<LoadTrace> {
  const load = await findLoad(rows, id);
  const workflowId = typeof load.workflow_id === 'string' ? load.workflow_id : null;
  const runId = typeof load.run_id === 'string' ? load.run_id : undefined;
  const empty = { load, workflow: null, activities: [], byType: [] };
  if (!workflowId) return { ...empty, historyMissing: 'the load names no workflow (a run outside Temporal)' };
  if (!c) return { ...empty, historyMissing: 'no Temporal server to read the history from' };
  const handle = c.workflow.getHandle(workflowId, runId);
  let desc;
  let history;
  try {
    desc = await handle.describe();
    history = await handle.fetchHistory();
  } catch (e) {
    return {
      ...empty,
      historyMissing: `the server has no history of ${workflowId}${runId ? ` run ${runId}` : ''} (${(e as Error).message.split('\n')[0]}): past its namespace's retention?`,
    };
  }
  const byEvent = new Map<string, TraceActivity>();
  const activities: TraceActivity[] = [];
  for (const e of history.events ?? []) {
    const id = String(e.eventId ?? '');
    const at = msOf(e.eventTime as Ts);
    const sched = e.activityTaskScheduledEventAttributes;
    if (sched) {
      const a: TraceActivity = {
        type: sched.activityType?.name ?? '?',
        activityId: sched.activityId ?? '',
        scheduledAt: new Date(at).toISOString(),
        ms: null,
        attempts: 1,
        result: 'running',
      };
      byEvent.set(id, a);
      activities.push(a);
      continue;
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const a = byEvent.get(String(started.scheduledEventId ?? ''));
      if (a) {
        a.attempts = started.attempt ?? 1;
        if (started.lastFailure?.message) a.error = started.lastFailure.message;
      }
      continue;
    }
    const closed =
      (e.activityTaskCompletedEventAttributes && (['completed', e.activityTaskCompletedEventAttributes] as const)) ||
      (e.activityTaskFailedEventAttributes && (['failed', e.activityTaskFailedEventAttributes] as const)) ||
      (e.activityTaskTimedOutEventAttributes && (['timed_out', e.activityTaskTimedOutEventAttributes] as const)) ||
      (e.activityTaskCanceledEventAttributes && (['canceled', e.activityTaskCanceledEventAttributes] as const)) ||
      null;
    if (closed) {
      const [result, attrs] = closed;
      const a = byEvent.get(String(attrs.scheduledEventId ?? ''));
      if (!a) continue;
      a.result = result;
      a.ms = at - Date.parse(a.scheduledAt);
      const failure = 'failure' in attrs ? attrs.failure : null;
      if (failure?.message) a.error = failure.message;
    }
  }
  const types = new Map<string, LoadTrace['byType'][number]>();
  for (const a of activities) {
    const t = types.get(a.type) ?? { type: a.type, calls: 0, retries: 0, failed: 0, ms: 0 };
    t.calls++;
    t.retries += a.attempts - 1;
    if (a.result !== 'completed' && a.result !== 'running') t.failed++;
    t.ms += a.ms ?? 0;
    types.set(a.type, t);
  }
  return {
    load,
    workflow: {
      type: desc.type,
      workflowId,
      runId: desc.runId,
      status: desc.status.name,
      startedAt: desc.startTime.toISOString(),
      closedAt: desc.closeTime?.toISOString() ?? null,
    },
    activities,
    byType: [...types.values()],
  };
}

const num = (v: unknown) => (v === null || v === undefined ? '-' : String(Number(v)));
const when = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? '-' : String(v));
const secs = (ms: number | null) => (ms === null ? 'running' : `${(ms / 1000).toFixed(1)} s`);

/** The trace as the terminal shows it. */
export function traceLines(t: LoadTrace): string {
  const l = t.load;
  const out = [
    `load ${String(l.load_id)} (pipeline ${String(l.pipeline)}, kind ${String(l.kind ?? '-')})`,
    `  started ${when(l.started_at)}, finished ${when(l.finished_at)}`,
    `  rows: ${num(l.rows_received)} received, ${num(l.rows_inserted)} new, ${num(l.rows_updated)} updated`,
    `  API: ${num(l.api_requests)} requests, ${num(l.retries)} retries, ${num(l.http_429)} answered 429, ${l.credits === null || l.credits === undefined ? '-' : Number(l.credits)} credits`,
    `  invariants: ${l.invariants === null || l.invariants === undefined ? '-' : typeof l.invariants === 'string' ? l.invariants : JSON.stringify(l.invariants)}`,
  ];
  if (!t.workflow) {
    out.push(`  history: ${t.historyMissing ?? 'none'}`);
    return out.join('\n');
  }
  const w = t.workflow;
  out.push(`  workflow ${w.type} ${w.workflowId} run ${w.runId}: ${w.status}, ${w.startedAt} -> ${w.closedAt ?? 'running'}`);
  out.push(`  activities (${t.activities.length}):`);
  for (const a of t.activities)
    out.push(
      `    ${a.scheduledAt.slice(11, 23)}  ${a.type.padEnd(24)} ${`attempt${a.attempts > 1 ? 's' : ''} ${a.attempts}`.padEnd(11)} ${secs(a.ms).padStart(8)}  ${a.result}${a.error ? `: ${a.error.slice(0, 400).replace(/\s+/g, ' ').slice(0, 160)}` : ''}`,
    );
  out.push(`  by type: ${t.byType.map((b) => `${b.type} x${b.calls} (${b.retries} retries${b.failed ? `, ${b.failed} failed` : ''})`).join(', ') || 'none'}`);
  return out.join('\n');
}
