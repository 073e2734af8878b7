/**
 * Schedules on a Temporal server: a declaration (ScheduleDecl) and `applySchedules`, which makes
 * the server's schedules match a list of them: creates what is missing, updates what changed (a
 * hash of the declaration kept in the schedule's memo), deletes newsflow schedules no longer
 * declared. Idempotent. Used by the alert sync (one schedule per alert, activities/alert-runner.ts)
 * and by `newsflow schedule apply` / `newsflow start` (pipelines/schedules declares theirs); here,
 * below both, because activities import nothing of pipelines/.
 */
import crypto from 'node:crypto';
import { ScheduleNotFoundError, type Client, type ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';

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

/** Schedules of single alerts (`alert-<uuid>`) are kept by the alert sync, not by `schedule apply`. */
export const ALERT_SCHEDULE_PREFIX = 'alert-';
export const isAlertSchedule = (id: string) => /^alert-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
export const notAlertSchedule = (id: string) => !isAlertSchedule(id);

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
export async function applySchedules(client: Client, decls: ScheduleDecl[], scope: (id: string) => boolean = notAlertSchedule): Promise<ApplyResult> {
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
