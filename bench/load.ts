/**
 * One load run with autocannon against a served URL: `connections` clients, each sending the
 * next request of a shared sequence (`next()` gives its path) as soon as its last one answered.
 * Latencies are autocannon's per-response times; percentiles are computed from all of them.
 */
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { pct, round } from './stats.js';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const ms = (x: number) => round(x, 2);

export async function load(opts: { url: string; key: string; connections: number; seconds: number; next: () => string }): Promise<LoadResult> {
  const times: number[] = [];
  let non2xx = 0;
  const t0 = performance.now();
  const inst = autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: { authorization: `Bearer ${opts.key}` },
    requests: [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: opts.next() }) }],
  });
  inst.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    times.push(responseTime);
    if (status < 200 || status > 299) non2xx++;
  });
  const r = (await inst) as { errors: number; timeouts: number };
  const seconds = (performance.now() - t0) / 1000;
  return {
    requests: times.length,
    rps: Number((times.length / seconds).toFixed(1)),
    p50: ms(pct(times, 50)),
    p95: ms(pct(times, 95)),
    p99: ms(pct(times, 99)),
    non2xx,
    errors: r.errors + r.timeouts,
  };
}
