/**
 * The worker's /metrics and /healthz: after real runs of newsIngest (real Temporal dev server, real
 * service, real lake), the counters in the Prometheus text equal the sums of `_loads`, the API
 * requests equal the pages fetched (429s and retries counted), and Temporal's own metrics follow.
 */
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startWorker } from '../../../pipelines/worker/runtime.js';
import { loadProject } from '../../../pipelines/config/project.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';
import { startCorpusService } from '../../helpers/news.js';
import { tempDir, type TestService } from '../../helpers/service.js';
import { parsePrometheus } from '../../helpers/prometheus.js';
import { SEARCH_CREDITS } from '../../../service/news/service.js';

let svc: TestService;
let worker: Awaited<ReturnType<typeof startWorker>>;
let temporal: Client;

beforeAll(async () => {
  // one request per 5 s, a burst of 1: a run's next page comes sooner than that (one a second with a
  // burst of 2 met no 429 when each page took over a second to land), so a run of several pages meets
  // 429s, which the client retries
  svc = await startCorpusService({ limitsText: 'news=0.2:1:10' });
  const address = inject('temporalAddress');
  const dataDir = tempDir('newsflow-metrics-');
  worker = await startWorker({
    endpoint: { address, namespace: 'nf-metrics', uiUrl: null, stop: async () => {} },
    dataDir,
    // the project of a folder without a project file, no environment: the defaults
    project: loadProject({ cwd: dataDir, env: {} }),
    apiUrl: svc.url,
    apiKey: svc.keys.org,
    metrics: { port: 0, host: '127.0.0.1' },
    quiet: true,
    bundleCacheDir: path.join(os.tmpdir(), 'newsflow-test-cache', 'bundle'),
  });
  temporal = new Client({ connection: await Connection.connect({ address }), namespace: 'nf-metrics' });
}, 180_000);
afterAll(async () => {
  await temporal?.connection.close();
  await worker?.stop();
  await svc?.stop();
});

const ingest = (id: string, pipeline: string, from: string, to: string) =>
  temporal.workflow.execute('newsIngest', {
    taskQueue: TASK_QUEUES.news,
    workflowId: id,
    args: [{ pipeline, from, to, pageSize: 25 }],
  }) as Promise<{ loadId: string; pages: number; received: number; inserted: number; updated: number }>;

const scrape = async () => {
  const r = await fetch(`${worker.metricsUrl}/metrics`);
  expect(r.status).toBe(200);
  return parsePrometheus(await r.text());
};

