/**
 * index_urls under the fetch policy: private, loopback, link-local and metadata addresses are
 * refused per URL (nothing fetched: the test servers count connections), redirects to them too;
 * oversized pages, a server that never answers, a PDF and a 404 are recorded with their reason,
 * and the job still completes (partial).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { html, redirect, startPageServer, type PageServer } from '../../helpers/page-server.js';
import { pagesDir, waitForJob } from '../../helpers/readability-pages.js';

const started: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
  delete process.env.NEWSFLOW_FETCH_TIMEOUT_MS;
});

async function server(host = '127.0.0.1'): Promise<PageServer> {
  const s = await startPageServer(host);
  started.push({ stop: () => s.close() });
  return s;
}

async function service(): Promise<TestService> {
  const s = await startTestService({ limitsText: 'news=1000:1000:100' });
  started.push(s);
  return s;
}

async function runJob(svc: TestService, urls: string[]) {
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
    start_time: '2000-01-01T00:00:00Z',
    end_time: '2100-01-01T00:00:00Z',
    urls: urls.map((url) => ({ url })),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, svc.keys.org), 60_000);
}

const v6 = async () => {
  try {
    return await server('::1');
  } catch {
    return null; // no IPv6 loopback on this machine: [::1] is still refused, with nothing listening
  }
};

describe('index_urls with NEWSFLOW_FETCH_ALLOW unset', () => {
  it('refuses loopback, IPv6 loopback, private, metadata and localhost-named URLs per URL, fetching nothing', async () => {
    delete process.env.NEWSFLOW_FETCH_ALLOW;
    const local = await server();
    const local6 = await v6();
    local.routes.set('/', html('<html><body><p>secret</p></body></html>'));
    const svc = await service();
    const urls = [
      `http://127.0.0.1:${local.port}/`,
      `http://[::1]:${local6?.port ?? local.port}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${local.port}/`,
      `http://2130706433:${local.port}/decimal`, // 127.0.0.1 written as one number
    ];
    const job = await runJob(svc, urls);
    console.log(job.urls.map((u) => `${u.url} -> ${u.status} ${u.reason}: ${u.detail}`).join('\n'));
    expect(job.urls.map((u) => [u.status, u.reason])).toEqual(urls.map(() => ['refused', 'forbidden_address']));
    // the detail names the refusal's category only: no host name, no resolved address, no address class
    for (const u of job.urls) {
      expect(u.detail).toBe('forbidden_address: the fetch policy does not allow the address of this host');
      expect(u.detail).not.toMatch(/127\.0\.0\.1|::1|10\.0\.0\.1|169\.254|localhost|2130706433|private|loopback|metadata|link-local/);
    }
    expect(job.status).toBe('failed');
    expect(job.indexed_count).toBe(0);
    expect(local.connections).toBe(0);
    expect(local6?.connections ?? 0).toBe(0);
  });
});

describe('index_urls with NEWSFLOW_FETCH_ALLOW=127.0.0.1 (one allowed origin)', () => {
  it('refuses redirects to private addresses, records oversized, silent, PDF and missing pages, and completes as partial', async () => {
    process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
    process.env.NEWSFLOW_FETCH_TIMEOUT_MS = '3000';
    const origin = await server();
    const other = await server('127.0.0.2'); // loopback, but not in the allow list
    const twelveMb = Buffer.alloc(12 * 1024 * 1024, 'a');
    origin.routes.set('/article', html(fs.readFileSync(path.join(pagesDir, 'guardian-1', 'source.html'))));
    origin.routes.set('/to-other-loopback', redirect(`${other.origin}/`));
    origin.routes.set('/to-private', redirect('http://10.1.2.3/'));
    origin.routes.set('/to-metadata', redirect('http://169.254.169.254/latest/meta-data/', 307));
    origin.routes.set('/big', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(twelveMb));
    origin.routes.set('/big-chunked', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
      for (let i = 0; i < 12; i++) res.write(Buffer.alloc(1024 * 1024, 'b'));
      res.end('</body></html>');
    });
    origin.routes.set('/hang', () => undefined); // never answers
    origin.routes.set('/doc.pdf', (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4\n'));
    // '/missing' has no route: 404
    const svc = await service();
    const names = ['/article', '/to-other-loopback', '/to-private', '/to-metadata', '/big', '/big-chunked', '/hang', '/doc.pdf', '/missing'];
    const job = await runJob(
      svc,
      names.map((n) => `${origin.origin}${n}`),
    );
    console.log(job.urls.map((u) => `${u.url} -> ${u.status} ${u.reason}${u.http_status ? ` (${u.http_status})` : ''}: ${u.detail ?? ''}`).join('\n'));
    console.log(`job: ${job.status}; ${job.message}`);
    const got = Object.fromEntries(job.urls.map((u, i) => [names[i], [u.status, u.reason]]));
    expect(got).toEqual({
      '/article': ['indexed', null],
      '/to-other-loopback': ['refused', 'forbidden_address'],
      '/to-private': ['refused', 'forbidden_address'],
      '/to-metadata': ['refused', 'forbidden_address'],
      '/big': ['failed', 'too_large'],
      '/big-chunked': ['failed', 'too_large'],
      '/hang': ['failed', 'timeout'],
      '/doc.pdf': ['failed', 'not_html'],
      '/missing': ['failed', 'http_status'],
    });
    expect(job.urls[names.indexOf('/missing')]!.http_status).toBe(404);
    for (const n of ['/to-other-loopback', '/to-private', '/to-metadata']) {
      const detail = job.urls[names.indexOf(n)]!.detail;
      expect(detail).toBe('forbidden_address: the fetch policy does not allow the address of this host');
      expect(detail).not.toMatch(/127\.0\.0\.[12]|10\.1\.2\.3|169\.254|loopback|private|metadata/);
    }
    expect(job.status).toBe('partial');
    expect(job.indexed_count).toBe(1);
    expect(other.connections).toBe(0);
  });
});
