/**
 * `newsflow status`: one line per declared pipeline schedule (and one for the feed sources), from
 * the Temporal server (the schedule's state and its recent runs, any server: the dev server of
 * `newsflow start` or a shared one) and the warehouse (`_loads`: the last load and its rows; the
 * `sources` table). Health: `failing` when the last finished run failed (or the schedule is
 * missing), `stale` when the last load is older than error_after, `late` past warn_after, `ok`
 * otherwise; a paused schedule is `paused`. The command exits 1 when any is failing, else 2 when
 * any is stale, else 0. warn_after and error_after are the pipeline's `freshness:` (the project
 * file), else derived from its schedule (freshnessOf). A load whose checks failed
 * (`_loads.check_failed`) is no successful load: it does not make the pipeline fresh.
 */
import type { Client } from '@temporalio/client';
import { Cron } from 'croner';
import type { ScheduleDecl } from '../../temporal/schedules.js';

export type Health = 'ok' | 'late' | 'stale' | 'failing' | 'paused';

export interface RunInfo {
  workflowId: string;
  status: string;
  at: string | null;
  /** a failed run's innermost message, with the API's code and detail when it was an API error */
  error?: { message: string; code?: number; detail?: string };
}

export interface PipelineStatus {
  pipeline: string;
  schedule: string;
  state: 'active' | 'paused' | 'missing';
  lastRun: RunInfo | null;
  failuresInRow: number;
  lastLoad: { loadId: string; at: string; rows: number } | null;
  /** the schedule's period, and the freshness bounds: the file's, else derived from the period (freshnessOf) */
  periodMs: number | null;
  warnAfterMs: number | null;
  errorAfterMs: number | null;
  /** where the bounds come from: the pipeline's `freshness:` (either bound given) or its schedule */
  freshnessFrom: 'file' | 'schedule';
  /** the lag against the bounds, whatever the health: fresh, warn (past warn_after), error (past error_after); null without bounds */
  freshness: 'fresh' | 'warn' | 'error' | null;
  /** time since the last load (with none: since the last successful run, else since the schedule was created) */
  lagMs: number | null;
  health: Health;
  next: string | null;
}

export interface SourcesStatus {
  total: number;
  byStatus: Record<string, number>;
  /** sources failing for a day or more */
  failingForADay: string[];
  health: Health;
}

export interface StatusReport {
  at: string;
  pipelines: PipelineStatus[];
  sources: SourcesStatus | null;
  exitCode: 0 | 1 | 2;
}

/** Query of the warehouse (a reader's all()). */
export type ReadRows = (sql: string) => Promise<Record<string, unknown>[]>;

const DAY = 86_400_000;

/** A schedule's period: its interval, or the gap between a cron expression's next two times. */
export function periodOf(d: Pick<ScheduleDecl, 'spec'>, now = Date.now()): number | null {
  const every = d.spec.intervals?.[0]?.every;
  if (every !== undefined) return typeof every === 'number' ? every : null;
  const cron = d.spec.cronExpressions?.[0];
  if (!cron) return null;
  const [a, b] = new Cron(cron, { timezone: 'UTC' }).nextRuns(2, new Date(now));
  return a && b ? b.getTime() - a.getTime() : null;
}

/** The message chain of a failed run's error, innermost last; the API's code and detail from it. */
export function runError(e: unknown): RunInfo['error'] {
  let m = (e as Error).message;
  for (let c = (e as { cause?: unknown }).cause; c; c = (c as { cause?: unknown }).cause) m = (c as Error).message || m;
  const api = /HTTP \d{3} \(code (\d+)\): (.*)$/s.exec(m);
  return api ? { message: m, code: Number(api[1]), detail: api[2] } : { message: m };
}

/**
 * A pipeline's freshness bounds. Unset ones follow the schedule's period: warn after 2 periods
 * (one run missed: a healthy lag runs up to one period plus a run's length, so 2 is the first
 * sign), error after 3 (two missed in a row: past retries and a slow run, no longer a blip), at
 * least 5 and 10 minutes (a 1-minute schedule's runs and retries take longer than a period). A
 * bound given alone moves the other so that warn <= error.
 */
