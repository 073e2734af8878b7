/**
 * The one way tests wait for something that happens elsewhere (a server, a worker, a schedule):
 * `waitUntil` calls `check` until it returns a value that is not `undefined`, `null` or `false`,
 * and returns that value. Between tries it yields for `intervalMs` (a poll, not a sleep that
 * hopes). Past `timeoutMs` it throws, naming what it waited for and the last error `check` threw.
 */
export interface WaitOptions {
  /** what is awaited, for the error message */
  what?: string;
  /** give up after this long; default 30 s */
  timeoutMs?: number;
  /** pause between tries; default 50 ms */
  intervalMs?: number;
}

export async function waitUntil<T>(check: () => T | Promise<T>, opts: WaitOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== null && v !== false) return v as Exclude<T, undefined | null | false>;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const cause = lastError ? `; last error: ${(lastError as Error).message ?? String(lastError)}` : '';
      throw new Error(`waitUntil: ${opts.what ?? 'condition'} not met within ${timeoutMs} ms${cause}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
