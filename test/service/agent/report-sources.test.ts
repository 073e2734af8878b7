/**
 * Every source the research gathers reaches the report's writer, numbered after the articles and
 * cited like them, and a cited one is listed in `sources`: on a question the encyclopedia answers
 * best ("What is SpiderMonkey?": the shared Mozilla page says; the news corpus does not), the
 * extractive writer quotes the Wikipedia passage and a model writer cites it. The stores are
 * real: the seeded news corpus, the shared forum threads, the four shared Wikipedia pages, two
 * pages put in the web index by index_urls from a loopback server; the model is a local server
 * speaking OpenAI tool calling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepNewsResponse, DeepNewsStreamSource } from '../../../spec/index.js';
import { parsePublicUrl } from '../../../service/config.js';
import { api, type TestService } from '../../helpers/service.js';
import { citedSentences, norm, sseEvents } from '../../helpers/chat.js';
import { startToolLlm, type ToolLlm } from '../../helpers/tool-llm.js';
import { citedArticles, startCapabilityService, type CapabilityService } from '../../helpers/deepnews.js';

const MOZILLA = 'https://en.wikipedia.org/wiki/Mozilla';
const Q = 'What is SpiderMonkey?';

let svc: TestService;
let env: CapabilityService;
let llm: ToolLlm;

beforeAll(async () => {
  env = await startCapabilityService();
  svc = env.svc;
  llm = await startToolLlm('openai');
  svc.services.config.llmTimeoutMs = 5000;
}, 900_000); // the first run may build the cached forum store and wait for the seeded corpus

afterAll(async () => {
  await llm?.close();
  await env?.stop();
});

const deepnews = (body: Record<string, unknown>) =>
  api(svc.url, 'POST', '/v1/chat/deepnews', svc.keys.org!, { messages: [{ role: 'user', content: Q }], ...body });

const bodyOf = (content: string) => content.split('\n\nResearch: ')[0]!;

/** The model plans a graph and a chart in its first turn, then writes one sentence citing each. */
function graphAndChart(): void {
  llm.plan = (_b, turn) =>
    turn === 0
      ? {
          text: '',
          calls: [
            { id: 'g', name: 'build_graph', input: { query: 'Ukraine Russia' } },
            { id: 'h', name: 'make_chart', input: { query: 'Ukraine vs Russia' } },
          ],
        }
      : { text: '', calls: [] };
  llm.write = (b) => {
    const ctx = b.messages[0].content as string;
    const graph = /\[(\d+)\] Knowledge graph: Ukraine Russia\n/.exec(ctx)![1];
    const chart = /\[(\d+)\] Articles per \w+: [^\n]+\nKind: chart/.exec(ctx)![1];
    return [`The graph joins Ukraine and Russia [${graph}]; coverage is charted [${chart}].`];
  };
}

