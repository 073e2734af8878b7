/**
 * Page decoding and reading off the event loop. Reading a page (Readability on linkedom, page.ts)
 * costs tens of milliseconds of CPU, seconds on a large page, and detecting its charset
 * (lib/fetch/charset.ts) is a scan of its bytes; done in the service's thread they would stall
 * every request meanwhile and use one core. The pool runs both in worker threads (`readBytes`: the
 * fetched bytes go to the thread; read-job.ts), one per core by default (`NEWSFLOW_PAGE_READERS`,
 * at most 8, read by service/config.ts), on lib/threads/budget-pool.ts: started on first use and unref'd (they never keep the
 * process alive). Pages queue in order; a worker that dies is replaced and its page fails with the
 * reason; when threads cannot start at all, pages are read in this thread.
 *
 * Each page has a time budget once a worker takes it (`NEWSFLOW_PAGE_READ_TIMEOUT_MS`, default
 * 20 s): past it the page fails with `PageReadTimeout` (reason `timeout`), and its worker, which
 * may be stuck in the page for good, is terminated and replaced; the pages behind it go on. (A
 * pool of size 0, or one whose threads cannot start, reads in this thread without a budget.)
 */
import type { FetchedBytes } from '../../lib/fetch/fetcher.js';
import { BudgetExceeded, BudgetPool } from '../../lib/threads/budget-pool.js';
import type { ReadPage } from './page.js';
import { readJob, type ReadInput, type ReadOutput } from './read-job.js';
import { defaultReaderCount, READ_DEFAULTS } from '../config.js';

const WORKER_FILE = new URL('./reader-worker.mjs', import.meta.url);

// the settings are read by service/config.ts (ServiceConfig.pageReaders); re-exported for the benches
export { READ_DEFAULTS, readerCount, readTimeoutMs } from '../config.js';

/** A page whose reading passed its time budget (its worker was terminated and replaced). */
export class PageReadTimeout extends Error {
  override readonly name = 'PageReadTimeout';
  readonly reason = 'timeout';
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`reading the page took longer than its budget of ${timeoutMs} ms`);
  }
}

export class ReaderPool {
  private readonly pool: BudgetPool<ReadInput, ReadOutput>;

  constructor(size = defaultReaderCount(), opts: { timeoutMs?: number } = {}) {
    this.pool = new BudgetPool({ file: WORKER_FILE, what: 'reading the page', size, timeoutMs: opts.timeoutMs ?? READ_DEFAULTS.timeoutMs, here: readJob });
  }

  /** Thread ids of the live workers (a timed-out one is gone at once). */
  get threads(): number[] {
    return this.pool.threads;
  }

  /**
   * Read a page in a worker thread (in this thread when the pool has size 0 or no thread starts),
   * within `timeoutMs` (default: the pool's) from when a worker takes it; past it, `PageReadTimeout`.
   */
  async read(html: string, url: string, o: { timeoutMs?: number } = {}): Promise<ReadPage> {
    return (await this.job({ html, url }, o)).read;
  }

  /** Decode a fetched page's bytes (charset detection) and read it, both in a worker thread, within the same budget as `read`. */
  readBytes(page: FetchedBytes, o: { timeoutMs?: number } = {}): Promise<ReadOutput> {
    return this.job({ bytes: page, url: page.url }, o);
  }

  private async job(input: ReadInput, o: { timeoutMs?: number }): Promise<ReadOutput> {
    try {
      return await this.pool.run(input, o);
    } catch (e) {
      if (e instanceof BudgetExceeded) throw new PageReadTimeout(input.url, e.timeoutMs);
      throw e;
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

let shared: ReaderPool | null = null;
let settings: { size: number; timeoutMs: number } | null = null;
/** The service's settings of the shared pool (ServiceConfig.pageReaders), given when it opens, before the pool's first use. */
export const useReaderSettings = (s: { size: number; timeoutMs: number }): void => {
  settings = s;
};
/** The process's page readers (URL indexing and web search share them); without settings one per core, READ_DEFAULTS' budget. */
export const readerPool = (): ReaderPool => (shared ??= settings ? new ReaderPool(settings.size, { timeoutMs: settings.timeoutMs }) : new ReaderPool());
