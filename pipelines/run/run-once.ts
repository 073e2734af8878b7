/** The worker and one-off workflow runs, as `newsflow worker` and `newsflow run` start them. */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { ClientEvent } from '../../client/index.js';
import { declareSchedules } from '../schedules/index.js';
import { dataDirOf, lakeOf, useProject, warehouseDirOf } from '../config/index.js';
import type { WarehouseAt } from '../config/kinds/index.js';
import { atShutdown, RunFailedError, stopOnSignals, temporalEndpoint } from '../../temporal/index.js';
import { startWorker, temporalClient, workerLogFile } from '../worker/index.js';
import { preflight, scheduledNeeds, type PreflightNeed } from './preflight.js';
import { progress } from './progress.js';
import { statusPage } from './status-page.js';

/** A cleanup that failed after a run: one JSON line in the worker log (the terminal keeps the run's own outcome). */
function cleanupFailed(dataDir: string, what: string, e: Error): void {
  try {
    fs.mkdirSync(path.dirname(workerLogFile(dataDir)), { recursive: true });
    fs.appendFileSync(
      workerLogFile(dataDir),
      `${JSON.stringify({ time: new Date().toISOString(), level: 'WARN', message: `${what} failed`, error: e.message })}\n`,
    );
  } catch {
    /* the log is out of reach too: nothing more to do */
  }
}

/**
 * Run the worker (all workflows and activities) until SIGINT/SIGTERM, then stop it cleanly. The
 * preflight checks the API and key, and warns about each scheduled pipeline this key cannot run.
 */
export async function runWorker(dataDirOpt: string | undefined, o: { verbose?: boolean; metricsPort?: number; metricsHost?: string } = {}) {
  const project = useProject();
  const dataDir = dataDirOf(project, dataDirOpt);
  await preflight(scheduledNeeds(declareSchedules(project.pipelines)), { mode: 'worker', apiUrl: project.api.url, apiKey: project.api.key });
  stopOnSignals();
  const endpoint = await temporalEndpoint({ dataDir, temporal: project.temporal, log: (m) => console.error(m) });
  atShutdown(() => endpoint.stop());
  try {
    const { metrics } = project;
    const port = o.metricsPort ?? metrics.port;
    // the status page's Temporal client, made at its first request
    let client: ReturnType<typeof temporalClient> | null = null;
    const w = await startWorker({
      endpoint,
      dataDir,
      project,
      verbose: o.verbose,
      metrics: port !== undefined ? { port, host: o.metricsHost ?? metrics.host } : undefined,
      statusPage: statusPage(() => (client ??= temporalClient(endpoint)), declareSchedules(project.pipelines)),
    });
    atShutdown(async () => {
      await w.stop();
      await (await client)?.connection.close();
    });
    console.log(
      `worker running on ${endpoint.address}${endpoint.uiUrl ? ` (Temporal UI ${endpoint.uiUrl})` : ''}; warehouse ${warehouseDirOf(project, dataDir)}${w.metricsUrl ? `; metrics ${w.metricsUrl}/metrics, health ${w.metricsUrl}/healthz, status page ${w.metricsUrl}/status` : ''}`,
    );
    await w.running;
  } finally {
    await endpoint.stop();
  }
}

