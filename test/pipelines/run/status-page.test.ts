/**
 * The status page (GET /status on the worker's metrics port) after real runs: the newsflow status
 * table with its badges, a sparkline of rows per load and the API chart, drawn by headless
 * Chromium (the screenshot in .tmp/status/status-page.png) and checked for its table and charts;
 * every value escaped (a hostile pipeline name renders as text).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startWorker } from '../../../pipelines/worker/runtime.js';
import { loadProject } from '../../../pipelines/config/project.js';
import { Pipeline } from '../../../pipelines/config/schema.js';
import { applySchedules, declareSchedules } from '../../../pipelines/schedules/index.js';
import { sparkline, statusPage, statusPageHtml, requestChart } from '../../../pipelines/run/status-page.js';
import type { StatusReport } from '../../../pipelines/run/status.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';
import { startCorpusService } from '../../helpers/news.js';
import { tempDir, type TestService } from '../../helpers/service.js';
import { repoRoot } from '../../helpers/paths.js';
import { countColour, readPng } from '../../helpers/png.js';
import { chromium } from '../../helpers/chromium.js';

const NS = 'nf-status-page';
let svc: TestService;
let worker: Awaited<ReturnType<typeof startWorker>>;
let temporal: Client;
const decls = declareSchedules([
  Pipeline.parse({ name: 'ukraine', kind: 'news', query: 'ukraine', schedule: { every: '1h' } }),
  Pipeline.parse({ name: 'covid', kind: 'news', query: 'covid', schedule: { every: '1h' } }),
]);

beforeAll(async () => {
  svc = await startCorpusService();
  const address = inject('temporalAddress');
  temporal = new Client({ connection: await Connection.connect({ address }), namespace: NS });
  const dataDir = tempDir('newsflow-status-page-');
  worker = await startWorker({
    endpoint: { address, namespace: NS, uiUrl: null, stop: async () => {} },
    dataDir,
    project: loadProject({ cwd: dataDir, env: {} }),
    apiUrl: svc.url,
    apiKey: svc.keys.org,
    metrics: { port: 0, host: '127.0.0.1' },
    quiet: true,
    bundleCacheDir: path.join(os.tmpdir(), 'newsflow-test-cache', 'bundle'),
    statusPage: statusPage(async () => temporal, decls),
  });
  await applySchedules(temporal, decls);
}, 180_000);
afterAll(async () => {
  for (const d of decls)
    await temporal?.schedule
      .getHandle(d.id)
      .delete()
      .catch(() => undefined);
  await temporal?.connection.close();
  await worker?.stop();
  await svc?.stop();
});

const ingest = (pipeline: string, from: string, to: string) =>
  temporal.workflow.execute('newsIngest', {
    taskQueue: TASK_QUEUES.news,
    workflowId: `status-page-${pipeline}-${from}`,
    args: [{ pipeline, from, to, pageSize: 25 }],
  }) as Promise<{ received: number }>;

describe('the status page', () => {
  it('escapes every value and draws what it is given', () => {
    const at = '2026-12-02T06:00:00.000Z';
    const now = Date.parse(at);
    const report: StatusReport = {
      at,
      exitCode: 1,
      sources: null,
      pipelines: [
        {
          pipeline: '<script>alert(1)</script>',
          schedule: 'x',
          state: 'active',
          lastRun: { workflowId: 'w', status: 'FAILED', at, error: { message: 'm', code: 401000, detail: '<b>revoked</b>' } },
          failuresInRow: 2,
          lastLoad: null,
          periodMs: 3_600_000,
          warnAfterMs: 7_200_000,
          errorAfterMs: 10_800_000,
          lagMs: null,
          health: 'failing',
          next: null,
        } as StatusReport['pipelines'][number],
      ],
    };
    const html = statusPageHtml(report, [{ pipeline: '<script>alert(1)</script>', at: now - 3_600_000, rows: 5, apiRequests: 3, http429: 1 }], now);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('API error 401000: &lt;b&gt;revoked&lt;/b&gt;');
    expect(html).toContain('<span class="badge failing">failing</span>');
    expect(html).not.toMatch(/https?:\/\//);
    expect(sparkline([])).toContain('no loads');
    expect(sparkline([1, 4, 2])).toMatch(/<polyline [^>]*points="0\.0,\d+\.\d 80\.0,2\.0 160\.0,\d+\.\d"/);
    expect(requestChart([{ pipeline: 'p', at: now - 1000, rows: 1, apiRequests: 7, http429: 2 }], now)).toContain('7 requests, 2 answered 429');
  });

  it('serves the status table after real runs, drawn by headless Chromium with its badges and charts', async () => {
    const a = await ingest('ukraine', '2022-07-09T00:00:00.000Z', '2022-07-09T12:00:00.000Z');
    await ingest('ukraine', '2022-07-09T12:00:00.000Z', '2022-07-10T12:00:00.000Z');
    expect(a.received).toBeGreaterThan(0);
    const url = `${worker.metricsUrl}/status`;
    const r = await fetch(url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await r.text();
    expect(html).toMatch(/<tr class="pipeline">\n<td>ukraine<\/td><td><span class="badge ok">ok<\/span>/);
    expect(html).toMatch(/<tr class="pipeline">\n<td>covid<\/td>/);
    expect((await fetch(`${worker.metricsUrl}/nope`)).status).toBe(404);
    const outDir = path.join(repoRoot, '.tmp', 'status');
    fs.mkdirSync(outDir, { recursive: true });
    const png = path.join(outDir, 'status-page.png');
    fs.rmSync(png, { force: true });
    const profile = tempDir('newsflow-chromium-');
    try {
      const dom = await chromium(url, ['--dump-dom'], { profile, windowSize: '1400,800' });
      expect(dom.status, dom.stderr.slice(-500)).toBe(0);
      expect(dom.stdout).toContain('<table id="pipelines">');
      expect(dom.stdout.match(/<tr class="pipeline">/g)?.length).toBe(2);
      expect(dom.stdout).toMatch(/<svg class="spark"/);
      expect(dom.stdout).toMatch(/<svg class="chart"[^>]*aria-label="API requests per 6 hours: \d+ requests, \d+ answered 429"/);
      const shot = await chromium(url, [`--screenshot=${png}`], { profile, windowSize: '1400,800' });
      expect(shot.status, shot.stderr.slice(-500)).toBe(0);
    } finally {
      fs.rmSync(profile, { recursive: true, force: true });
    }
    const img = readPng(fs.readFileSync(png));
    expect([img.width, img.height]).toEqual([1400, 800]);
    // the green ok badge, the blue sparkline
    expect(countColour(img, [0x16, 0xa3, 0x4a], 16)).toBeGreaterThan(100);
    expect(countColour(img, [0x25, 0x63, 0xeb], 40)).toBeGreaterThan(50);
    console.log(`status page screenshot: .tmp/status/status-page.png (${img.width}x${img.height})`);
  }, 300_000);
});
