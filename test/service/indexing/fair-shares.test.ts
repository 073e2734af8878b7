/**
 * URL indexing shared fairly between tenants, on the real service with loopback pages that answer
 * after a delay (NEWSFLOW_FETCH_ALLOW=127.0.0.1): tenant A posts 1,000 URLs, then tenant B posts 1;
 * B's job completes while A's is still running (round-robin between owners, not arrival order).
 * An owner has at most NEWSFLOW_INDEX_MAX_JOBS unfinished jobs (429 beyond), and a request at most
 * NEWSFLOW_INDEX_MAX_URLS URLs (422 on `urls` beyond).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';
import { servePages } from '../../helpers/readability-pages.js';
import { waitUntil } from '../../helpers/wait-until.js';

/** each page answers after this long */
const DELAY_MS = 250;
const WINDOW = { start_time: '2000-01-01T00:00:00Z', end_time: new Date(Date.now() + 86_400_000).toISOString() };

let svc: TestService;
let server: PageServer;
let pages: Map<string, string>;

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  pages = servePages(server, DELAY_MS);
  // A's pages: small pages that are no article, each its own URL
  server.routes.set('/a', (req, res) => {
    const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n');
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>A ${n}</title></head><body><p>a page</p></body></html>`),
      DELAY_MS,
    );
  });
  svc = await startTestService({ limitsText: 'news=1000:1000:100' });
}, 600_000);
afterAll(async () => {
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

const post = (key: string, urls: string[]) => api(svc.url, 'POST', '/v1/news/index_urls', key, { ...WINDOW, urls: urls.map((url) => ({ url })) });
const job = async (key: string, id: string) => (await api(svc.url, 'GET', `/v1/news/index_urls/${id}`, key)).body;
const aUrls = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${server.origin}/a?n=${from + i}`);

describe('fair shares between tenants', () => {
  let aJob: string;

  it("B's 1-URL job completes while A's 1,000-URL job, posted first, is still running", async () => {
    const a = await post(svc.keys.org!, aUrls(0, 1000));
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    aJob = a.body.job_id;
    // A's job is under way (its first pages read: the reader threads have started), every slot holding one of its URLs
    await waitUntil(async () => (await job(svc.keys.org!, aJob)).counts.skipped >= 8, { what: "A's job under way", timeoutMs: 120_000 });
    const t0 = Date.now();
    const b = await post(svc.keys.personal!, [pages.get('bbc-1')!]);
    expect(b.status).toBe(200);
    // B's URL leaves the queue at the first slot A's fetches free
    await waitUntil(async () => (await job(svc.keys.personal!, b.body.job_id)).urls[0].status !== 'queued', {
      what: "B's URL started",
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    const queued = Date.now() - t0;
    const bDone = await waitUntil(
      async () => {
        const j = await job(svc.keys.personal!, b.body.job_id);
        return j.finished_at ? j : null;
      },
      { what: "B's job finished", timeoutMs: 60_000 },
    );
    const waited = Date.now() - t0;
    const aNow = await job(svc.keys.org!, aJob);
    console.log(
      `B's URL waited ${queued} ms in the queue and its job finished ${waited} ms after it was posted (pages answer after ${DELAY_MS} ms, 4 slots; ` +
        `the rest is reading, enriching and embedding the article); A's 1,000-URL job then: ${aNow.status}, ${aNow.message}`,
    );
    expect(bDone.status).toBe('completed');
    expect(bDone.indexed_count).toBe(1);
    expect(aNow.status).toBe('running');
    expect(aNow.finished_at).toBeNull();
    expect(aNow.counts.queued).toBeGreaterThan(900);
  });

  it('an owner has at most 4 unfinished jobs: the fifth is a 429 (concurrency), another owner still posts', async () => {
    for (let i = 0; i < 3; i++) expect((await post(svc.keys.org!, aUrls(2000 + i, 1))).status).toBe(200);
    const fifth = await post(svc.keys.org!, aUrls(3000, 1));
    expect(fifth.status).toBe(429);
    expect(fifth.body.code).toBe(429001);
    expect(fifth.body.detail).toMatch(/4 URL indexing jobs are unfinished/);
    expect(fifth.headers.get('retry-after')).toBe('5');
    // the limit is the owner's: every key of the organization counts, another owner does not
    expect((await post(svc.keys.legacy!, aUrls(3001, 1))).status).toBe(429);
    expect((await post(svc.keys.analyst!, aUrls(3002, 1))).status).toBe(200);
  });
});

describe('the per-request URL cap of the server', () => {
  it('NEWSFLOW_INDEX_MAX_URLS=2: three URLs are a 422 naming urls, two are taken', async () => {
    process.env.NEWSFLOW_INDEX_MAX_URLS = '2';
    const small = await startTestService({ limitsText: 'news=1000:1000:100' });
    delete process.env.NEWSFLOW_INDEX_MAX_URLS;
    try {
      const three = await api(small.url, 'POST', '/v1/news/index_urls', small.keys.org, { ...WINDOW, urls: aUrls(5000, 3).map((url) => ({ url })) });
      expect(three.status).toBe(422);
      expect(three.body.detail).toEqual([
        { loc: ['body', 'urls'], msg: 'urls: at most 2 items allowed on this server (NEWSFLOW_INDEX_MAX_URLS)', type: 'value_error.list.max_items' },
      ]);
      const two = await api(small.url, 'POST', '/v1/news/index_urls', small.keys.org, { ...WINDOW, urls: aUrls(5000, 2).map((url) => ({ url })) });
      expect(two.status).toBe(200);
    } finally {
      await small.stop();
    }
  });
});
