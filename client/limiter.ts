/**
 * The client's proactive limiter: per limiter group, a p-queue for concurrency and a token
 * bucket for rate and burst. A 429 pauses the whole group until its Retry-After has passed,
 * so retries go through the same limiter and never storm.
 */
import PQueue from 'p-queue';
import type { LimitSpec } from '../spec/index.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class TokenBucket {
  private tokens: number;
  private at: number;
  private blockedUntil = 0;
  private chain: Promise<void> = Promise.resolve();
  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
  ) {
    this.tokens = burst;
    this.at = this.now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.at) / 1000) * this.rate);
    this.at = t;
  }

  /** Wait for one token; callers are served in arrival order. */
  take(): Promise<void> {
    const turn = this.chain.then(async () => {
      for (;;) {
        const block = this.blockedUntil - this.now();
        if (block > 0) {
          await sleep(block);
          continue;
        }
        this.refill();
        if (this.tokens >= 1) {
          this.tokens -= 1;
          return;
        }
        await sleep(Math.ceil(((1 - this.tokens) / this.rate) * 1000));
      }
    });
    this.chain = turn.catch(() => undefined);
    return turn;
  }

  /** Hold every caller until `untilMs` (epoch ms) and empty the bucket: the server said wait. */
  pauseUntil(untilMs: number): void {
    if (untilMs > this.blockedUntil) this.blockedUntil = untilMs;
    this.refill();
    this.tokens = 0;
    this.at = Math.max(this.at, untilMs);
  }
}

export class GroupLimiter {
  readonly queue: PQueue;
  readonly bucket: TokenBucket;
  constructor(readonly spec: LimitSpec) {
    this.queue = new PQueue({ concurrency: spec.concurrency });
    this.bucket = new TokenBucket(spec.rate, spec.burst);
  }
  /** Run `fn` inside the group's concurrency slot, after taking a token. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.add(async () => {
      await this.bucket.take();
      return fn();
    }) as Promise<T>;
  }
}
