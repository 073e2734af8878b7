/**
 * A URL indexing job survives a restart: stopped while its 35 URLs are under way, the service
 * started again on the same data dir resumes the job and completes it, each URL indexed once.
 */
import fs from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { serviceConfig } from '../../../service/config.js';
import { openServices, startService, type RunningService } from '../../../service/server.js';
import { api, tempDir } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';
import { pageNames, servePages, waitForJob } from '../../helpers/readability-pages.js';
import { waitUntil } from '../../helpers/wait-until.js';

const dataDir = tempDir();
let server: PageServer;
let running: RunningService | null = null;

afterAll(async () => {
  await running?.close();
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  delete process.env.NEWSFLOW_FETCH_ALLOW;
  delete process.env.NEWSFLOW_INDEX_CONCURRENCY;
});

async function start(): Promise<RunningService> {
  const config = serviceConfig({ dataDir, port: 0, host: '127.0.0.1', logLevel: 'silent', validateResponses: true, limitsText: 'news=1000:1000:100' });
  const services = await openServices(config);
  return startService({ services, logger: false });
}

/** close() of a service started with given services leaves the store open: close it too (as a stop would). */
async function stop(svc: RunningService): Promise<void> {
  await svc.close();
  svc.services.db.close();
}

it('resumes an interrupted 35-URL job after a restart and indexes each URL once', async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  process.env.NEWSFLOW_INDEX_CONCURRENCY = '2';
  server = await startPageServer();
  const urls = servePages(server, 150); // slow pages: the job is still under way when the service stops
  const hits = new Map<string, number>();
  for (const [name] of urls) {
    const h = server.routes.get(`/${name}/`)!;
    server.routes.set(`/${name}/`, (req, res) => {
      hits.set(name, (hits.get(name) ?? 0) + 1);
      h(req, res);
    });
  }
  let svc = await start();
  running = svc;
  const org = await svc.services.keys.createOrg({ name: 'acme', domains: ['acme.com'] });
  const { key } = await svc.services.keys.createKey({ name: 'k', org: org.name, scopes: ['news'] });
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', key, {
    start_time: '2000-01-01T00:00:00Z',
    end_time: '2100-01-01T00:00:00Z',
    urls: pageNames.map((n) => ({ url: urls.get(n)! })),
  });
  expect(r.status).toBe(200);
  const jobId = r.body.job_id as string;
  const view = () => api(running!.url, 'GET', `/v1/news/index_urls/${jobId}`, key);
  // wait until a few URLs are done, then stop the service in the middle of the job
  await waitUntil(
    async () => {
      const v = await view();
      return v.body.counts.indexed + v.body.counts.skipped >= 5;
    },
    { what: 'five URLs of the job done', timeoutMs: 60_000, intervalMs: 100 },
  );
  await stop(svc);
  running = null;
  const mid = await (async () => {
    const s = await openServices(serviceConfig({ dataDir, logLevel: 'silent' }));
    // opening resumes the job: read the state as the stop left it, before the runner moves on
    const rows = await s.db.all<{ status: string; n: bigint }>(`SELECT status, count(*) AS n FROM url_job_items GROUP BY 1`);
    await s.web?.close();
    await s.news?.close();
    s.db.close();
    return Object.fromEntries(rows.map((x) => [x.status, Number(x.n)]));
  })();
  console.log(`after the stop: ${JSON.stringify(mid)}`);
  svc = await start();
  running = svc;
  const job = await waitForJob(view, 300_000);
  console.log(`after the restart: ${job.status}; ${job.message}`);
  expect(job.status).toBe('completed');
  expect(job.indexed_count).toBe(35);
  const perUrl = await svc.services.db.all<{ url: string; n: bigint }>(
    `SELECT article_url AS url, count(*) AS n FROM articles WHERE source = 'web' GROUP BY 1`,
  );
  console.log(
    `articles by URL: ${perUrl.length} URLs, most articles for one URL: ${Math.max(...perUrl.map((x) => Number(x.n)))}; page requests: ${[...hits.values()].reduce((a, b) => a + b, 0)} for ${hits.size} pages`,
  );
  expect(perUrl).toHaveLength(35);
  expect(perUrl.every((x) => Number(x.n) === 1)).toBe(true);
  const items = job.urls as { url: string; article_id: string | null }[];
  expect(new Set(items.filter((i) => i.article_id).map((i) => i.article_id)).size).toBe(35);
}, 600_000);
