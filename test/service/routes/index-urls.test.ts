/**
 * POST /v1/news/index_urls over the 35 Readability test pages served from a loopback server
 * (NEWSFLOW_FETCH_ALLOW=127.0.0.1): every page fetched, read, enriched and indexed like a corpus
 * article (the yahoo-2 front page by its featured story); extraction scored against Readability's expected output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoUtc } from '../../../service/fetch/extract.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';
import {
  expectedMeta,
  expectedText,
  namesFromByline,
  norm,
  pageNames,
  servePages,
  tokenF1,
  waitForJob,
  type IndexUrlsJobView,
} from '../../helpers/readability-pages.js';

let svc: TestService;
let server: PageServer;
let urls: Map<string, string>;
/** an article as GET /v1/news/{id} gives it (the fields read here) */
interface Article {
  article_id: string;
  title: string;
  full_text: string | null;
  authors: { name: string }[] | null;
  pub_date: string | null;
  language: string;
  summary: string;
  key_points: string[];
  entities: Record<string, string[]>;
  crawl_date: string | null;
}
let job: IndexUrlsJobView;
const articles = new Map<string, Article>();

const jobView =
  (id: string, key = svc.keys.org!) =>
  () =>
    api(svc.url, 'GET', `/v1/news/index_urls/${id}`, key);

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  urls = servePages(server);
  svc = await startTestService({ limitsText: 'news=1000:1000:100' });
  const body = {
    // Python's str(datetime) forms, as the official SDK sends them; every key sent, nulls included
    start_time: '2000-01-01 00:00:00',
    end_time: `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19).replace('T', ' ')}+00:00`,
    urls: pageNames.map((n, i) => ({
      url: urls.get(n)!,
      data: null,
      skip_dedupe: null,
      metadata: i === 0 ? { campaign: 'spring', tags: ['a', 'b'] } : null,
      enrichments: i === 0 ? { desk: 'science' } : null,
    })),
  };
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body).toMatchObject({ status: 'queued', job_id: expect.any(String), message: expect.any(String), indexed_count: 0 });
  job = await waitForJob(jobView(r.body.job_id));
  for (const item of job.urls.filter((u) => u.status === 'indexed')) {
    const a = await api(svc.url, 'GET', `/v1/news/${item.article_id}?full_text=true`, svc.keys.org);
    expect(a.status).toBe(200);
    articles.set(pageNames[job.urls.indexOf(item)]!, a.body);
  }
}, 600_000);

