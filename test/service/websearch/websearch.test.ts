/**
 * GET /v1/chat/websearch over the default provider (the service's web index, filled by
 * index_urls from the 35 Readability pages on a loopback server): ranking, key points, string
 * form, domains/strict, lookback and the time window, offset paging, Python datetime forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';
import { expectedMeta, pageNames, servePages, waitForJob } from '../../helpers/readability-pages.js';
import { queryTerms } from '../../../service/indexing/web-index.js';
import { ownerOf } from '../../../service/auth/principal.js';

let svc: TestService;
let server: PageServer;
let urls: Map<string, string>;
let job: any; // eslint-disable-line @typescript-eslint/no-explicit-any

const search = (q: Record<string, string | string[]>) => {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const x of [v].flat()) sp.append(k, x);
  return api(svc.url, 'GET', `/v1/chat/websearch?${sp}`, svc.keys.org);
};

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  urls = servePages(server);
  svc = await startTestService({ limitsText: 'news=1000:1000:100,chat=1000:1000:100' });
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
    start_time: '2000-01-01T00:00:00Z',
    end_time: '2100-01-01T00:00:00Z',
    urls: pageNames.map((n) => ({ url: urls.get(n)! })),
  });
  job = await waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, svc.keys.org));
}, 600_000);

afterAll(async () => {
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

describe('web search over the service web index', () => {
  it('holds every page index_urls fetched, the non-article home page included', async () => {
    expect(job.status).toBe('completed');
    const yahoo = await search({ queries: 'Yahoo News', strict: 'false' });
    expect(yahoo.status).toBe(200);
    expect(yahoo.body.as_dicts.map((d: any) => d.url)).toContain(urls.get('yahoo-2')); // eslint-disable-line @typescript-eslint/no-explicit-any
  });

  it('ranks the page whose title is the query first for most titles, with key points taken from the page', async () => {
    let first = 0;
    let withKeyPoints = 0;
    const english = pageNames.filter((n) => n !== 'yahoo-2');
    // the pages are the organization's that indexed them
    const owner = ownerOf((await svc.services.keys.resolve(svc.keys.org!))!);
    for (const n of english) {
      const title = expectedMeta(n).title!;
      const r = await search({ queries: title });
      expect(r.status).toBe(200);
      const top = r.body.as_dicts[0];
      if (top?.url === urls.get(n)) first++;
      const mine = r.body.as_dicts.find((d: any) => d.url === urls.get(n)); // eslint-disable-line @typescript-eslint/no-explicit-any
      // raw_text is the first 20,000 characters: key points are looked up in the whole stored text
      const text = svc.services.web!.index.get(urls.get(n)!, owner)!.text.replace(/\s+/g, ' ');
      if (mine && mine.key_points.length > 0 && mine.key_points.every((k: string) => text.includes(k.replace(/…$/, '').replace(/\s+/g, ' ').slice(0, 60))))
        withKeyPoints++;
      else console.log(`${n}: key points not found in the page: ${JSON.stringify(mine?.key_points)}`);
    }
    console.log(`title queries: the page first for ${first}/${english.length}; key points drawn from the page's text for ${withKeyPoints}/${english.length}`);
    expect(first / english.length).toBeGreaterThanOrEqual(0.9);
    expect(withKeyPoints).toBe(english.length);
  });

  it('answers a topical query with the pages about it, each key point holding a query term', async () => {
    const r = await search({ queries: 'Higgs boson particle physics' });
    expect(r.status).toBe(200);
    console.log(r.body.as_string.slice(0, 1200));
    expect(r.body.as_dicts.length).toBeGreaterThan(0);
    const top = r.body.as_dicts[0];
    const q = new Set(queryTerms('Higgs boson particle physics'));
    expect(top.key_points.some((k: string) => queryTerms(k).some((t) => q.has(t)))).toBe(true);
    expect(r.body.as_string).toMatch(/^<doc>\n\[1\]:\nTitle: .+\nKey points:\n- /);
    expect(r.body.as_string).toContain(`URL: ${top.url}`);
    expect(top.source).toBe('127.0.0.1');
  });

  it('keeps results to the domains when strict, and puts them first when not', async () => {
    const other = await search({ queries: 'the', domains: 'example.org', strict: 'true' });
    expect(other.status).toBe(200);
    expect(other.body.as_dicts).toEqual([]);
    const mine = await search({ queries: 'the', domains: '127.0.0.1', strict: 'true' });
    expect(mine.body.as_dicts.length).toBe(10);
    const loose = await search({ queries: 'the', domains: 'example.org' });
    expect(loose.body.as_dicts.length).toBe(10);
  });

  it('pages through results with offset until offset is null', async () => {
    const seen = new Set<string>();
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null && pages < 10) {
      const r = await search({ queries: ['the', 'news'], offset: String(offset) });
      expect(r.status).toBe(200);
      for (const d of r.body.as_dicts) {
        expect(seen.has(d.url)).toBe(false);
        seen.add(d.url);
      }
      offset = r.body.offset;
      pages++;
    }
    console.log(`offset paging: ${seen.size} distinct pages over ${pages} responses`);
    expect(seen.size).toBeGreaterThan(20);
  });

  it('filters by the page date: lookback, start and end datetimes, Python str(datetime) forms included', async () => {
    // wikipedia-2 was published 2016-11-20 (its metadata), the other dated pages elsewhere
    const all = await search({ queries: 'the', strict: 'true', start_datetime: '2016-11-20 00:00:00', end_datetime: '2016-11-21 00:00:00+00:00' });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    for (const d of all.body.as_dicts) {
      expect(Date.parse(d.published)).toBeGreaterThanOrEqual(Date.parse('2016-11-20T00:00:00Z'));
      expect(Date.parse(d.published)).toBeLessThanOrEqual(Date.parse('2016-11-21T00:00:00Z'));
    }
    // strict drops pages whose published time is unknown; not strict judges them by when they were fetched
    const recent = await search({ queries: 'the', lookback: '1', strict: 'true' });
    expect(recent.body.as_dicts.every((d: any) => Date.now() - Date.parse(d.published) <= 3_600_000)).toBe(true); // eslint-disable-line @typescript-eslint/no-explicit-any
    const fetchedRecently = await search({ queries: 'the', lookback: '1' });
    expect(fetchedRecently.body.as_dicts.length).toBeGreaterThan(0);
    expect(fetchedRecently.body.as_dicts.some((d: any) => d.published === '')).toBe(true); // eslint-disable-line @typescript-eslint/no-explicit-any
  });

  it('answers 422 naming the field for an unknown offset cursor and an end before the start', async () => {
    const bad = await search({ queries: 'x', offset: 'not-a-cursor' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'offset']);
    const back = await search({ queries: 'x', start_datetime: '2024-05-02 10:00:00', end_datetime: '2024-05-01 10:00:00' });
    expect(back.status).toBe(422);
    expect(back.body.detail[0].loc).toEqual(['query', 'end_datetime']);
    const none = await api(svc.url, 'GET', '/v1/chat/websearch', svc.keys.org);
    expect(none.status).toBe(422);
    expect(none.body.detail[0].loc).toEqual(['query', 'queries']);
  });

  it('answers 422 naming queries beyond the per-request caps: more than 10 queries, a query over 1,000 characters', async () => {
    const eleven = await search({ queries: Array.from({ length: 11 }, (_, i) => `q${i}`) });
    expect(eleven.status).toBe(422);
    expect(eleven.body.detail[0]).toMatchObject({ loc: ['query', 'queries'], type: 'value_error.list.max_items' });
    expect((await search({ queries: Array.from({ length: 10 }, (_, i) => `q${i}`) })).status).toBe(200);
    const long = await search({ queries: ['x'.repeat(1001)] });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['query', 'queries', 0]);
  });

  it('a window that lookback closes before end_datetime is empty (200, no results), not a 422: the document cannot say "now"', async () => {
    const r = await search({ queries: 'the', lookback: '1', end_datetime: '2020-01-01T00:00:00Z' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ as_string: '', as_dicts: [], offset: null });
    // the same end with the lookback wide enough finds pages
    expect((await search({ queries: 'the', lookback: '1000000', end_datetime: '2100-01-01T00:00:00Z' })).body.as_dicts.length).toBeGreaterThan(0);
  });

  it("is a capability other routes can call: Services.web.search gives what the route gives (for the caller's owner)", async () => {
    const viaRoute = await search({ queries: 'Higgs boson' });
    const owner = ownerOf((await svc.services.keys.resolve(svc.keys.org!))!);
    const direct = await svc.services.web!.search({ queries: ['Higgs boson'] }, owner);
    expect(direct).toEqual(viaRoute.body);
    // the pages are the organization's (index_urls): nobody else's search finds them
    expect((await svc.services.web!.search({ queries: ['Higgs boson'] }, null)).as_dicts).toEqual([]);
  });
});
