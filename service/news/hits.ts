/**
 * Hit events (surface, full_text; citation and grounded come with chat) buffered in memory and
 * written in batches, off the request path: at most `maxDelayMs` after the event, or when
 * `maxBatch` are waiting, and on close. A request only appends to the buffer; the write (one
 * statement, parsed and inserted in DuckDB's threads: NewsStore.recordHits) runs from a timer.
 * `flush()` lets readers (distribution analytics) see everything recorded so far, and resolves
 * once every batch taken before it is written. A failed write does not stop later ones.
 */
import type { HitEvent, NewsStore } from '../store/news.js';

export class HitRecorder {
  private buf: HitEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  constructor(
    private readonly store: NewsStore,
    private readonly opts = { maxDelayMs: 1000, maxBatch: 10_000 },
  ) {}

  record(events: HitEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) this.buf.push(e);
    if (this.buf.length >= this.opts.maxBatch) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), this.opts.maxDelayMs);
  }

  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buf;
    this.buf = [];
    const write = this.writing.then(() => (batch.length ? this.store.recordHits(batch) : undefined));
    this.writing = write.catch(() => undefined);
    return write;
  }

  private flushInBackground(): void {
    this.flush().catch((e: Error) => process.emitWarning(`hit events not written: ${e.message}`));
  }
}
