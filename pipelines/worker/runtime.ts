/** Wiring shared by the CLI commands that talk to Temporal: connection, client, warehouse, worker. */
import type { Client } from '@temporalio/client';
import { NewsClient, type ClientEvent } from '../../client/index.js';
import type { TemporalEndpoint } from '../temporal/index.js';
import { WorkerLog } from './log.js';
import type { LoadedPipelines } from './extensions.js';
import { lakeOf, warehouseDirOf } from '../config/current.js';
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
export async function installRuntime(dataDir: string, verbose = false, quiet = false): Promise<WorkerLog> {
  if (!workerLog) {
    const { Runtime, makeTelemetryFilterString } = await import('@temporalio/worker');
    workerLog = new WorkerLog(dataDir, { verbose, quiet });
    // quiet: the native core's own log lines (else printed straight to stdout) go through the log too
    const telemetryOptions = quiet ? { logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} } } : undefined;
    Runtime.install({ logger: workerLog, shutdownSignals: [], telemetryOptions });
  }
  return workerLog;
}

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
}) {
  const log = await installRuntime(opts.dataDir, opts.verbose, opts.quiet);
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
  } catch (e) {
    warehouse.close();
    throw e;
  }
  const client = new NewsClient({ baseUrl: opts.apiUrl ?? project.api.url, apiKey: opts.apiKey ?? project.api.key, onEvent: opts.onEvent });
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
  });
  const running = workers.run();
  return {
    warehouse,
    running,
    /** Drain and stop the workers, then close the client and the warehouse (also when the workers already failed). */
    async stop() {
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
