/** The worker and one-off workflow runs, as `newsflow worker` and `newsflow run` start them. */
import { serviceConfig } from '../service/config.js';
import { progress } from './progress.js';
import { startWorker, temporalClient, temporalEndpoint, warehouseDir } from './runtime.js';

/** Run the worker (all workflows and activities) until SIGINT/SIGTERM, then stop it cleanly. */
export async function runWorker(dataDirOpt: string | undefined) {
  const dataDir = serviceConfig({ dataDir: dataDirOpt }).dataDir;
  const endpoint = await temporalEndpoint({ dataDir, log: (m) => console.error(m) });
  const w = await startWorker({ endpoint, dataDir });
  console.log(`worker running on ${endpoint.address}${endpoint.uiUrl ? ` (Temporal UI ${endpoint.uiUrl})` : ''}; warehouse ${warehouseDir(dataDir)}`);
  const stop = async () => {
    await w.stop();
    await endpoint.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await w.running;
}

/** One workflow to run now: its type, queue, input, and how its `progress` query reads as a bar. */
export interface RunRequest<P = unknown> {
  workflowType: string;
  taskQueue: string;
  input: Record<string, unknown>;
  show: (p: P) => [number, number, string];
}

/**
 * Run one workflow now and wait for it: our own dev server and worker unless TEMPORAL_ADDRESS
 * is set; progress from the workflow's `progress` query (a bar on a terminal, JSON lines
 * otherwise); the result printed as JSON.
 */
export async function runOnce<P>(dataDirOpt: string | undefined, { workflowType, taskQueue, input, show }: RunRequest<P>) {
  const dataDir = serviceConfig({ dataDir: dataDirOpt }).dataDir;
  const endpoint = await temporalEndpoint({ dataDir, log: (m) => console.error(m) });
  const w = process.env.TEMPORAL_ADDRESS ? null : await startWorker({ endpoint, dataDir });
  const client = await temporalClient(endpoint);
  const bar = progress(workflowType);
  const handle = await client.workflow.start(workflowType, { taskQueue, workflowId: `${workflowType}-manual-${Date.now()}`, args: [input] });
  const poll = setInterval(() => {
    handle.query<P>('progress').then((p) => bar.update(...show(p)), () => {});
  }, 1000);
  const result = (await handle.result().finally(() => clearInterval(poll))) as Record<string, unknown>;
  bar.update(1, 1, 'done');
  bar.stop();
  console.log(JSON.stringify(result));
  await w?.stop();
  await endpoint.stop();
}