export function freshnessOf(period: number | null, given: ScheduleDecl['freshness']): { warn: number | null; error: number | null } {
  const dWarn = period === null ? null : Math.max(2 * period, 5 * 60_000);
  const dError = period === null ? null : Math.max(3 * period, 10 * 60_000);
  const w = given?.warnAfterMs;
  const e = given?.errorAfterMs;
  if (w !== undefined && e !== undefined) return { warn: w, error: e };
  if (w !== undefined) return { warn: w, error: dError === null ? null : Math.max(dError, w) };
  if (e !== undefined) return { warn: dWarn === null ? e : Math.min(dWarn, e), error: e };
  return { warn: dWarn, error: dError };
}

const FAILED = new Set(['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELLED']);

async function pipelineStatus(
  c: Client,
  d: ScheduleDecl,
  loads: Map<string, { loadId: string; at: number; rows: number }>,
  now: number,
): Promise<PipelineStatus> {
  const period = periodOf(d, now);
  const { warn, error } = freshnessOf(period, d.freshness);
  const freshnessFrom = d.freshness?.warnAfterMs !== undefined || d.freshness?.errorAfterMs !== undefined ? ('file' as const) : ('schedule' as const);
  const fresh = (lag: number | null) => (lag === null || warn === null ? null : error !== null && lag > error ? 'error' : lag > warn ? 'warn' : 'fresh');
  const load = loads.get(d.pipeline ?? d.id) ?? null;
  const base = {
    pipeline: d.pipeline ?? d.id,
    schedule: d.id,
    periodMs: period,
    warnAfterMs: warn,
    errorAfterMs: error,
    freshnessFrom,
    lastLoad: load ? { loadId: load.loadId, at: new Date(load.at).toISOString(), rows: load.rows } : null,
  };
  let desc;
  try {
    desc = await c.schedule.getHandle(d.id).describe();
  } catch (e) {
    if ((e as Error).name !== 'ScheduleNotFoundError') throw e;
    return {
      ...base,
      state: 'missing',
      lastRun: { workflowId: '', status: 'NO SCHEDULE', at: null, error: { message: `schedule ${d.id} is not on the server: run newsflow schedule apply` } },
      failuresInRow: 0,
      lagMs: load ? now - load.at : null,
      freshness: fresh(load ? now - load.at : null),
      health: 'failing',
      next: null,
    };
  }
  // the runs the schedule started, newest first: the last finished one's result, and failures in a row
  const actions = [...desc.info.recentActions].reverse();
  // lastRun: the newest run (running or not); health reads the newest finished ones
  let lastRun: RunInfo | null = null;
  let lastFinished: RunInfo | null = null;
  let failuresInRow = 0;
  let lastSuccess: number | null = null;
  for (const a of actions) {
    const wf = c.workflow.getHandle(a.action.workflow.workflowId, a.action.workflow.firstExecutionRunId);
    const w = await wf.describe().catch(() => null);
    if (!w) continue;
    const status = w.status.name;
    const info: RunInfo = { workflowId: a.action.workflow.workflowId, status, at: (w.closeTime ?? w.startTime).toISOString() };
    lastRun ??= info;
    if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') continue;
    if (!FAILED.has(status)) {
      lastSuccess = (w.closeTime ?? w.startTime).getTime();
      break;
    }
    failuresInRow++;
    if (!lastFinished) {
      info.error = await wf.result().then(
        () => undefined,
        (e: unknown) => runError(e),
      );
      lastFinished = info;
      if (lastRun.workflowId === info.workflowId) lastRun = info;
    }
  }
  if (lastRun && lastFinished && lastRun !== lastFinished) lastRun = { ...lastRun, error: lastFinished.error };
  const created = desc.info.createdAt.getTime();
  // a pipeline that records no load (alert sync) is as fresh as its last successful run
  const lagMs = now - Math.max(load?.at ?? 0, load ? 0 : (lastSuccess ?? created));
  const paused = desc.state.paused;
  let health: Health = 'ok';
  if (paused) health = 'paused';
  else if (failuresInRow > 0) health = 'failing';
  else if (error !== null && lagMs > error) health = 'stale';
  else if (warn !== null && lagMs > warn) health = 'late';
  return {
    ...base,
    state: paused ? 'paused' : 'active',
    lastRun,
    failuresInRow,
    lagMs,
    freshness: fresh(lagMs),
    health,
    next: desc.info.nextActionTimes[0]?.toISOString() ?? null,
  };
}

