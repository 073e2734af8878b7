/**
 * Pages indexed through index_urls are their owner's: every key of the organization that indexed
 * a page finds it (news search, lookup, web search); another tenant does not, and indexing the same
 * URL gives it an article of its own instead of a "duplicate" of one it cannot see. With
 * NEWSFLOW_INDEX_URLS_SHARED=1 they join the shared corpus and every key finds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, api, startTestService, type TestService } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';
import { servePages, waitForJob } from '../../helpers/readability-pages.js';

const WINDOW = { start_time: '2000-01-01T00:00:00Z', end_time: new Date(Date.now() + 86_400_000).toISOString() };
const TITLE = "Obama admits US gun laws are his 'biggest frustration'";

let server: PageServer;
let pages: Map<string, string>;
beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  pages = servePages(server);
});
afterAll(async () => {
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

/** Index one page with `key`; the job's one URL as the job view gives it. */
async function indexPage(svc: TestService, key: string, url: string): Promise<{ status: string; reason: string | null; article_id: string | null }> {
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', key, { ...WINDOW, urls: [{ url }] });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const job = await waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, key));
  return job.urls[0]!;
}

/** What a key finds of the article: lookup, lookup by list, news search, web search. */
async function seen(svc: TestService, key: string, id: string) {
  const one = await api(svc.url, 'GET', `/v1/news/${id}`, key);
  const list = await api(svc.url, 'GET', `/v1/news?article_ids=${id}`, key);
  const search = await api(
    svc.url,
    'GET',
    `/v1/news/search?${new URLSearchParams({ query: 'Obama gun laws frustration', method: 'kw', return_type: 'dicts' })}`,
    key,
  );
  const web = await api(svc.url, 'GET', `/v1/chat/websearch?${new URLSearchParams({ queries: 'Obama gun laws frustration' })}`, key);
  return {
    lookup: one.status,
    list: (list.body as { article_id: string }[]).map((a) => a.article_id),
    search: (search.body.as_dicts as { article_id: string }[]).map((a) => a.article_id).includes(id),
    web: (web.body.as_dicts as { title: string }[]).some((w) => w.title === TITLE),
  };
}

describe('indexed pages are their owner’s (the default)', () => {
  let svc: TestService;
  beforeAll(async () => {
    // a second key of the indexing organization
    svc = await startTestService({
      limitsText: 'news=1000:1000:100,chat=1000:1000:100',
      keys: { ...DEFAULT_KEYS, colleague: { org: 'acme', scopes: ['news', 'chat'], plan: 'enterprise' } },
    });
  }, 600_000);
  afterAll(async () => svc?.stop());

  it("every key of the indexing organization finds the page; another tenant finds nothing, and its own indexing of the URL is no 'duplicate'", async () => {
    const mine = await indexPage(svc, svc.keys.org!, pages.get('bbc-1')!);
    expect(mine).toMatchObject({ status: 'indexed', reason: null });
    const id = mine.article_id!;
    // the organization's keys: the one that indexed it and another of the same organization
    for (const key of [svc.keys.org!, svc.keys.colleague!]) expect(await seen(svc, key, id)).toEqual({ lookup: 200, list: [id], search: true, web: true });
    // another tenant
    expect(await seen(svc, svc.keys.personal!, id)).toEqual({ lookup: 404, list: [], search: false, web: false });
    // the other tenant indexes the same URL: an article of its own, not a skip naming the first
    const theirs = await indexPage(svc, svc.keys.personal!, pages.get('bbc-1')!);
    expect(theirs).toMatchObject({ status: 'indexed', reason: null });
    expect(theirs.article_id).not.toBe(id);
    expect(await seen(svc, svc.keys.personal!, theirs.article_id!)).toEqual({ lookup: 200, list: [theirs.article_id], search: true, web: true });
    expect((await seen(svc, svc.keys.org!, theirs.article_id!)).lookup).toBe(404);
    // the organization indexing it again is a duplicate of its own
    expect(await indexPage(svc, svc.keys.org!, pages.get('bbc-1')!)).toMatchObject({ status: 'skipped', reason: 'duplicate', article_id: id });
  });
});

describe('NEWSFLOW_INDEX_URLS_SHARED=1', () => {
  let svc: TestService;
  beforeAll(async () => {
    process.env.NEWSFLOW_INDEX_URLS_SHARED = '1';
    svc = await startTestService({ limitsText: 'news=1000:1000:100,chat=1000:1000:100' });
    delete process.env.NEWSFLOW_INDEX_URLS_SHARED;
  }, 600_000);
  afterAll(async () => svc?.stop());

  it('indexed pages join the shared corpus: another tenant finds them, and indexing the URL again is a duplicate', async () => {
    const mine = await indexPage(svc, svc.keys.org!, pages.get('bbc-1')!);
    expect(mine.status).toBe('indexed');
    expect(await seen(svc, svc.keys.personal!, mine.article_id!)).toEqual({ lookup: 200, list: [mine.article_id], search: true, web: true });
    expect(await indexPage(svc, svc.keys.personal!, pages.get('bbc-1')!)).toMatchObject({
      status: 'skipped',
      reason: 'duplicate',
      article_id: mine.article_id,
    });
  });

  it('plants no article from feed metadata: an item whose page is gone fails, under any domain', async () => {
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.personal, {
      ...WINDOW,
      urls: [
        { url: `${server.origin}/gone/planted`, metadata: { feed_item: { title: 'Planted headline under another site', summary: 'Text the caller chose.' } } },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const job = await waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, svc.keys.personal));
    console.log(`shared mode, a feed item whose page is gone: ${JSON.stringify(job.urls[0])}`);
    expect(job.urls[0]).toMatchObject({ status: 'failed', reason: 'http_status', article_id: null });
    const found = await api(svc.url, 'GET', `/v1/news/search?${new URLSearchParams({ query: 'Planted headline', method: 'kw' })}`, svc.keys.org);
    expect((found.body.as_dicts as { title: string }[]).some((d) => d.title.includes('Planted'))).toBe(false);
  });
});
