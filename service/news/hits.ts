/**
 * Hit events (surface, full_text; citation and grounded come with chat) buffered in memory and
 * written in batches: at most `maxDelayMs` after the event, or when `maxBatch` are waiting, and
 * on close. `flush()` lets readers (distribution analytics) see everything recorded so far.
 */
import type { HitEvent, NewsStore } from '../store/news.js';

export class HitRecorder {
  private buf: HitEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  constructor(
    private readonly store: NewsStore,
    private readonly opts = { maxDelayMs: 1000, maxBatch: 2000 },
  ) {}

  record(events: HitEvent[]): void {
    if (events.length === 0) return;
    this.buf.push(...events);
    if (this.buf.length >= this.opts.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.maxDelayMs);
  }

  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buf;
    this.buf = [];
    this.writing = this.writing.then(() => (batch.length ? this.store.recordHits(batch) : undefined));
    return this.writing;
  }
}
