/**
 * Schedules on a Temporal server: a declaration (ScheduleDecl) and `applySchedules`, which makes
 * the server's schedules match a list of them: creates what is missing, updates what changed (a
 * hash of the declaration kept in the schedule's memo), deletes newsflow schedules no longer
 * declared. Idempotent. Used by the alert sync (one schedule per alert, activities/alert-runner.ts)
 * and by `newsflow schedule apply` / `newsflow start` (pipelines/schedules declares theirs); in
 * temporal/, the room of Temporal management both of them import.
 */
import crypto from 'node:crypto';
import { ScheduleNotFoundError, type Client, type ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';

export interface ScheduleDecl {
  id: string;
  /** the named pipeline (project file) it runs */
  pipeline?: string;
  description: string;
  workflowType: string;
  taskQueue: string;
  spec: ScheduleSpec;
  overlap: ScheduleOverlapPolicy;
  /** how far back missed runs are caught up after an outage */
  catchupWindow: string;
  /** created paused (declared, not running) */
  paused?: boolean;
  args: unknown[];
  /** the project file's freshness bounds, in ms (unset: `newsflow status` derives them from the schedule); not part of the schedule on the server */
  freshness?: { warnAfterMs?: number; errorAfterMs?: number };
}

/** Schedules of single alerts (`alert-<uuid>`) are kept by the alert sync, not by `schedule apply`. */
export const ALERT_SCHEDULE_PREFIX = 'alert-';
export const isAlertSchedule = (id: string) => /^alert-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
export const notAlertSchedule = (id: string) => !isAlertSchedule(id);

const MEMO_KEY = 'newsflow';
/** What a declaration is, as compared and as kept in the schedule's memo (so a plan can show what changed). */
const shapeOf = (d: ScheduleDecl) => ({
  workflowType: d.workflowType,
  taskQueue: d.taskQueue,
  spec: d.spec,
  overlap: d.overlap,
  catchupWindow: d.catchupWindow,
  paused: d.paused ?? false,
  args: d.args,
});
type Shape = ReturnType<typeof shapeOf>;
const hashOf = (d: ScheduleDecl) =>
  crypto
    .createHash('sha1')
    .update(JSON.stringify(d.paused ? shapeOf(d) : [d.workflowType, d.taskQueue, d.spec, d.overlap, d.catchupWindow, d.args]))
    .digest('hex')
    .slice(0, 16);

export interface ApplyResult {
  created: string[];
  updated: string[];
  deleted: string[];
  unchanged: string[];
}

/** What applying a list of declarations would do; `changes` of an update are one line per changed field. */
export interface SchedulePlan {
  create: ScheduleDecl[];
  update: { decl: ScheduleDecl; changes: string[] }[];
  delete: string[];
  unchanged: string[];
}

interface Ours {
  id: string;
  hash: string | null;
  decl?: Shape;
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

/** A declared schedule on the server (describe is consistent; listing is not), or undefined. */
async function described(client: Client, id: string): Promise<Ours | undefined> {
  try {
    const d = await client.schedule.getHandle(id).describe();
    const memo = d.memo?.[MEMO_KEY] as { hash?: string; decl?: Shape } | undefined;
    return { id, hash: memo?.hash ?? null, decl: memo?.decl };
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) return undefined;
    throw e;
  }
}

/** `path: old -> new`, one line per leaf that differs (arrays compared whole). */
export function changedFields(before: unknown, after: unknown, at = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => changedFields(before[k], after[k], at ? `${at}.${k}` : k));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length && before.every((x) => isObj(x)) && after.every((x) => isObj(x)))
    return before.flatMap((b, i) => changedFields(b, after[i], `${at}[${i}]`));
  const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [`${at || '(all)'}: ${show(before)} -> ${show(after)}`];
}

/**
 * What making the server's schedules within `scope` match `decls` would do (nothing is changed).
 * The default scope is every newsflow schedule but the per-alert ones, which the alert sync keeps.
 */
export async function planSchedules(client: Client, decls: ScheduleDecl[], scope: (id: string) => boolean = notAlertSchedule): Promise<SchedulePlan> {
  // schedules of ours the server lists (eventually consistent), to find the undeclared ones
  const existing = new Map<string, Ours>((await listOurs(client, scope)).map((s) => [s.id, s]));
  for (const d of decls) {
    const o = await described(client, d.id);
    if (o === undefined) existing.delete(d.id);
    else existing.set(d.id, o);
  }
  const plan: SchedulePlan = { create: [], update: [], delete: [], unchanged: [] };
  for (const d of decls) {
    const o = existing.get(d.id);
    if (!o) plan.create.push(d);
    else if (o.hash !== hashOf(d)) {
      const changes = o.decl ? changedFields(o.decl, shapeOf(d)) : ['(the declaration before is not recorded: made by an older newsflow)'];
      plan.update.push({ decl: d, changes: changes.length ? changes : ['(declaration format)'] });
    } else plan.unchanged.push(d.id);
    existing.delete(d.id);
  }
  plan.delete = [...existing.keys()];
  return plan;
}

/** Carry out a plan of planSchedules. */
export async function applyPlan(client: Client, plan: SchedulePlan): Promise<ApplyResult> {
  const r: ApplyResult = { created: [], updated: [], deleted: [], unchanged: [...plan.unchanged] };
  const create = (d: ScheduleDecl) =>
    client.schedule.create({
      scheduleId: d.id,
      spec: d.spec,
      action: { type: 'startWorkflow' as const, workflowType: d.workflowType, taskQueue: d.taskQueue, args: d.args, workflowId: `${d.id}-run` },
      policies: { overlap: d.overlap, catchupWindow: d.catchupWindow },
      state: d.paused ? { paused: true, note: 'paused in the project file' } : undefined,
      memo: { [MEMO_KEY]: { hash: hashOf(d), description: d.description, pipeline: d.pipeline ?? null, decl: shapeOf(d) } },
    });
  for (const d of plan.create) {
    await create(d);
    r.created.push(d.id);
  }
  for (const { decl: d } of plan.update) {
    // the memo cannot be updated in place: recreate
    try {
      await client.schedule.getHandle(d.id).delete();
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e;
    }
    await create(d);
    r.updated.push(d.id);
  }
  for (const id of plan.delete) {
    try {
      await client.schedule.getHandle(id).delete();
      r.deleted.push(id);
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e; // already gone: the listing lagged
    }
  }
  return r;
}

/**
 * Make the server's schedules within `scope` match `decls`: create what is missing, update what
 * changed, delete ours that are no longer declared.
 */
export async function applySchedules(client: Client, decls: ScheduleDecl[], scope: (id: string) => boolean = notAlertSchedule): Promise<ApplyResult> {
  return applyPlan(client, await planSchedules(client, decls, scope));
}
