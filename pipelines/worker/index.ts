/**
 * pipelines/worker: the Temporal worker of newsflow and what runs it in a command.
 * - runtime.ts: a command's worker (startWorker: warehouse, API client, workers), its Temporal
 *   client and Runtime; loads the SDK and the worker when first used
 * - worker.ts: the workers, one per task queue (workflows/queues.ts) with the API's rates, and
 *   the workflow bundle (cached by its sources)
 * - log.ts: where the worker's log goes (<data dir>/logs/worker.log, stderr)
 */
export { installRuntime, startWorker, temporalClient } from './runtime.js';
export { WorkerLog, workerLogFile } from './log.js';
export { TASK_QUEUES } from '../../workflows/queues.js';
