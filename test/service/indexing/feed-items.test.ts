/**
 * index_urls of feed items (service/indexing/runner.ts): a URL sent with `metadata.feed_item`
 * (spec/news.ts FeedItemMetadata) whose page is gone or is not an article is indexed from what the
 * feed says, flagged `feed_metadata` and without full text; an article served under two URLs is
 * indexed once (content hash). Pages are real (the shared Readability set), on a loopback server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { html, startPageServer, type PageServer } from '../../helpers/page-server.js';
import { pagesDir, waitForJob } from '../../helpers/readability-pages.js';

let svc: TestService;
let server: PageServer;

const feedItem = (title: string, extra: Record<string, unknown> = {}) => ({
  feed_item: {
    title,
    summary: `${title}: what the feed says of it, in a sentence or two.`,
    authors: ['Jane Reporter'],
    published: '2018-01-31T07:26:05.000Z',
    language: 'en-GB',
    source_name: 'Test Feed',
    ...extra,
  },
});
const index = async (urls: { url: string; metadata?: Record<string, unknown> }[]) => {
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, { start_time: '2000-01-01T00:00:00Z', end_time: '2100-01-01T00:00:00Z', urls });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, svc.keys.org));
};
const article = async (id: string | null) => (await api(svc.url, 'GET', `/v1/news/${id}?full_text=true`, svc.keys.org)).body;

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  const bbc = fs.readFileSync(path.join(pagesDir, 'bbc-1', 'source.html'));
  server.routes.set('/story/a', html(bbc));
  server.routes.set('/story/b', html(bbc));
  server.routes.set('/story/c', html(bbc));
  server.routes.set('/story/d', html(bbc));
  server.routes.set('/front', html('<!doctype html><html><head><title>Front page</title></head><body><nav><a href="/x">x</a></nav><p>Menu</p></body></html>'));
  svc = await startTestService({ limitsText: 'news=1000:1000:100' });
}, 600_000);

afterAll(async () => {
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

describe('index_urls of feed items', () => {
  it('indexes an item whose page is gone (404) from its feed metadata, flagged feed_metadata, with no full text', async () => {
    const job = await index([{ url: `${server.origin}/gone/story-1`, metadata: feedItem('Senate passes the harbour bill after a night of debate') }]);
    expect(job.urls[0]).toMatchObject({
      status: 'indexed',
      reason: 'feed_metadata',
      http_status: 404,
      title: 'Senate passes the harbour bill after a night of debate',
    });
    expect(job.urls[0]!.detail).toMatch(/could not be fetched \(http_status: HTTP 404\)/);
    const a = await article(job.urls[0]!.article_id);
    expect(a).toMatchObject({
      article_url: `${server.origin}/gone/story-1`,
      title: 'Senate passes the harbour bill after a night of debate',
      full_text: null,
      pub_date: '2018-01-31T07:26:05.000Z',
      language: 'en',
      authors: [{ name: 'Jane Reporter', email: null, url: null }],
    });
    expect(a.summary).toContain('what the feed says of it');
    // searchable like any article
    const found = await api(svc.url, 'GET', `/v1/news/search?query=${encodeURIComponent('harbour bill senate')}&method=kw&n_articles=5`, svc.keys.org);
    expect((found.body.as_dicts as { article_id: string }[]).map((d) => d.article_id)).toContain(a.article_id);
  });

  it('indexes an item whose page is not an article from its feed metadata', async () => {
    const job = await index([{ url: `${server.origin}/front`, metadata: feedItem('Mayor opens the new ferry terminal') }]);
    expect(job.urls[0]).toMatchObject({ status: 'indexed', reason: 'feed_metadata', http_status: 200 });
    expect(job.urls[0]!.detail).toMatch(/not an article/);
    expect((await article(job.urls[0]!.article_id)).full_text).toBeNull();
  });

  it('still fails a gone page sent without feed metadata', async () => {
    const job = await index([{ url: `${server.origin}/gone/story-2` }]);
    expect(job.urls[0]).toMatchObject({ status: 'failed', reason: 'http_status', article_id: null });
  });

  it('reads the page, not the metadata, when the page is an article', async () => {
    const job = await index([{ url: `${server.origin}/story/a`, metadata: feedItem('A title the feed gave it') }]);
    expect(job.urls[0]).toMatchObject({ status: 'indexed', reason: null });
    const a = await article(job.urls[0]!.article_id);
    expect(a.title).not.toBe('A title the feed gave it');
    expect(a.full_text.length).toBeGreaterThan(1000);
  });

  it('skips an article served under another URL as a duplicate by its content hash, in a later job and within one job', async () => {
    const first = (await index([{ url: `${server.origin}/story/a` }])).urls[0]!;
    const later = await index([{ url: `${server.origin}/story/b` }]);
    expect(later.urls[0]).toMatchObject({ status: 'skipped', reason: 'duplicate', article_id: first.article_id });
    expect(later.urls[0]!.detail).toMatch(/its text is the text of article/);
    const both = await index([{ url: `${server.origin}/story/c` }, { url: `${server.origin}/story/d` }]);
    expect(both.urls.map((u: { status: string }) => u.status)).toEqual(['skipped', 'skipped']);
    const n = await svc.services.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM articles WHERE article_url LIKE '${server.origin}/story/%'`);
    expect(Number(n[0]!.n)).toBe(1);
  });

  it('never indexes feed metadata for a URL the fetch policy refuses or a host that does not resolve; details name the category only', async () => {
    const job = await index([
      { url: 'http://169.254.169.254/latest/meta-data/', metadata: feedItem('Metadata service planted') },
      { url: 'http://reuters.com.invalid/world/planted', metadata: feedItem('Reuters planted headline') },
      { url: 'http://10.1.2.3:18082/item', metadata: feedItem('Internal planted') },
    ]);
    for (const u of job.urls) console.log(`${u.url}: ${u.status} ${u.reason}: ${u.detail}`);
    expect(job.urls.map((u: { status: string; reason: string | null; article_id: string | null }) => [u.status, u.reason, u.article_id])).toEqual([
      ['refused', 'forbidden_address', null],
      ['failed', 'dns', null],
      ['refused', 'forbidden_address', null],
    ]);
    expect(job.urls[0]!.detail).toBe('forbidden_address: the fetch policy does not allow the address of this host');
    expect(job.urls[1]!.detail).toBe('not_found: the host name does not resolve');
    // no name, no address of the server's network in what the caller reads
    for (const u of job.urls) expect(u.detail).not.toMatch(/169\.254|10\.1\.2\.3|reuters|127\.0\.0\.1|loopback|ENOTFOUND/);
    const found = await api(svc.url, 'GET', `/v1/news/search?${new URLSearchParams({ query: 'planted headline', method: 'kw' })}`, svc.keys.org);
    expect((found.body.as_dicts as { title: string }[]).filter((d) => /planted/i.test(d.title))).toEqual([]);
  });
});
