/**
 * Stopping what a command started, on every way out: its cleanups (stop the worker, then the
 * Temporal dev server) run on SIGINT/SIGTERM, last registered first; processes we spawned are
 * killed on process exit whatever the reason (an error, process.exit), as a last resort.
 */

type Cleanup = () => Promise<void>;
const cleanups: Cleanup[] = [];
const onExit = new Set<() => void>();

/** `fn` runs when the command is stopped by a signal; returns a function that unregisters it. */
export function atShutdown(fn: Cleanup): () => void {
  cleanups.push(fn);
  return () => {
    const i = cleanups.lastIndexOf(fn);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

let exitHooked = false;
/** `fn` (synchronous: a kill) runs when the process exits; returns a function that unregisters it. */
export function atExit(fn: () => void): () => void {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const f of onExit) {
        try {
          f();
        } catch {
          /* the process is leaving */
        }
      }
    });
  }
  onExit.add(fn);
  return () => onExit.delete(fn);
}

/** Each cleanup gets this long before the next one runs. */
const CLEANUP_MS = 8000;

/** Run the cleanups now (last registered first), each given at most CLEANUP_MS. */
export async function shutdown(): Promise<void> {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([fn().catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, CLEANUP_MS)))]);
    clearTimeout(timer);
  }
}

let signalsHooked = false;
/**
 * On SIGINT/SIGTERM: say so, run the cleanups, exit with `code(signal)` (default 0). A second
 * signal exits at once (the exit hooks still kill what we spawned).
 */
export function stopOnSignals(code: (signal: NodeJS.Signals) => number = () => 0): void {
  if (signalsHooked) return;
  signalsHooked = true;
  let stopping = false;
  const on = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(code(signal));
    stopping = true;
    process.stderr.write(`newsflow: ${signal}, stopping\n`);
    void shutdown().finally(() => process.exit(code(signal)));
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
}
