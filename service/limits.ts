/**
 * One token bucket (rate, burst) and one concurrency counter per key and limiter group.
 * Over the rate: 429 code 429000; over concurrency: 429 code 429001; both with Retry-After.
 */
import { DEFAULT_LIMITS, parseLimits, type LimitGroup, type LimitSpec, type LimitsConfig } from '../spec/index.js';

export type { LimitSpec, LimitsConfig };
export { DEFAULT_LIMITS, parseLimits };

interface Bucket {
  tokens: number;
  at: number;
  inflight: number;
}

export type Admission =
  | { ok: true; release: () => void; headers: Record<string, string> }
  | { ok: false; code: 429000 | 429001; retryAfter: number; headers: Record<string, string> };

export interface GroupState {
  request_rate: number;
  request_rate_capacity: number;
  request_rate_remaining: number;
  retry_after: number | null;
  concurrency_limit: number;
  concurrency_remaining: number;
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>();
  /** requests holding a concurrency slot, per group over every key (the service's /metrics) */
  private readonly inflightTotal = new Map<LimitGroup, number>();
  constructor(
    readonly config: LimitsConfig,
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
  ) {}

  private bucket(keyId: string, group: LimitGroup): Bucket {
    const id = `${keyId}\u0000${group}`;
    let b = this.buckets.get(id);
    const spec = this.config[group];
    const t = this.now();
    if (!b) {
      b = { tokens: spec.burst, at: t, inflight: 0 };
      this.buckets.set(id, b);
    } else {
      b.tokens = Math.min(spec.burst, b.tokens + ((t - b.at) / 1000) * spec.rate);
      b.at = t;
    }
    return b;
  }

  admit(keyId: string, group: LimitGroup): Admission {
    const spec = this.config[group];
    const b = this.bucket(keyId, group);
    const concurrency = { 'X-Concurrency-Limit': String(spec.concurrency) };
    if (b.inflight >= spec.concurrency) {
      return {
        ok: false,
        code: 429001,
        retryAfter: 1,
        headers: { ...concurrency, 'X-Concurrency-Remaining': '0', 'Retry-After': '1' },
      };
    }
    if (b.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / spec.rate));
      return {
        ok: false,
        code: 429000,
        retryAfter,
        headers: { 'X-RateLimit-Limit': String(spec.burst), 'X-RateLimit-Remaining': '0', 'Retry-After': String(retryAfter) },
      };
    }
    b.tokens -= 1;
    b.inflight += 1;
    this.inflightTotal.set(group, (this.inflightTotal.get(group) ?? 0) + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (!released) {
          released = true;
          b.inflight -= 1;
          this.inflightTotal.set(group, (this.inflightTotal.get(group) ?? 1) - 1);
        }
      },
      headers: {
        'X-RateLimit-Limit': String(spec.burst),
        'X-RateLimit-Remaining': String(Math.floor(b.tokens)),
        ...concurrency,
        'X-Concurrency-Remaining': String(spec.concurrency - b.inflight),
      },
    };
  }

  /** Requests holding a slot of `group` now, over every key. */
  inflight(group: LimitGroup): number {
    return this.inflightTotal.get(group) ?? 0;
  }

  /** Current state without consuming anything. */
  state(keyId: string, group: LimitGroup): GroupState {
    const spec = this.config[group];
    const b = this.bucket(keyId, group);
    return {
      request_rate: spec.rate,
      request_rate_capacity: spec.burst,
      request_rate_remaining: Math.floor(b.tokens * 1000) / 1000,
      retry_after: b.tokens >= 1 ? null : Math.ceil((1 - b.tokens) / spec.rate),
      concurrency_limit: spec.concurrency,
      concurrency_remaining: spec.concurrency - b.inflight,
    };
  }
}