describe('worker metrics', () => {
  it('counts what _loads sums, the API requests of every page (429s and retries too), and serves Temporal’s own', async () => {
    expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const runs = [
      await ingest('metrics-a-1', 'morning', '2022-07-09T00:00:00.000Z', '2022-07-10T00:00:00.000Z'),
      await ingest('metrics-b-1', 'evening', '2022-07-10T00:00:00.000Z', '2022-07-10T12:00:00.000Z'),
      // the same window again: nothing new, one more load and its pages
      await ingest('metrics-a-2', 'morning', '2022-07-09T00:00:00.000Z', '2022-07-10T00:00:00.000Z'),
    ];
    const m = await scrape();
    const loads = await worker.warehouse.query<{ pipeline: string; kind: string; n: bigint; received: bigint; inserted: bigint; updated: bigint }>(
      `SELECT pipeline, any_value(kind) AS kind, count(*) AS n, sum(rows_received) AS received, sum(rows_inserted) AS inserted, sum(rows_updated) AS updated
         FROM _loads GROUP BY pipeline ORDER BY pipeline`,
    );
    expect(loads.map((l) => l.pipeline)).toEqual(['evening', 'morning']);
    for (const l of loads) {
      const p = { pipeline: l.pipeline };
      expect(m.sum('newsflow_loads_total', p)).toBe(Number(l.n));
      for (const count of ['received', 'inserted', 'updated'] as const) {
        expect(m.sum('newsflow_load_rows_total', { ...p, kind: l.kind, count })).toBe(Number(l[count]));
        // the loads' own table: what they landed into articles is what _loads says
        expect(m.sum('newsflow_rows_landed_total', { ...p, table: 'articles', count })).toBe(Number(l[count]));
      }
      expect(m.sum('newsflow_pipeline_last_success_timestamp_seconds', p)).toBeGreaterThan(Date.now() / 1000 - 600);
    }
    expect(m.sum('newsflow_load_rows_total', { count: 'inserted' })).toBeGreaterThan(0);
    // one answered search per page; every 429 was retried
    const pages = runs.reduce((a, r) => a + r.pages, 0);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(m.sum('newsflow_api_requests_total', { group: 'news', operation: 'search_news', status: '200' })).toBe(pages);
    const limited = m.sum('newsflow_api_requests_total', { group: 'news', status: '429' });
    expect(limited).toBeGreaterThan(0);
    expect(m.sum('newsflow_api_retries_total', { group: 'news', status: '429' })).toBe(limited);
    // the service counted the same: its 200s and 429s of the search route
    const servedText = await (await fetch(`${svc.url}/metrics`)).text();
    const served = parsePrometheus(servedText);
    // an excerpt of both, as curl shows them
    const excerpt = (text: string, re: RegExp) =>
      text
        .split('\n')
        .filter((l) => re.test(l))
        .slice(0, 12)
        .join('\n');
    const workerText = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
    console.log(
      `curl worker/metrics (excerpt):\n${excerpt(workerText, /^newsflow_(rows_landed|api_requests|api_retries|last_success)|^temporal_workflow_completed/)}`,
    );
    console.log(`curl service/metrics (excerpt):\n${excerpt(servedText, /^newsflow_http_(requests_total|rate_limited)|^newsflow_limiter_inflight/)}`);
    expect(served.sum('newsflow_http_requests_total', { route: '/v1/news/search', status: '200' })).toBe(pages);
    expect(served.sum('newsflow_http_rate_limited_total', { route: '/v1/news/search', group: 'news' })).toBe(limited);
    // the Temporal SDK's own, in the same text
    expect(m.types.get('newsflow_api_requests_total')).toBe('counter');
    const temporalNames = new Set(m.samples.filter((s) => s.name.startsWith('temporal_')).map((s) => s.name));
    expect(temporalNames.size).toBeGreaterThan(5);
    expect(m.sum('temporal_workflow_completed_total', { task_queue: TASK_QUEUES.news })).toBeGreaterThanOrEqual(3);
    // no sources declared: no series, but the metric is there
    expect(m.types.get('newsflow_sources')).toBe('gauge');

    // what each load cost, in _loads: one request per page and one per 429 (each retried), the credits the answers named
    const usage = await worker.warehouse.query<{ load_id: string; api_requests: bigint; retries: bigint; http_429: bigint; credits: number }>(
      'SELECT load_id, api_requests, retries, http_429, credits FROM _loads',
    );
    expect(usage).toHaveLength(3);
    for (const r of runs) {
      const u = usage.find((x) => x.load_id === r.loadId)!;
      expect(Number(u.api_requests)).toBe(r.pages + Number(u.http_429));
      expect(Number(u.retries)).toBe(Number(u.http_429));
      // every page a plain search: one credit each (service/routes/news.ts, SEARCH_CREDITS)
      expect(u.credits).toBe(r.pages * SEARCH_CREDITS.kw);
    }
    // the totals are the service's own count of the key's requests
    const total = usage.reduce((a, u) => a + Number(u.api_requests), 0);
    expect(total).toBe(served.sum('newsflow_http_requests_total', { route: '/v1/news/search' }));
    expect(usage.reduce((a, u) => a + Number(u.http_429), 0)).toBe(limited);
  }, 240_000);

  it('answers /healthz while its workers run, and refuses other paths and methods with {code, detail}', async () => {
    const h = await fetch(`${worker.metricsUrl}/healthz`);
    expect(h.status).toBe(200);
    expect(await h.json()).toMatchObject({ status: 'ok' });
    const nope = await fetch(`${worker.metricsUrl}/nope`);
    expect(nope.status).toBe(404);
    expect(await nope.json()).toMatchObject({ code: 404000 });
    expect((await fetch(`${worker.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