/** One workflow to run now: its type, queue, input, and how its `progress` query reads as a bar. */
export interface RunRequest<P = unknown> {
  workflowType: string;
  taskQueue: string;
  input: Record<string, unknown>;
  show: (p: P) => [number, number, string];
  /** a line printed (stderr) each time it changes, beside the bar: for runs of few, long steps */
  line?: (p: P) => string | null;
  /** what the preflight checks for it */
  need: PreflightNeed;
  /** done after the run succeeded and its result was printed (e.g. write a file from what it landed) */
  after?: (result: Record<string, unknown>, warehouse: WarehouseAt) => Promise<void>;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One line per retry: of the worker's API client (in-process), and of Temporal's activity retries. */
export function retryLines(write: (line: string) => void) {
  const seen = new Map<string, number>();
  return {
    clientEvent(e: ClientEvent) {
      if (e.type !== 'retry') return;
      write(`retry ${e.operationId}: attempt ${e.attempt + 1} failed (${e.reason}); attempt ${e.attempt + 2} in ${seconds(e.delayMs)}`);
    },
    /** from DescribeWorkflowExecution: pending activities whose attempt went up */
    pending(
      activities: {
        activityId?: string | null;
        activityType?: { name?: string | null } | null;
        attempt?: number | null;
        lastFailure?: { message?: string | null } | null;
        nextAttemptScheduleTime?: { seconds?: unknown } | null;
      }[],
    ) {
      for (const a of activities) {
        const attempt = a.attempt ?? 1;
        const id = a.activityId ?? '';
        if (attempt <= 1 || (seen.get(id) ?? 1) >= attempt) continue;
        seen.set(id, attempt);
        const next = a.nextAttemptScheduleTime?.seconds != null ? Number(a.nextAttemptScheduleTime.seconds) * 1000 : null;
        write(
          `retry ${a.activityType?.name ?? 'activity'}: attempt ${attempt - 1} failed (${a.lastFailure?.message ?? 'unknown'}); attempt ${attempt} ${next ? `in ${seconds(Math.max(0, next - Date.now()))}` : 'now'}`,
        );
      }
    },
  };
}

/** The innermost message of a failed workflow: the activity's failure (the API's code and detail). */
function rootMessage(e: unknown): string {
  let m = (e as Error).message;
  for (let c = (e as { cause?: unknown }).cause; c; c = (c as { cause?: unknown }).cause) m = (c as Error).message || m;
  return m;
}

/**
 * Run one workflow now and wait for it: our own dev server and worker unless TEMPORAL_ADDRESS
 * is set; progress from the workflow's `progress` query (a bar on a terminal, JSON lines
 * otherwise), a line per retry; the result printed as JSON. The preflight runs first (with
 * TEMPORAL_ADDRESS and no NEWSFLOW_API_KEY, the worker elsewhere has its own key: it is left out).
 * A failed run throws RunFailedError with its cause; a signal stops the worker and the dev server.
 */
export async function runOnce<P>(
  dataDirOpt: string | undefined,
  { workflowType, taskQueue, input, show, line, need, after }: RunRequest<P>,
  o: { verbose?: boolean } = {},
): Promise<Record<string, unknown>> {
  const project = useProject();
  const dataDir = dataDirOf(project, dataDirOpt);
  const own = !/:\d+$/.test(project.temporal.server);
  if (own || project.api.key) await preflight([need], { apiUrl: project.api.url, apiKey: project.api.key });
  stopOnSignals((signal) => (signal === 'SIGINT' ? 130 : 143));
  // a one-off run shows no Temporal UI: its dev server has none (no UI port to race for)
  const endpoint = await temporalEndpoint({ dataDir, temporal: project.temporal, headless: true, log: (m) => console.error(m) });
  const offEndpoint = atShutdown(() => endpoint.stop());
  const retries = retryLines((line) => process.stderr.write(`${line}\n`));
  let w: Awaited<ReturnType<typeof startWorker>> | null = null;
  let offWorker = () => {};
  let poll: NodeJS.Timeout | undefined;
  const bar = progress(workflowType);
  try {
    if (own) {
      w = await startWorker({ endpoint, dataDir, project, verbose: o.verbose, onEvent: (e) => retries.clientEvent(e) });
      const worker = w;
      offWorker = atShutdown(() => worker.stop());
    }
    const client = await temporalClient(endpoint);
    const handle = await client.workflow.start(workflowType, { taskQueue, workflowId: `${workflowType}-manual-${Date.now()}`, args: [input] });
    let lastLine: string | null = null;
    const onProgress = (p: P) => {
      bar.update(...show(p)); // after the end, a stopped bar ignores it
      const l = line?.(p) ?? null;
      if (l && l !== lastLine) process.stderr.write(`${(lastLine = l)}\n`);
    };
    // calls of the poll still in flight: the connection closes only after they settle (a call
    // the client retries after the close throws from its timer and ends the process)
    const inFlight = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    poll = setInterval(() => {
      track(handle.query<P>('progress').then(onProgress, () => {}));
      track(
        handle.describe().then(
          (d) => retries.pending(d.raw.pendingActivities ?? []),
          () => {},
        ),
      );
    }, 1000);
    let result: Record<string, unknown>;
    try {
      result = (await handle.result()) as Record<string, unknown>;
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new RunFailedError(`${need.kind} failed: ${rootMessage(e)}`);
      throw e;
    } finally {
      clearInterval(poll);
      // the last progress (a closed workflow still answers queries), so the final line is never missed
      if (line) await handle.query<P>('progress').then(onProgress, () => {});
      let waited: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        Promise.allSettled([...inFlight]).then(() => true),
        new Promise<boolean>((r) => (waited = setTimeout(() => r(false), 15_000))),
      ]);
      clearTimeout(waited);
      if (settled) await client.connection.close();
      // still retrying after that: the connection is left open, and the process ends without it
      else setTimeout(() => process.exit(), 3000).unref();
    }
    bar.update(1, 1, 'done');
    bar.stop();
    console.log(JSON.stringify(result));
    await after?.(result, { dir: warehouseDirOf(project, dataDir), lake: lakeOf(project) });
    return result;
  } finally {
    clearInterval(poll);
    bar.stop();
    offWorker();
    offEndpoint();
    // a failing cleanup must not hide why the run ended: it goes to the worker log
    await w?.stop().catch((e: Error) => cleanupFailed(dataDir, 'stopping the worker', e));
    await endpoint.stop().catch((e: Error) => cleanupFailed(dataDir, 'stopping the Temporal server', e));
  }
}
