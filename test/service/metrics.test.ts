/** The service's /metrics (Prometheus text), /healthz and /readyz. */
import { afterEach, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { parsePrometheus } from '../helpers/prometheus.js';
import { waitUntil } from '../helpers/wait-until.js';

const utc = (s: string) => Date.parse(`${s}Z`) / 1000;
const hitShare = `/v1/distribution/stats/hit_share?domain_names=acme.com&start_date=${utc('2026-01-01T00:00:00')}&end_date=${utc('2026-01-02T00:00:00')}`;
const ROUTE = '/v1/distribution/stats/hit_share';
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

const scrape = async (s: TestService) => {
  const r = await fetch(`${s.url}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await r.text());
};

describe('service metrics', () => {
  it('counts requests per route template and status, their latency, and the 429s with their code', async () => {
    svc = await startTestService({ limitsText: 'distribution=0.2:3:2' });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api(svc.url, 'GET', hitShare, svc.keys.org)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    await api(svc.url, 'GET', '/v1/nowhere', svc.keys.org);
    await api(svc.url, 'GET', `/v1/news/${'a'.repeat(30)}`, svc.keys.org); // a path id: the template is the label

    const m = await scrape(svc);
    expect(m.types.get('newsflow_http_requests_total')).toBe('counter');
    expect(m.types.get('newsflow_http_request_duration_seconds')).toBe('histogram');
    expect(m.sum('newsflow_http_requests_total', { route: ROUTE, method: 'GET', status: '200' })).toBe(3);
    expect(m.sum('newsflow_http_requests_total', { route: ROUTE, status: '429' })).toBe(2);
    expect(m.sum('newsflow_http_rate_limited_total', { route: ROUTE, group: 'distribution', code: '429000' })).toBe(2);
    expect(m.sum('newsflow_http_request_duration_seconds_count', { route: ROUTE, method: 'GET' })).toBe(5);
    expect(m.sum('newsflow_http_request_duration_seconds_bucket', { route: ROUTE, le: '+Inf' })).toBe(5);
    expect(m.sum('newsflow_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    // no raw URL becomes a label: the article route is counted under its template
    expect(m.samples.some((s) => Object.values(s.labels).some((v) => v.includes('aaaaaaaa')))).toBe(false);
    expect(m.find('newsflow_http_requests_total', { route: '/v1/news/:article_id' })).toHaveLength(1);
    expect(m.find('process_cpu_seconds_total')).toHaveLength(1);
  });

  it('shows the concurrency slots in flight per group while a request holds one', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    svc = await startTestService({
      handlers: {
        domain_hit_share: async () => {
          await held;
          return { domain_names: ['acme.com'], data: [] };
        },
      },
      validateResponses: false,
    });
    const s = svc;
    const pending = api(s.url, 'GET', hitShare, s.keys.org);
    try {
      await waitUntil(async () => (await scrape(s)).sum('newsflow_limiter_inflight', { group: 'distribution' }) === 1);
      const m = await scrape(s);
      expect(m.sum('newsflow_limiter_concurrency_limit', { group: 'distribution' })).toBeGreaterThan(0);
      expect(m.sum('newsflow_limiter_inflight', { group: 'news' })).toBe(0);
    } finally {
      release();
    }
    expect((await pending).status).toBe(200);
    await waitUntil(async () => (await scrape(s)).sum('newsflow_limiter_inflight', { group: 'distribution' }) === 0);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz, and /readyz names what is not ready (503 with code and detail)', async () => {
    svc = await startTestService();
    expect(await api(svc.url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await api(svc.url, 'GET', '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { store: { ready: true }, index: { ready: true } } },
    });
    // a part that loads in the background adds its check
    let loaded = 0;
    const remove = svc.services.readiness!.add('vectors', () => (loaded === 1 ? { ready: true } : { ready: false, detail: `loading, ${loaded * 100}%` }));
    const r = await api(svc.url, 'GET', '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 503000, detail: 'not ready: vectors (loading, 0%)', checks: { vectors: { ready: false } } });
    loaded = 1;
    expect((await api(svc.url, 'GET', '/readyz')).status).toBe(200);
    remove();
    expect(Object.keys((await api(svc.url, 'GET', '/readyz')).body.checks)).toEqual(['store', 'index']);
    // wrong method: 405, as every path of the app
    expect((await api(svc.url, 'POST', '/readyz')).status).toBe(405);
  });
});