export async function projectStatus(c: Client, decls: ScheduleDecl[], read: ReadRows | null, now = Date.now()): Promise<StatusReport> {
  const loads = new Map<string, { loadId: string; at: number; rows: number }>();
  let sources: SourcesStatus | null = null;
  if (read) {
    const lastLoads = (where: string) =>
      read(`SELECT pipeline, arg_max(load_id, finished_at) AS load_id, epoch_ms(max(finished_at)) AS at,
              arg_max(rows_inserted + rows_updated, finished_at) AS rows FROM _loads WHERE finished_at IS NOT NULL${where} GROUP BY pipeline`);
    // a load whose checks failed is not a successful one (a warehouse no worker has opened since migration 36 has no check_failed)
    for (const r of await lastLoads(' AND check_failed IS NULL').catch((e: Error) => {
      if (!/check_failed/.test(e.message)) throw e;
      return lastLoads('');
    }))
      loads.set(String(r.pipeline), { loadId: String(r.load_id), at: Number(r.at), rows: Number(r.rows) });
    const src = await read('SELECT source, status, epoch_ms(failing_since) AS failing_since FROM sources').catch(() => []);
    if (src.length) {
      const byStatus: Record<string, number> = {};
      for (const s of src) byStatus[String(s.status)] = (byStatus[String(s.status)] ?? 0) + 1;
      const failingForADay = src
        .filter((s) => s.status === 'failing' && s.failing_since !== null && now - Number(s.failing_since) >= DAY)
        .map((s) => String(s.source));
      sources = { total: src.length, byStatus, failingForADay, health: failingForADay.length ? 'failing' : 'ok' };
    }
  }
  const pipelines: PipelineStatus[] = [];
  for (const d of decls) pipelines.push(await pipelineStatus(c, d, loads, now));
  const all = [...pipelines.map((p) => p.health), sources?.health ?? 'ok'];
  const exitCode = all.includes('failing') ? 1 : all.includes('stale') ? 2 : 0;
  return { at: new Date(now).toISOString(), pipelines, sources, exitCode };
}

const ago = (ms: number | null) => {
  if (ms === null) return '-';
  const m = Math.round(ms / 60_000);
  return m < 60 ? `${m}m` : m < 48 * 60 ? `${(m / 60).toFixed(1)}h` : `${(m / 1440).toFixed(1)}d`;
};

/** The lines `newsflow status` prints. */
export function statusLines(r: StatusReport): string {
  const head = ['pipeline', 'schedule', 'state', 'health', 'last run', 'last load (rows)', 'lag / warn / error', 'freshness', 'fails'];
  const rows = r.pipelines.map((p) => [
    p.pipeline,
    p.schedule,
    p.state,
    p.health.toUpperCase(),
    p.lastRun ? `${p.lastRun.status.toLowerCase()} ${p.lastRun.at ?? ''}`.trim() : 'never ran',
    p.lastLoad ? `${p.lastLoad.at} (${p.lastLoad.rows})` : 'none',
    `${ago(p.lagMs)} / ${ago(p.warnAfterMs)} / ${ago(p.errorAfterMs)}${p.freshnessFrom === 'file' ? ' (file)' : ''}`,
    p.freshness === null ? '-' : p.freshness === 'fresh' ? 'fresh' : p.freshness.toUpperCase(),
    String(p.failuresInRow),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [line(head), ...rows.map(line)];
  for (const p of r.pipelines) {
    const e = p.lastRun?.error;
    if (e && p.health === 'failing') out.push(`  ${p.pipeline}: ${e.code !== undefined ? `API error ${e.code}: ${e.detail}` : e.message}`);
  }
  if (r.sources) {
    const s = r.sources;
    out.push(
      `sources: ${s.total} (${Object.entries(s.byStatus)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')})${s.failingForADay.length ? `; FAILING for a day or more: ${s.failingForADay.join(', ')}` : ''}`,
    );
  }
  const n = (h: Health) => r.pipelines.filter((p) => p.health === h).length;
  out.push(
    r.exitCode === 0
      ? `healthy: ${r.pipelines.length} pipeline schedule(s)${n('late') ? `, ${n('late')} late (past warn_after)` : ''}`
      : `${n('failing')} failing, ${n('stale')} stale (past error_after), ${n('late')} late${r.sources?.failingForADay.length ? `, ${r.sources.failingForADay.length} source(s) failing for a day` : ''}: exit ${r.exitCode}`,
  );
  return out.join('\n');
}
