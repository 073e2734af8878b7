/** The alert runner seen from the command line: sync the per-alert schedules now; each alert's schedule, last run and deliveries. */
import { dataDirOf, lakeOf, useProject } from '../config/index.js';
import { openReader } from '../../warehouse/read.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { atShutdown, stopOnSignals, temporalEndpoint, TemporalSetupError } from '../../temporal/index.js';
import { startWorker, temporalClient } from '../worker/index.js';
import { preflight } from './preflight.js';

/** Run the alertSync workflow once (on TEMPORAL_ADDRESS) and return its result; fails when no worker picks it up within 60 s. */
export async function syncAlerts(dataDirOpt: string | undefined, o: { verbose?: boolean } = {}): Promise<unknown> {
  const project = useProject();
  const dataDir = dataDirOf(project, dataDirOpt);
  await preflight([{ kind: 'alerts' }], { apiUrl: project.api.url, apiKey: project.api.key });
  stopOnSignals((signal) => (signal === 'SIGINT' ? 130 : 143));
  const endpoint = await temporalEndpoint({ dataDir, temporal: project.temporal });
  // a worker of our own unless one already runs on this data dir (it holds the warehouse)
  let w: Awaited<ReturnType<typeof startWorker>> | null = null;
  try {
    w = await startWorker({ endpoint, dataDir, project, verbose: o.verbose });
  } catch (e) {
    if (!/lock/i.test((e as Error).message)) throw e;
  }
  const worker = w;
  const off = worker ? atShutdown(() => worker.stop()) : () => {};
  const client = await temporalClient(endpoint);
  try {
    const handle = await client.workflow.start('alertSync', { taskQueue: TASK_QUEUES.alerts, workflowId: `alerts-sync-manual-${Date.now()}`, args: [] });
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () =>
          reject(
            new TemporalSetupError(
              `no worker picked up the sync within 60 s on task queue ${TASK_QUEUES.alerts}; start one with "newsflow worker" (or "newsflow start")`,
            ),
          ),
        60_000,
      ).unref(),
    );
    return await Promise.race([handle.result(), timeout]).catch(async (e) => {
      await handle.terminate('no worker').catch(() => undefined);
      throw e;
    });
  } finally {
    off();
    await w?.stop();
    await client.connection.close();
  }
}

/**
 * One row per alert of the warehouse (deleted last): last run, runs that alerted, deliveries
 * delivered, owed and skipped; with TEMPORAL_ADDRESS set, its schedule and next run.
 */
export async function alertStatus(warehouseDir: string, dataDirOpt: string | undefined): Promise<Record<string, unknown>[]> {
  const project = useProject();
  const db = await openReader(warehouseDir, { lake: lakeOf(project) });
  const rows = await db.all(`
    SELECT a.alert_id::VARCHAR AS alert_id, coalesce(a.title, a.query) AS title, a.cron, a.active, a.deleted,
      (SELECT max(l.created_at) FROM alert_logs l WHERE l.alert_id = a.alert_id) AS last_run,
      (SELECT count(*) FROM alert_logs l WHERE l.alert_id = a.alert_id AND l.alert) AS triggered,
      (SELECT count(*) FROM alert_deliveries d WHERE d.alert_id = a.alert_id AND d.status = 'delivered') AS delivered,
      (SELECT count(*) FROM alert_deliveries d WHERE d.alert_id = a.alert_id AND d.status IN ('pending', 'failed')) AS owed,
      (SELECT count(*) FROM alert_deliveries d WHERE d.alert_id = a.alert_id AND d.status = 'skipped') AS skipped
    FROM alerts a ORDER BY a.deleted, a.created_at`);
  db.close();
  if (/:\d+$/.test(project.temporal.server)) {
    const c = await temporalClient(await temporalEndpoint({ dataDir: dataDirOf(project, dataDirOpt), temporal: project.temporal }));
    for (const r of rows) {
      try {
        const d = await c.schedule.getHandle(`alert-${r.alert_id}`).describe();
        r.schedule = `alert-${r.alert_id}`;
        r.next_run = d.info.nextActionTimes[0] ?? null;
      } catch {
        r.schedule = '(none)';
        r.next_run = null;
      }
    }
    await c.connection.close();
  } else {
    for (const r of rows) r.schedule = '(set TEMPORAL_ADDRESS)';
  }
  return rows;
}
