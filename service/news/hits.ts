/**
 * Hit events (surface, full_text; citation and grounded come with chat) buffered in memory and
 * written in batches, off the request path: at most `maxDelayMs` after the event, or when
 * `maxBatch` are waiting, and on close. A request only appends to the buffer; the write (one
 * statement, parsed and inserted in DuckDB's threads: NewsStore.recordHits) runs from a timer.
 * `flush()` lets readers (distribution analytics) see everything recorded so far, and resolves
 * once every batch taken before it is written.
 *
 * A failed write does not stop later ones, and loses nothing: the failed batch is tried again,
 * on its own, with the next flushes (`maxTries` in all), then its events are appended to the
 * dead-letter file (`hits.failed.jsonl` beside the store, one JSON event a line) with a warning
 * naming it. `close()` sends what is still failing there at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HitEvent, NewsStore } from '../store/news.js';

export const DEAD_LETTER_FILE = 'hits.failed.jsonl';

export class HitRecorder {
  private buf: HitEvent[] = [];
  /** batches whose write failed, with how many times it was tried */
  private failed: { events: HitEvent[]; tries: number }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly opts: { maxDelayMs: number; maxBatch: number; maxTries: number };
  constructor(
    private readonly store: NewsStore,
    opts: Partial<{ maxDelayMs: number; maxBatch: number; maxTries: number }> = {},
  ) {
    this.opts = { maxDelayMs: 1000, maxBatch: 10_000, maxTries: 3, ...opts };
  }

  record(events: HitEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) this.buf.push(e);
    if (this.buf.length >= this.opts.maxBatch) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), this.opts.maxDelayMs);
  }

  /** Write what is buffered (and try the failed batches again); rejects when the buffered batch fails. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buf;
    this.buf = [];
    const retries = this.failed;
    this.failed = [];
    const write = this.writing.then(async () => {
      for (const r of retries) await this.store.recordHits(r.events).catch((e: Error) => this.keep(r.events, r.tries + 1, e));
      if (batch.length === 0) return;
      await this.store.recordHits(batch).catch((e: Error) => {
        this.keep(batch, 1, e);
        throw e;
      });
    });
    this.writing = write.catch(() => undefined);
    return write;
  }

  /** On a stop: a last flush, then every batch still failing goes to the dead-letter file. */
  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    const left = this.failed;
    this.failed = [];
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (const r of left) this.deadLetter(r.events, 'the service stopped before it could be written');
  }

  /** The dead-letter file, beside the store (null for an in-memory store). */
  get deadLetterFile(): string | null {
    const f = this.store.db.file;
    return f === ':memory:' ? null : path.join(path.dirname(f), DEAD_LETTER_FILE);
  }

  private keep(events: HitEvent[], tries: number, e: Error): void {
    if (tries < this.opts.maxTries) {
      process.emitWarning(`${events.length} hit events not written (try ${tries} of ${this.opts.maxTries}: ${e.message.split('\n')[0]}); trying again`);
      this.failed.push({ events, tries });
      this.timer ??= setTimeout(() => this.flushInBackground(), this.opts.maxDelayMs);
    } else {
      this.deadLetter(events, e.message.split('\n')[0]!);
    }
  }

  private deadLetter(events: HitEvent[], why: string): void {
    const file = this.deadLetterFile;
    if (!file) {
      process.emitWarning(`${events.length} hit events not written (${why}); an in-memory store keeps no dead-letter file`);
      return;
    }
    try {
      fs.appendFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 });
      process.emitWarning(`${events.length} hit events not written after ${this.opts.maxTries} tries (${why}); kept in ${file}`);
    } catch (err) {
      process.emitWarning(`${events.length} hit events not written (${why}), nor kept in ${file}: ${(err as Error).message}`);
    }
  }

  private flushInBackground(): void {
    this.flush().catch(() => undefined); // kept for the next flush, or in the dead-letter file (see keep)
  }
}
