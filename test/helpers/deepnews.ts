/**
 * DeepNews in tests: a service whose every capability holds data (the seeded news corpus, the
 * shared forum threads, the four shared Wikipedia pages in the encyclopedia store, two pages put
 * in the web index by index_urls from a loopback server), and reading a report's "Cited Articles".
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { api, startTestService, type TestService } from './service.js';
import { withForumThreads } from './forum.js';
import { startPageServer } from './page-server.js';
import { pagesDir, servePages, waitForJob } from './readability-pages.js';
import { seededCorpusStore } from './corpus-store.js';

export interface CapabilityService {
  svc: TestService;
  /** the two pages in the web index (the shared wikipedia and wikipedia-2 pages, served on loopback) */
  webUrls: string[];
  stop(): Promise<void>;
}

/** A service with every DeepNews capability filled (call in beforeAll; the first run may build the cached forum store). */
export async function startCapabilityService(): Promise<CapabilityService> {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  const merged = await withForumThreads(await seededCorpusStore());
  const svc = await startTestService({ corpusStore: merged, limitsText: 'deepnews=100000:100000:100,news=1000:1000:100' });
  expect(await svc.services.wiki!.load(pagesDir)).toMatchObject({ pages: 4, problems: [] });
  const server = await startPageServer();
  const urls = servePages(server);
  const webUrls = [urls.get('wikipedia')!, urls.get('wikipedia-2')!];
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
    start_time: '2000-01-01T00:00:00Z',
    end_time: '2100-01-01T00:00:00Z',
    urls: webUrls.map((url) => ({ url })),
  });
  expect(r.status).toBe(200);
  const job = await waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, svc.keys.org));
  expect(job.status).toBe('completed');
  return {
    svc,
    webUrls,
    stop: async () => {
      await svc.stop();
      await server.close();
      delete process.env.NEWSFLOW_FETCH_ALLOW;
      fs.rmSync(path.dirname(merged), { recursive: true, force: true });
    },
  };
}

/** The "Cited Articles" lines of a report: number, title and URL. */
export function citedArticles(content: string): { n: number; title: string; url: string }[] {
  const tail = content.split('\n\nCited Articles:\n')[1] ?? '';
  return tail
    .split('\n\n— ')[0]!
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^\[(\d+)\] (.*) \(.*\) (\S+)$/.exec(l);
      if (!m) throw new Error(`not a Cited Articles line: ${l}`);
      return { n: Number(m[1]), title: m[2]!, url: m[3]! };
    });
}
