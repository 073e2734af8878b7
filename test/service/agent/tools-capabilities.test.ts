/**
 * The DeepNews agent's wiki, web, forum, graph and charts tools bring real results through
 * POST /v1/chat/deepnews when their stores hold data: the seeded corpus (news, charts, graph),
 * the 135 shared forum threads, the four shared Wikipedia pages in the encyclopedia store, and
 * two pages put in the web index by index_urls from a loopback server. The knowledge cutoff
 * still drops what was published after it; a publisher key still gets only the archive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepNewsResponse, DeepNewsStreamSource } from '../../../spec/index.js';
import { api, type TestService } from '../../helpers/service.js';
import { sseEvents } from '../../helpers/chat.js';
import { startCapabilityService, type CapabilityService } from '../../helpers/deepnews.js';

const MOZILLA = 'https://en.wikipedia.org/wiki/Mozilla';
const Q = 'Who founded Mozilla and what is the Mozilla Festival?';
const SOURCES = ['asknews', 'wiki', 'google', 'reddit', 'graph', 'charts'];

let svc: TestService;
let env: CapabilityService;
let webUrls: string[];
let wikiTimes: Map<string, number>;

beforeAll(async () => {
  env = await startCapabilityService();
  ({ svc, webUrls } = env);
  const rows = await svc.services.db.all<{ url: string; t: number | bigint }>('SELECT url, epoch_ms(ts) AS t FROM wiki_articles');
  wikiTimes = new Map(rows.map((r) => [r.url, Number(r.t)]));
}, 900_000); // the first run may build the cached forum store and wait for the seeded corpus

afterAll(async () => env?.stop());

const deepnews = (body: Record<string, unknown>, key = svc.keys.org!) => api(svc.url, 'POST', '/v1/chat/deepnews', key, body);

async function stream(body: Record<string, unknown>, key = svc.keys.org!) {
  const res = await fetch(`${svc.url}/v1/chat/deepnews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, engine: 'v1.5' }),
  });
  expect(res.status).toBe(200);
  const events = sseEvents(await res.text());
  expect(events[events.length - 1]).toBe('[DONE]');
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

describe('the capability tools through POST /v1/chat/deepnews', () => {
  it('wiki, web and forum results come back in sources.web with their real URLs; charts in sources.charts; each tool is counted', async () => {
    const r = await deepnews({ messages: [{ role: 'user', content: Q }], sources: SOURCES, search_depth: 1, only_cited_sources: false });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    const body = DeepNewsResponse.parse(r.body);
    const web = body.sources.web!;
    console.log(`deepnews capabilities: ${web.length} web sources:\n${web.map((w) => `  ${w.source} | ${w.title} | ${w.url} | ${w.published}`).join('\n')}`);
    // the encyclopedia: the Mozilla article's passages, under its Wikipedia URL
    const wiki = web.filter((w) => w.source === 'wikipedia');
    expect(wiki.length).toBeGreaterThan(0);
    expect(wiki.map((w) => w.url)).toContain(MOZILLA);
    expect(wiki.find((w) => w.url === MOZILLA)!.raw_text).toMatch(/Mozilla/);
    // the forum: threads of the shared dataset with their URLs
    const forum = web.filter((w) => w.source.startsWith('reddit r/'));
    expect(forum.length).toBeGreaterThan(0);
    for (const t of forum) expect(t.url).toMatch(/^https?:\/\/\S+\/data\/[^/]+\/post_\d+\.txt$/);
    // the web index: the page index_urls fetched, under its loopback URL
    const fromWeb = web.filter((w) => webUrls.includes(w.url));
    expect(fromWeb.map((w) => w.url)).toContain(webUrls[0]);
    expect(fromWeb.every((w) => w.source === '127.0.0.1')).toBe(true);
    // charts: a plotly figure of the news index
    expect(body.sources.charts!.length).toBeGreaterThan(0);
    expect(body.sources.charts![0]).toMatchObject({ success: true, chart_json: { data: expect.any(Array), layout: expect.any(Object) } });
    expect(body.usage.tool_usage).toMatchObject({
      search_news: expect.any(Number),
      search_wiki: 1,
      search_web: 1,
      search_forum: 1,
      build_graph: 1,
      make_chart: 1,
    });
    expect(body.choices[0]!.message.content).not.toMatch(/Not searched/);
  });

  it('the stream carries a graph source (a stored graph whose page opens), web and chart sources, and the same tool counts', async () => {
    const events = await stream({ messages: [{ role: 'user', content: Q }], sources: SOURCES, search_depth: 1, only_cited_sources: false });
    const sources = events.filter((e) => e.object === 'chat.completion.source').map((e) => DeepNewsStreamSource.parse(e).source);
    const kinds = new Set(sources.map((s) => s.kind));
    expect(kinds).toEqual(new Set(['news', 'web', 'chart', 'graph']));
    const graph = sources.find((s) => s.kind === 'graph')!.data as string;
    expect(graph).toMatch(/^\/v1\/news\/graph\/[^/]+\/view$/);
    const page = await fetch(`${svc.url}${graph}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const chunks = events.filter((e) => e.object === 'chat.completion.chunk');
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    for (const tag of ['search_wiki', 'search_web', 'search_forum', 'build_graph', 'make_chart']) expect(text).toContain(`<${tag}>`);
    expect(text).toMatch(/<build_graph>[^<]*graph \/v1\/news\/graph\//);
    expect(chunks[chunks.length - 1].usage.tool_usage).toMatchObject({ search_wiki: 1, search_web: 1, search_forum: 1, build_graph: 1, make_chart: 1 });
  });

  it("cutoff_datetime before the Wikipedia pages' timestamps removes them; nothing after the cutoff comes back", async () => {
    const first = Math.min(...wikiTimes.values());
    expect(Number.isFinite(first)).toBe(true);
    const cutoff = new Date(first - 86_400_000).toISOString();
    const r = await deepnews({
      messages: [{ role: 'user', content: Q }],
      sources: SOURCES,
      search_depth: 1,
      only_cited_sources: false,
      cutoff_datetime: cutoff,
    });
    expect(r.status).toBe(200);
    const body = DeepNewsResponse.parse(r.body);
    const web = body.sources.web!;
    expect(web.filter((w) => w.source === 'wikipedia')).toEqual([]);
    for (const w of web) if (w.published) expect(Date.parse(w.published)).toBeLessThanOrEqual(Date.parse(cutoff));
    for (const a of body.sources.news!) expect(Date.parse(a.pub_date)).toBeLessThanOrEqual(Date.parse(cutoff));
    expect(body.usage.tool_usage).toMatchObject({ search_wiki: 1, search_web: 1, search_forum: 1 });
    expect(body.choices[0]!.message.content).toContain(`Knowledge cutoff: ${cutoff}; no source published after it was used.`);
    // the same question without the cutoff finds the Wikipedia pages: the cutoff removed them
    const open = await deepnews({ messages: [{ role: 'user', content: Q }], sources: ['wiki'], search_depth: 1, only_cited_sources: false });
    expect(open.body.sources.web.some((w: { source: string }) => w.source === 'wikipedia')).toBe(true);
  });

  it("a cutoff between the Wikipedia pages' timestamps drops the newer articles and keeps the older ones in their rank", async () => {
    // the time-loop films list (2024) ranks first for this question; New Zealand (2019) and Mozilla (2016) are older
    const q = 'Which films are about time loops in New Zealand?';
    const cutoff = '2020-01-01T00:00:00.000Z';
    const ranked = await svc.services.wiki!.search(q, { limit: 5 });
    expect(Date.parse(ranked[0]!.timestamp)).toBeGreaterThan(Date.parse(cutoff));
    const want = [
      ...new Set(
        ranked
          .filter((d) => Date.parse(d.timestamp) <= Date.parse(cutoff))
          .slice(0, 5)
          .map((d) => d.url),
      ),
    ];
    expect(want).toEqual(['https://en.wikipedia.org/wiki/New_Zealand', MOZILLA]);
    const r = await deepnews({
      messages: [{ role: 'user', content: q }],
      sources: ['asknews', 'wiki'],
      search_depth: 1,
      only_cited_sources: false,
      cutoff_datetime: cutoff,
    });
    expect(r.status).toBe(200);
    expect(r.body.sources.web.map((w: { url: string }) => w.url)).toEqual(want);
  });

  it("a cutoff that drops the forum's best threads still brings the best threads published before it", async () => {
    const forum = svc.services.forum!;
    const now = svc.services.news!.clock();
    const params = { keywords: [Q], method: 'nl' as const, time_filter: 'all' as const, sort: 'relevance' as const };
    const top = await forum.search({ ...params, n_threads: 5 }, { now });
    // a cutoff before every one of the five best threads, after the forum's first thread
    const cut = Math.min(...top.map((t) => Date.parse(t.date))) - 1000;
    expect(cut).toBeGreaterThan(Math.min(...forum.all().map((t) => Date.parse(t.date))));
    const cutoff = new Date(cut).toISOString();
    const want = (await forum.search({ ...params, n_threads: forum.size }, { now }))
      .filter((t) => Date.parse(t.date) <= cut)
      .slice(0, 5)
      .map((t) => t.url);
    expect(want.length).toBeGreaterThan(0);
    const r = await deepnews({
      messages: [{ role: 'user', content: Q }],
      sources: ['asknews', 'reddit'],
      search_depth: 1,
      only_cited_sources: false,
      cutoff_datetime: cutoff,
    });
    expect(r.status).toBe(200);
    expect(r.body.sources.web.map((w: { url: string }) => w.url)).toEqual(want);
  });

  it("the graph tool keeps the request's own end_timestamp when it is earlier than the cutoff", async () => {
    const graph = svc.services.graph!;
    const build = graph.build.bind(graph);
    const built: Awaited<ReturnType<typeof build>>[] = [];
    graph.build = async (...a) => {
      const g = await build(...a);
      built.push(g);
      return g;
    };
    try {
      const end = Date.parse('2022-07-01T00:00:00Z');
      const r = await deepnews({
        messages: [{ role: 'user', content: 'Why did Boris Johnson resign?' }],
        sources: ['asknews', 'graph'],
        search_depth: 1,
        filter_params: { end_timestamp: end / 1000 },
        cutoff_datetime: '2022-07-20T00:00:00Z',
      });
      expect(r.status).toBe(200);
      expect(built.length).toBe(1);
      expect(built[0]!.articles.length).toBeGreaterThan(0);
      for (const a of built[0]!.articles) expect(a.pubDate.getTime()).toBeLessThanOrEqual(end);
    } finally {
      graph.build = build;
    }
  });

  it('a publisher key gets only the archive: the capability sources are skipped and said, their tools never run', async () => {
    const r = await deepnews({ messages: [{ role: 'user', content: Q }], sources: SOURCES, search_depth: 1, only_cited_sources: false }, svc.keys.publisher);
    expect(r.status).toBe(200);
    const body = DeepNewsResponse.parse(r.body);
    expect(body.sources.web).toEqual([]);
    expect(body.sources.charts).toEqual([]);
    expect(Object.keys(body.usage.tool_usage!).sort()).toEqual(['search_news', 'search_stories']);
    expect(body.choices[0]!.message.content).toContain('Not searched: wiki, google, reddit, graph, charts.');
    const events = await stream({ messages: [{ role: 'user', content: Q }], sources: SOURCES, search_depth: 1 }, svc.keys.publisher);
    const text = events
      .filter((e) => e.object === 'chat.completion.chunk')
      .map((c) => c.choices[0].delta.content ?? '')
      .join('');
    for (const s of ['wiki', 'google', 'reddit', 'graph', 'charts'])
      expect(text).toContain(`Source ${s}: a publisher key researches the news archive only, skipped.`);
    expect(events.some((e) => e.object === 'chat.completion.source' && e.source.kind !== 'news')).toBe(false);
  });
});