afterAll(async () => {
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

describe('index_urls over the 35 Readability pages', () => {
  it('completes the job: all 35 pages indexed, the yahoo-2 front page by its featured story', () => {
    console.log(`job ${job.job_id}: ${job.status}; ${job.message}`);
    expect(job.status).toBe('completed');
    expect(job.indexed_count).toBe(35);
    expect(job.urls.filter((u) => u.status !== 'indexed').map((u) => u.url)).toEqual([]);
    expect(articles.get('yahoo-2')!.full_text).toContain('Progress MS-04');
  });

  it('extracts each article with a text token F1 of at least 0.90 on average and the expected title on 95%', () => {
    const rows: string[] = [];
    const f1s: number[] = [];
    let titles = 0;
    let bylines = [0, 0];
    let dates = [0, 0];
    for (const [name, a] of articles) {
      const exp = expectedMeta(name);
      const f1 = tokenF1(a.full_text ?? '', expectedText(name));
      f1s.push(f1);
      const titleOk = norm(a.title) === norm(exp.title);
      if (titleOk) titles++;
      let byline = '-';
      if (exp.byline) {
        const ok = namesFromByline(
          (a.authors ?? []).map((x) => x.name),
          exp.byline,
        );
        bylines = [bylines[0]! + (ok ? 1 : 0), bylines[1]! + 1];
        byline = ok ? 'ok' : 'NO';
      }
      let date = '-';
      if (exp.publishedTime) {
        const ok = a.pub_date === isoUtc(exp.publishedTime);
        dates = [dates[0]! + (ok ? 1 : 0), dates[1]! + 1];
        date = ok ? 'ok' : `NO (${a.pub_date} vs ${exp.publishedTime})`;
      }
      rows.push(`${name.padEnd(18)} F1 ${f1.toFixed(3)} title ${titleOk ? 'ok' : 'NO'} byline ${byline} pub_date ${date} lang ${a.language}`);
    }
    const mean = f1s.reduce((x, y) => x + y, 0) / f1s.length;
    console.log(rows.join('\n'));
    console.log(
      `indexed ${articles.size}, mean F1 ${mean.toFixed(4)}, min F1 ${Math.min(...f1s).toFixed(3)}, titles ${titles}/${articles.size}, bylines ${bylines[0]}/${bylines[1]}, pub_dates ${dates[0]}/${dates[1]}`,
    );
    expect(articles.size).toBe(35);
    expect(mean).toBeGreaterThanOrEqual(0.9);
    expect(titles / articles.size).toBeGreaterThanOrEqual(0.95);
    expect(bylines[0]).toBe(bylines[1]);
    expect(dates[0]).toBe(dates[1]);
  });

  it('enriches indexed pages like corpus articles (summary, key points, entities, embeddings for nl search)', async () => {
    const a = articles.get('bbc-1')!;
    expect(a.summary.length).toBeGreaterThan(40);
    expect(a.key_points.length).toBeGreaterThan(0);
    expect(Object.values(a.entities).flat().length).toBeGreaterThan(0);
    expect(a.crawl_date).not.toBeNull();
    const rows = await svc.services.db.all<{ n: bigint }>(
      `SELECT count(*) AS n FROM embeddings WHERE article_id IN (SELECT article_id FROM articles WHERE source = 'web')`,
    );
    expect(Number(rows[0]!.n)).toBe(35);
  });

  it('finds every indexed page by a kw search for its title once the job has completed', async () => {
    // an item is marked indexed once its article is in the search index (NewsService.addArticles)
    const missing: string[] = [];
    for (const [name, a] of articles) {
      const r = await api(svc.url, 'GET', `/v1/news/search?query=${encodeURIComponent(a.title)}&method=kw&n_articles=10`, svc.keys.org);
      expect(r.status).toBe(200);
      if (!(r.body.as_dicts as { article_id: string }[]).some((d) => d.article_id === a.article_id)) missing.push(name);
    }
    console.log(`kw search by title: ${articles.size - missing.length}/${articles.size} found${missing.length ? `; missing ${missing.join(', ')}` : ''}`);
    expect(missing).toEqual([]);
  });

  it('stores metadata and enrichments with the page and its article', async () => {
    const first = job.urls[0]!;
    const rows = await svc.services.db.all<{ m: string; e: string; id: string }>(
      `SELECT metadata::VARCHAR AS m, enrichments::VARCHAR AS e, article_id::VARCHAR AS id FROM web_pages WHERE page_url = $1`,
      [first.canonical_url!],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.m)).toEqual({ campaign: 'spring', tags: ['a', 'b'] });
    expect(JSON.parse(rows[0]!.e)).toEqual({ desk: 'science' });
    expect(rows[0]!.id).toBe(first.article_id);
  });

  it('skips URLs indexed before as duplicates without fetching them, unless skip_dedupe', async () => {
    // requests, not connections: the fetcher may reuse a kept-alive connection of an earlier job
    const before = server.requests;
    const name = 'guardian-1';
    const body = (skip: boolean) => ({
      start_time: '2000-01-01T00:00:00Z',
      end_time: '2100-01-01T00:00:00Z',
      urls: [{ url: urls.get(name)!, skip_dedupe: skip }],
    });
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, body(false));
    const again = await waitForJob(jobView(r.body.job_id));
    expect(again.status).toBe('completed');
    expect(again.urls[0]).toMatchObject({ status: 'skipped', reason: 'duplicate', article_id: articles.get(name)!.article_id });
    expect(server.requests).toBe(before);
    const forced = await waitForJob(jobView((await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, body(true))).body.job_id));
    expect(forced.urls[0]!.status).toBe('indexed');
    expect(forced.urls[0]!.article_id).not.toBe(articles.get(name)!.article_id);
    expect(server.requests).toBeGreaterThan(before);
  });

  it('skips the same URL asked twice in one job as a duplicate of the first', async () => {
    const u = `${urls.get('ars-1')}?utm_source=x`;
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
      start_time: '2000-01-01T00:00:00Z',
      end_time: '2100-01-01T00:00:00Z',
      urls: [{ url: u, skip_dedupe: true }, { url: urls.get('wapo-1')! }, { url: `${urls.get('wapo-1')}#top` }],
    });
    const v = await waitForJob(jobView(r.body.job_id));
    expect(v.urls[2]).toMatchObject({ status: 'skipped', reason: 'duplicate' });
  });

  it('bounds pub_date to [start_time, end_time] and keeps the published time inside it', async () => {
    // a page with a published time before 2020
    const name = pageNames.find(
      (n) => n !== 'guardian-1' && articles.has(n) && Date.parse(isoUtc(expectedMeta(n).publishedTime) ?? '2100') < Date.parse('2020-01-01'),
    )!;
    const exp = isoUtc(expectedMeta(name).publishedTime)!;
    const inside = articles.get(name)!;
    expect(inside.pub_date).toBe(exp);
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
      start_time: '2020-01-01T00:00:00Z',
      end_time: '2020-01-02T00:00:00Z',
      urls: [{ url: urls.get(name)!, skip_dedupe: true }],
    });
    const v = await waitForJob(jobView(r.body.job_id));
    const a = await api(svc.url, 'GET', `/v1/news/${v.urls[0]!.article_id}`, svc.keys.org);
    expect(Date.parse(exp)).toBeLessThan(Date.parse('2020-01-01T00:00:00Z'));
    expect(a.body.pub_date).toBe('2020-01-01T00:00:00.000Z');
  });

  it('shows a job only to the organization that created it (404 to others and for unknown ids)', async () => {
    expect((await jobView(job.job_id, svc.keys.personal)()).status).toBe(404);
    expect((await jobView('00000000-0000-4000-8000-000000000000')()).status).toBe(404);
    expect((await jobView(job.job_id, svc.keys.legacy)()).status).toBe(200); // same organization, another key
  });
});
