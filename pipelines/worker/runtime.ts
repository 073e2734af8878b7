/** Wiring shared by the CLI commands that talk to Temporal: connection, client, warehouse, worker. */
import type { Client } from '@temporalio/client';
import { NewsClient, type ClientEvent } from '../../client/index.js';
import type { TemporalEndpoint } from '../../temporal/index.js';
import { WorkerLog } from './log.js';
import type { LoadedPipelines } from './extensions.js';
import { fetchPolicyOf, lakeOf, warehouseDirOf } from '../config/current.js';
import type { Project } from '../config/project.js';

// the Temporal SDK, the warehouse and the worker (webpack, every activity) are loaded when first
// used: a command that stops at its preflight, or never needs them, starts in a fraction of the time

export async function temporalClient(ep: TemporalEndpoint): Promise<Client> {
  const { Client, Connection } = await import('@temporalio/client');
  return new Client({ connection: await Connection.connect({ address: ep.address }), namespace: ep.namespace });
}

let workerLog: WorkerLog | null = null;
/**
 * The Temporal Runtime of a newsflow command, once per process: its log (the SDK's, the
 * activities') to <data dir>/logs/worker.log and, on a terminal, errors only unless `verbose`
 * (see log.ts); no signal handlers of its own (the command stops its worker itself).
 */
export async function installRuntime(dataDir: string, verbose = false, quiet = false, temporalMetrics?: string): Promise<WorkerLog> {
  if (!workerLog) {
    const { Runtime, makeTelemetryFilterString } = await import('@temporalio/worker');
    workerLog = new WorkerLog(dataDir, { verbose, quiet });
    // quiet: the native core's own log lines (else printed straight to stdout) go through the log too
    const logging = quiet ? { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} } : undefined;
    // the SDK's own Prometheus exporter (temporal_* metrics) on a loopback address, read by our /metrics (metrics.ts)
    const metrics = temporalMetrics ? { prometheus: { bindAddress: temporalMetrics, countersTotalSuffix: true, useSecondsForDurations: true } } : undefined;
    const telemetryOptions = logging || metrics ? { ...(logging ? { logging } : {}), ...(metrics ? { metrics } : {}) } : undefined;
    Runtime.install({ logger: workerLog, shutdownSignals: [], telemetryOptions });
    temporalMetricsAddress = temporalMetrics ?? null;
  }
  return workerLog;
}
/** where the installed Runtime serves the SDK's metrics (null: it does not) */
let temporalMetricsAddress: string | null = null;

export async function startWorker(opts: {
  endpoint: TemporalEndpoint;
  dataDir: string;
  /** the project: its API (unless apiUrl/apiKey say otherwise), lake, limits, workers, SMTP, your pipelines module */
  project: Project;
  apiUrl?: string;
  apiKey?: string;
  /** the worker's log on stderr too (else in <data dir>/logs/worker.log only, errors excepted) */
  verbose?: boolean;
  /** without `verbose`: errors only on stderr, whether or not it is a terminal (`newsflow start`) */
  quiet?: boolean;
  /** events of the worker's API client (requests, retries) */
  onEvent?: (e: ClientEvent) => void;
  /** keep the workflow bundle here (see workflowBundle in worker.ts) */
  bundleCacheDir?: string;
  /** serve /metrics and /healthz here (metrics.ts; port 0: any free port, see `metricsUrl`) */
  metrics?: { port: number; host: string };
  /** the status page of GET /status on the metrics port (run/status-page.ts), given the worker's warehouse rows */
  statusPage?: (rows: (sql: string) => Promise<Record<string, unknown>[]>) => Promise<string>;
}) {
  let metrics: import('./metrics.js').WorkerMetrics | null = null;
  let temporalMetrics: string | undefined;
  if (opts.metrics) {
    const m = await import('./metrics.js');
    metrics = new m.WorkerMetrics();
    temporalMetrics = `127.0.0.1:${await m.freeLoopbackPort()}`;
  }
  const log = await installRuntime(opts.dataDir, opts.verbose, opts.quiet, temporalMetrics);
  const { createWorkers } = await import('./worker.js');
  const { Warehouse } = await import('../../warehouse/warehouse.js');
  // your own pipelines (the project file's workflows:), checked before anything starts
  const project = opts.project;
  let extension: LoadedPipelines | undefined;
  if (project.workflows) {
    const { loadPipelines, missingWorkflows, ExtensionError } = await import('./extensions.js');
    extension = await loadPipelines(project.workflows);
    const missing = missingWorkflows(extension, project.pipelines);
    if (missing.length) throw new ExtensionError(missing.join('\n'));
  }
  const warehouse = await Warehouse.open(warehouseDirOf(project, opts.dataDir), lakeOf(project));
  try {
    if (extension) await warehouse.ensureTables(extension.tables);
    // before any activity runs: every landing is seen
    await metrics?.watch(warehouse);
  } catch (e) {
    warehouse.close();
    throw e;
  }
  // what each workflow's activities cost against the API, written into _loads with its load (usage.ts)
  const { UsageByWorkflow } = await import('./usage.js');
  const usage = new UsageByWorkflow();
  warehouse.setUsageSource((meta) => usage.usage(meta));
  const onEvent = (e: ClientEvent) => {
    usage.clientEvent(e);
    metrics?.clientEvent(e);
    opts.onEvent?.(e);
  };
  const client = new NewsClient({ baseUrl: opts.apiUrl ?? project.api.url, apiKey: opts.apiKey ?? project.api.key, onEvent });
  const workers = await createWorkers({
    address: opts.endpoint.address,
    namespace: opts.endpoint.namespace,
    client,
    warehouse,
    bundlerLogger: log.bundler,
    bundleCacheDir: opts.bundleCacheDir,
    extension,
    limits: project.limits,
    workers: project.workers,
    smtpUrl: project.smtpUrl,
    fetchPolicy: fetchPolicyOf(project),
    notify: project.notify ?? null,
  });
  const running = workers.run();
  let server: import('./metrics.js').MetricsServer | null = null;
  if (metrics && opts.metrics) {
    try {
      const { serveMetrics } = await import('./metrics.js');
      server = await serveMetrics({
        ...opts.metrics,
        metrics,
        temporalUrl: temporalMetricsAddress ? `http://${temporalMetricsAddress}` : undefined,
        statusPage: opts.statusPage ? () => opts.statusPage!((sql) => warehouse.query<Record<string, unknown>>(sql)) : undefined,
        health: () => {
          const states = workers.states();
          const down = Object.entries(states).filter(([, s]) => s !== 'RUNNING');
          return down.length
            ? { ok: false, detail: `workers not running: ${down.map(([q, s]) => `${q} ${s}`).join(', ')}` }
            : { ok: true, detail: `${Object.keys(states).length} task queues polled` };
        },
      });
    } catch (e) {
      workers.shutdown();
      await running.catch(() => undefined);
      await client.close();
      warehouse.close();
      throw e;
    }
  }
  return {
    warehouse,
    running,
    /** the worker's /metrics and /healthz (null: no metrics port set) */
    metricsUrl: server?.url ?? null,
    /** Drain and stop the workers, then close the client and the warehouse (also when the workers already failed). */
    async stop() {
      await server?.close();
      try {
        try {
          workers.shutdown();
        } catch {
          /* not running any more (it failed, or a signal stopped it): `running` tells why */
        }
        await running;
      } finally {
        await client.close();
        warehouse.close();
      }
    },
  };
}
