/**
 * The client's proactive limiter: per limiter group, a p-queue for concurrency and a rate/burst
 * limiter in GCRA form (the token bucket written as a "theoretical arrival time").
 *
 * The server meters a request when it arrives, which can be later than when we sent it (a cold
 * start, a slow network). So when a response comes back, the request is re-stamped at the
 * response time: whatever the server's clock saw, our schedule is never ahead of it. A 429 pauses
 * the whole group until its Retry-After has passed, so retries go through the same limiter.
 */
import PQueue from 'p-queue';
import type { LimitSpec } from '../spec/index.js';

/** A promise resolved after `ms` (the client's one timer: backoff, Retry-After, job polling). */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Ticket {
  seq: number;
}

export class TokenBucket {
  /** ms between requests at the sustained rate */
  private readonly interval: number;
  /** how far ahead of now the schedule may run: (burst - 1) intervals */
  private readonly tolerance: number;
  /** theoretical arrival time of the next request (epoch ms) */
  private tat: number;
  private blockedUntil = 0;
  private taken = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
  ) {
    this.interval = 1000 / rate;
    this.tolerance = (burst - 1) * this.interval;
    this.tat = this.now();
  }

  /** Wait for the right to send one request; callers are served in arrival order. */
  take(): Promise<Ticket> {
    const turn = this.chain.then(async () => {
      for (;;) {
        const t = this.now();
        const wait = Math.max(this.blockedUntil - t, this.tat - this.tolerance - t);
        if (wait > 0) {
          await sleep(Math.ceil(wait));
          continue;
        }
        this.tat = Math.max(this.tat, t) + this.interval;
        return { seq: this.taken++ };
      }
    });
    this.chain = turn.catch(() => undefined);
    return turn;
  }

  /** The response to `ticket` arrived at `at`: the server saw the request at `at` at the latest. */
  settle(ticket: Ticket, at: number = this.now()): void {
    this.tat = Math.max(this.tat, at + (this.taken - ticket.seq) * this.interval);
  }

  /** Hold every caller for `ms`, then allow one request: the server said wait. */
  pauseFor(ms: number): void {
    const untilMs = this.now() + ms;
    this.blockedUntil = Math.max(this.blockedUntil, untilMs);
    this.tat = Math.max(this.tat, untilMs + this.tolerance);
  }
}

export class GroupLimiter {
  readonly queue: PQueue;
  readonly bucket: TokenBucket;
  constructor(readonly spec: LimitSpec) {
    this.queue = new PQueue({ concurrency: spec.concurrency });
    this.bucket = new TokenBucket(spec.rate, spec.burst);
  }
  /** Run `fn` inside the group's concurrency slot, after the rate limiter lets it go. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.add(async () => {
      const ticket = await this.bucket.take();
      try {
        return await fn();
      } finally {
        this.bucket.settle(ticket);
      }
    }) as Promise<T>;
  }
}
