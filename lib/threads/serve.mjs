// The worker side of lib/threads/budget-pool.ts: answer each { id, input } with { id, output } or
// { id, error }, once `ready` has been said. Plain JS, so a worker file starts the same under node,
// tsx and vitest.
import { parentPort } from 'node:worker_threads';

/** Serve jobs with `run` (its module loaded: the pool's budget starts when a job is sent). */
export function serveJobs(run) {
  parentPort.on('message', ({ id, input }) => {
    try {
      parentPort.postMessage({ id, output: run(input) });
    } catch (e) {
      parentPort.postMessage({ id, error: String(e instanceof Error ? e.message : e) });
    }
  });
  parentPort.postMessage({ ready: true });
}
