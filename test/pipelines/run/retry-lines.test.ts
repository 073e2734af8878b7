/** The retry lines of `newsflow run`: one per retry, from the client's events and from Temporal's pending activities. */
import { describe, expect, it } from 'vitest';
import { retryLines } from '../../../pipelines/run/run-once.js';

describe('retry lines', () => {
  it('a client retry reads: operation, failed attempt, reason, next attempt and its delay; other events print nothing', () => {
    const out: string[] = [];
    const r = retryLines((l) => out.push(l));
    r.clientEvent({ type: 'request', operationId: 'search_news', attempt: 0 });
    r.clientEvent({ type: 'retry', operationId: 'search_news', status: null, delayMs: 412, attempt: 0, reason: 'connect ECONNREFUSED 127.0.0.1:9' });
    r.clientEvent({ type: 'retry', operationId: 'search_news', status: 503, delayMs: 1250, attempt: 1, reason: 'HTTP 503 (code 503000): down' });
    expect(out).toEqual([
      'retry search_news: attempt 1 failed (connect ECONNREFUSED 127.0.0.1:9); attempt 2 in 0.4 s',
      'retry search_news: attempt 2 failed (HTTP 503 (code 503000): down); attempt 3 in 1.3 s',
    ]);
  });

  it('a Temporal activity retry is printed once per new attempt, with the last failure and the next try', () => {
    const out: string[] = [];
    const r = retryLines((l) => out.push(l));
    const at = (attempt: number, inSeconds: number) => ({
      activityId: '1',
      activityType: { name: 'ingestPage' },
      attempt,
      lastFailure: attempt > 1 ? { message: 'search_news: HTTP 502 (code 502000): bad gateway' } : null,
      nextAttemptScheduleTime: { seconds: String(Math.floor(Date.now() / 1000) + inSeconds) },
    });
    r.pending([at(1, 0)]); // first attempt running: nothing to say
    r.pending([at(2, 4)]);
    r.pending([at(2, 4)]); // the same attempt polled again
    r.pending([at(3, 8)]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^retry ingestPage: attempt 1 failed \(search_news: HTTP 502 \(code 502000\): bad gateway\); attempt 2 in [34]\.\d s$/);
    expect(out[1]).toMatch(/^retry ingestPage: attempt 2 failed \(search_news: HTTP 502 \(code 502000\): bad gateway\); attempt 3 in [78]\.\d s$/);
  });
});