describe('the extractive writer (no model)', () => {
  it('quotes the Wikipedia passage that answers a definitional question, cites it, and lists it (only cited) in sources.web', async () => {
    const r = await deepnews({ sources: ['asknews', 'wiki', 'reddit'], search_depth: 1, inline_citations: 'numbered', journalist_mode: false });
    expect(r.status).toBe(200);
    const body = DeepNewsResponse.parse(r.body);
    expect(body.model).toBe('newsflow-extractive');
    const content = body.choices[0]!.message.content;
    console.log(`report from news, wiki and forum:\n${content}`);
    const cited = citedArticles(content);
    const wiki = cited.find((c) => c.url === MOZILLA);
    expect(wiki, content).toBeDefined();
    // the lead is the encyclopedia's sentence, quoted as written from the passage the tool found
    const passage = body.sources.web!.find((w) => w.url === MOZILLA)!;
    expect(passage.source).toBe('wikipedia');
    const sentences = citedSentences(bodyOf(content));
    expect(sentences[0]!.n).toBe(wiki!.n);
    expect(sentences[0]!.text).toMatch(/^SpiderMonkey is (a|the) [^.]*(JavaScript|engine)/);
    for (const s of sentences.filter((x) => x.n === wiki!.n)) expect(norm(passage.raw_text)).toContain(norm(s.text).replace(/\.$/, ''));
    expect(content).toContain('Written by the extractive writer (no model)');
    // only_cited_sources (default): every listed source is cited, and every cited source is listed
    const listed = [...body.sources.news!.map((a) => a.article_url), ...body.sources.web!.map((w) => w.url)];
    expect(listed.sort()).toEqual(cited.map((c) => c.url).sort());

    // the stream lists the same sources: the passage as a web source
    const res = await fetch(`${svc.url}/v1/chat/deepnews`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: Q }],
        sources: ['asknews', 'wiki', 'reddit'],
        search_depth: 1,
        inline_citations: 'numbered',
        journalist_mode: false,
        stream: true,
      }),
    });
    const streamed = sseEvents(await res.text())
      .slice(0, -1)
      .map((e) => JSON.parse(e))
      .filter((e) => e.object === 'chat.completion.source')
      .map((e) => DeepNewsStreamSource.parse(e).source);
    expect(streamed.filter((s) => s.kind === 'web').map((s) => (s.data as { url: string }).url)).toEqual(body.sources.web!.map((w) => w.url));
  });

  it('the sources asked for change the report, not only the tool log: without wiki it cites no encyclopedia', async () => {
    const withWiki = await deepnews({ sources: ['asknews', 'wiki', 'reddit'], search_depth: 1 });
    const without = await deepnews({ sources: ['asknews', 'reddit'], search_depth: 1 });
    expect(without.status).toBe(200);
    expect(citedArticles(without.body.choices[0].message.content).map((c) => c.url)).not.toContain(MOZILLA);
    expect(without.body.sources.web.map((w: { url: string }) => w.url)).not.toContain(MOZILLA);
    expect(bodyOf(without.body.choices[0].message.content)).not.toBe(bodyOf(withWiki.body.choices[0].message.content));
    // journalist mode (the default) attributes the encyclopedia's sentence to it
    expect(bodyOf(withWiki.body.choices[0].message.content)).toMatch(
      /SpiderMonkey[^[]*, according to Wikipedia \[\[\d+\]\(https:\/\/en\.wikipedia\.org\/wiki\/Mozilla\)\]/,
    );
  });
});

