/**
 * The service's Prometheus metrics (prom-client, one registry per app): requests, latency and
 * 429s per route, the limiter's slots in flight, and the Node process's own (CPU, memory, event
 * loop lag). GET /metrics serves them as Prometheus text; docs/operations.md lists every metric.
 * Route labels are the route's template (`/v1/news/:article_id`), never the raw URL: the label
 * sets stay as small as the route table.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LIMIT_GROUPS } from '../spec/index.js';
import type { RateLimiter } from './limits.js';

/** Latency buckets (seconds): a cached search in milliseconds up to a DeepNews stream in tens of seconds. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The label of a request outside the route table (404, 405): one series for all of them. */
export const UNMATCHED = 'unmatched';

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly limited: Counter<'route' | 'group' | 'code'>;

  constructor(limiter: RateLimiter, opts: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'newsflow_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'newsflow_http_request_duration_seconds',
      help: 'time from the request to its answer handed to the socket (a stream: to its end), by method and route template',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.limited = new Counter({
      name: 'newsflow_http_rate_limited_total',
      help: "requests refused with 429 by the limiter, by route template, limiter group and the API's code (429000 rate, 429001 concurrency)",
      labelNames: ['route', 'group', 'code'],
      registers,
    });
    new Gauge({
      name: 'newsflow_limiter_inflight',
      help: 'requests holding a concurrency slot now, by limiter group, over every key',
      labelNames: ['group'],
      registers,
      collect() {
        for (const g of LIMIT_GROUPS) this.set({ group: g }, limiter.inflight(g));
      },
    });
    new Gauge({
      name: 'newsflow_limiter_concurrency_limit',
      help: 'the concurrency slots of one key, by limiter group',
      labelNames: ['group'],
      registers,
      collect() {
        for (const g of LIMIT_GROUPS) this.set({ group: g }, limiter.config[g].concurrency);
      },
    });
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request: `ms` from its arrival to its answer. */
  observe(method: string, route: string | undefined, status: number, ms: number): void {
    const r = route ?? UNMATCHED;
    this.requests.inc({ method, route: r, status: String(status) });
    this.latency.observe({ method, route: r }, ms / 1000);
  }

  /** One request the limiter refused (429). */
  rateLimited(route: string, group: string, code: number): void {
    this.limited.inc({ route, group, code: String(code) });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
