/**
 * pipelineNotices: one round of the notices (the project file's `notify:`; its schedule, every
 * minute, is declared when `notify:` is set). The round's time is the workflow's clock: the
 * incidents are judged at it (activities/incidents.ts), so a round replayed or retried judges the
 * same. It opens and resolves incidents in the `notices` ledger, then delivers every notice not
 * yet delivered, oldest first (an incident's resolved one after its opened one, per channel); a notice that still fails after its retries is left for the next
 * round (it stays `failed` in the ledger and keeps its idempotency key), a refused one is final.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { NoticesActivities, NoticesRoundInput } from '../activities/notices.js';
import { TASK_QUEUES } from './queues.js';

const api = proxyActivities<NoticesActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
});

/** Per notice within a round: the alert deliveries' policy (a heartbeat shows a dead worker; a timed-out attempt would send beside its retry). */
const delivery = proxyActivities<NoticesActivities>({
  taskQueue: TASK_QUEUES.deliveries,
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds', maximumAttempts: 6 },
});

export type PipelineNoticesInput = Omit<NoticesRoundInput, 'now'>;

export interface PipelineNoticesResult {
  opened: string[];
  resolved: string[];
  delivered: number;
  skipped: number;
  refused: number;
  /** notices left for a later round (their channel still failing) */
  pending: number;
}

export async function pipelineNotices(input: PipelineNoticesInput): Promise<PipelineNoticesResult> {
  const r = await api.openAndResolveIncidents({ ...input, now: Date.now() });
  const out: PipelineNoticesResult = { ...r, delivered: 0, skipped: 0, refused: 0, pending: 0 };
  const todo = await api.pendingNotices();
  // an incident's resolved notice waits behind its opened one on the same channel
  const held = new Set<string>();
  for (const ref of todo) {
    const at = `${ref.incidentId}\u0000${ref.channel}\u0000${ref.target}`;
    if (held.has(at)) {
      out.pending++;
      continue;
    }
    try {
      const d = await delivery.deliverNotice({ ref, ...(input.notify ? { notify: input.notify } : {}) });
      out[d.status]++;
    } catch (e) {
      if (!(e instanceof ActivityFailure)) throw e;
      if (e.cause instanceof ApplicationFailure && e.cause.type === 'DeliveryRefused') out.refused++;
      else {
        out.pending++;
        held.add(at);
      }
    }
  }
  return out;
}