describe('a model writer', () => {
  it('reads every kind of source the tools gathered, numbered after the articles, and its citation of the wiki passage resolves to Wikipedia', async () => {
    svc.services.config.llm = { url: llm.url, model: 'gpt-test' };
    try {
      llm.requests.length = 0;
      llm.plan = (_b, turn) =>
        turn === 0
          ? {
              text: 'Searching every source.',
              calls: [
                { id: 'c1', name: 'search_news', input: { query: Q } },
                { id: 'c2', name: 'search_wiki', input: { query: Q } },
                { id: 'c3', name: 'search_forum', input: { query: 'Mozilla Firefox' } },
                { id: 'c4', name: 'search_web', input: { query: 'Mozilla' } },
                { id: 'c5', name: 'build_graph', input: { query: 'Ukraine Russia' } },
                { id: 'c6', name: 'make_chart', input: { query: 'Ukraine vs Russia' } },
              ],
            }
          : { text: 'Enough.', calls: [] };
      // the model cites the source its context numbers as the Mozilla encyclopedia article
      let wikiN = 0;
      llm.write = (b) => {
        const m = /\[(\d+)\] Mozilla\nKind: encyclopedia article \| Source: Wikipedia/.exec(b.messages[0].content);
        wikiN = m ? Number(m[1]) : 0;
        return ['SpiderMonkey is ', "Mozilla's JavaScript engine ", `[${wikiN}].`];
      };
      const r = await deepnews({
        model: 'gpt-4o',
        sources: ['asknews', 'wiki', 'reddit', 'google', 'graph', 'charts'],
        inline_citations: 'markdown_link',
      });
      expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
      const body = DeepNewsResponse.parse(r.body);
      expect(body.usage.tool_usage).toMatchObject({ search_news: 1, search_wiki: 1, search_forum: 1, search_web: 1, build_graph: 1, make_chart: 1 });
      const writer = llm.requests.find((x) => !x.body.tools)!.body;
      const context = writer.messages[0].content as string;
      // the articles first, then every other kind, numbered on
      const articles = [...context.split('\n\nOther sources:\n\n')[0]!.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
      const others = [...context.split('\n\nOther sources:\n\n')[1]!.matchAll(/^\[(\d+)\] .*\nKind: ([^|]+) \|/gm)].map((m) => ({
        n: Number(m[1]),
        kind: m[2]!.trim(),
      }));
      expect(articles.length).toBeGreaterThan(0);
      expect(others.map((o) => o.n)).toEqual(others.map((_, i) => articles.length + 1 + i));
      const kinds = new Set(others.map((o) => o.kind.split(' ')[0]));
      expect(kinds).toEqual(new Set(['encyclopedia', 'web', 'forum', 'knowledge', 'chart']));
      expect(context).toContain('SpiderMonkey is the original JavaScript engine');
      expect(context).toMatch(/\nText: The \d+ articles found for "Ukraine Russia" name most often: /);
      expect(context).toMatch(/\nText: The news index holds \d+ articles? on /);
      // the citation is the Wikipedia article's, first and only; sources lists it alone
      expect(wikiN).toBeGreaterThan(articles.length);
      const content = body.choices[0]!.message.content;
      expect(content).toMatch(/^SpiderMonkey is Mozilla's JavaScript engine \[\[1\]\(https:\/\/en\.wikipedia\.org\/wiki\/Mozilla\)\]\.\n\nResearch: /);
      expect(citedArticles(content)).toEqual([{ n: 1, title: 'Mozilla', url: MOZILLA }]);
      expect(body.sources.web!.map((w) => w.url)).toEqual([MOZILLA]);
      expect(body.sources.news).toEqual([]);
      expect(body.sources.charts).toEqual([]);
    } finally {
      svc.services.config.llm = null;
    }
  });

  it('cited graph facts and chart series are listed: the graph under web (its page), the chart under charts', async () => {
    svc.services.config.llm = { url: llm.url, model: 'gpt-test' };
    try {
      graphAndChart();
      const r = await deepnews({ model: 'gpt-4o', sources: ['asknews', 'graph', 'charts'], inline_citations: 'numbered' });
      expect(r.status).toBe(200);
      const body = DeepNewsResponse.parse(r.body);
      const cited = citedArticles(body.choices[0]!.message.content);
      expect(cited.map((c) => c.n)).toEqual([1, 2]);
      expect(cited[0]!.url).toMatch(/^http:\/\/[^/]+\/v1\/news\/graph\/[^/]+\/view$/);
      expect(cited[1]!.url).toMatch(/^http:\/\/[^/]+\/v1\/index_counts\?/);
      expect(body.sources.web!.map((w) => w.url)).toEqual([cited[0]!.url]);
      expect(body.sources.web![0]!.key_points[0]).toMatch(/^The \d+ articles found for "Ukraine Russia" name most often/);
      expect(body.sources.charts).toHaveLength(1);
      expect(body.sources.charts![0]).toMatchObject({ success: true, chart_json: { data: expect.any(Array) } });
      // the graph's page and the chart's counts open
      const page = await fetch(cited[0]!.url);
      expect(page.status).toBe(200);
      const counts = await fetch(cited[1]!.url, { headers: { authorization: `Bearer ${svc.keys.org}` } });
      expect(counts.status).toBe(200);
    } finally {
      svc.services.config.llm = null;
    }
  });
  it('cites the graph page and the chart counts under the public base URL (NEWSFLOW_PUBLIC_URL), never under the Host or X-Forwarded-* the caller sent', async () => {
    svc.services.config.llm = { url: llm.url, model: 'gpt-test' };
    const before = svc.services.config.publicUrl;
    svc.services.config.publicUrl = parsePublicUrl('https://news.example.org/api/');
    try {
      graphAndChart();
      const res = await fetch(`${svc.url}/v1/chat/deepnews`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${svc.keys.org}`,
          'content-type': 'application/json',
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'https',
          forwarded: 'for=203.0.113.7;host=evil.example;proto=https',
        },
        body: JSON.stringify({
          messages: [{ role: 'user', content: Q }],
          model: 'gpt-4o',
          sources: ['asknews', 'graph', 'charts'],
          inline_citations: 'numbered',
        }),
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text).not.toContain('evil.example');
      const body = DeepNewsResponse.parse(JSON.parse(text));
      const cited = citedArticles(body.choices[0]!.message.content);
      expect(cited[0]!.url).toMatch(/^https:\/\/news\.example\.org\/api\/v1\/news\/graph\/[^/]+\/view$/);
      expect(cited[1]!.url).toMatch(/^https:\/\/news\.example\.org\/api\/v1\/index_counts\?/);
      expect(body.sources.web!.map((w) => w.url)).toEqual([cited[0]!.url]);
    } finally {
      svc.services.config.llm = null;
      svc.services.config.publicUrl = before;
    }
  });
});
