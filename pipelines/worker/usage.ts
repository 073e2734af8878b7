/**
 * The API usage of each workflow, as the worker's client sees it: every request an activity makes
 * is counted for the workflow whose activity it is (the activity's context, which the SDK carries
 * through the activity's async calls), and a load recorded by that workflow writes its counts into
 * `_loads` (api_requests, retries, http_429, credits). Counts are per worker process: a workflow
 * whose pages ran on several workers records what the recording worker made (docs/warehouse.md).
 */
import { Context } from '@temporalio/activity';
import type { ClientEvent } from '../../client/index.js';
import type { LoadMeta, LoadUsage } from '../../warehouse/warehouse.js';

/** workflows counted at once (oldest dropped past it: a workflow that never records a load is not kept) */
const MAX_WORKFLOWS = 10_000;

export class UsageByWorkflow {
  private readonly byWorkflow = new Map<string, LoadUsage>();

  /** The workflow of the activity running now, or null outside any (a command's own calls). */
  private static workflowNow(): string | null {
    try {
      return Context.current().info.workflowExecution?.workflowId ?? null;
    } catch {
      return null;
    }
  }

  private of(id: string): LoadUsage {
    let u = this.byWorkflow.get(id);
    if (!u) {
      if (this.byWorkflow.size >= MAX_WORKFLOWS) this.byWorkflow.delete(this.byWorkflow.keys().next().value!);
      this.byWorkflow.set(id, (u = { apiRequests: 0, retries: 0, http429: 0, credits: 0 }));
    }
    return u;
  }

  clientEvent(e: ClientEvent): void {
    if (e.type !== 'response' && e.type !== 'retry' && e.type !== 'usage') return;
    const id = UsageByWorkflow.workflowNow();
    if (!id) return;
    const u = this.of(id);
    if (e.type === 'response') {
      u.apiRequests++;
      if (e.status === 429) u.http429++;
    } else if (e.type === 'retry') {
      u.retries++;
      if (e.status === null) u.apiRequests++; // no answer: a request all the same
    } else u.credits += e.credits;
  }

  /** The usage of the load's workflow so far (a workflow without requests: zeros). */
  usage(meta: LoadMeta): LoadUsage | undefined {
    if (!meta.workflowId) return undefined;
    return { ...(this.byWorkflow.get(meta.workflowId) ?? { apiRequests: 0, retries: 0, http429: 0, credits: 0 }) };
  }
}
