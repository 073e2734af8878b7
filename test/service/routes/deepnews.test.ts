/**
 * POST /v1/chat/deepnews: bad input (422 naming the field), publisher keys (their domains, the
 * archive only), threads, data-less sources and a missing capability; GET /v1/chat/deepnews-models.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEEPNEWS_MODELS, DeepNewsModelsResponse, DeepNewsResponse } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
let wireKey: string;
/** the publisher organization's domains: two busy publishers of the corpus */
const WIRE_DOMAINS = ['bbc.com', 'reuters.com'];
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'deepnews=100000:100000:100' });
  await svc.services.keys.createOrg({ name: 'wire', domains: WIRE_DOMAINS, publisher: true });
  wireKey = (await svc.services.keys.createKey({ name: 'wire', org: 'wire', scopes: ['news', 'chat', 'distribution', 'profile'], plan: 'enterprise' })).key;
});
afterAll(async () => svc?.stop());

const user = [{ role: 'user', content: 'What is happening in Ukraine?' }];
const deepnews = (body: Record<string, unknown>, key = svc.keys.org!) => api(svc.url, 'POST', '/v1/chat/deepnews', key, body);

describe('input validation', () => {
  const cases: [string, unknown, (string | number)[]][] = [
    ['search_depth 0', { messages: user, search_depth: 0 }, ['body', 'search_depth']],
    ['search_depth 191', { messages: user, search_depth: 191 }, ['body', 'search_depth']],
    ['max_depth 201', { messages: user, max_depth: 201 }, ['body', 'max_depth']],
    ['max_parallel_tool_calls 5', { messages: user, max_parallel_tool_calls: 5 }, ['body', 'max_parallel_tool_calls']],
    ['max_parallel_tool_calls 0', { messages: user, max_parallel_tool_calls: 0 }, ['body', 'max_parallel_tool_calls']],
    ['an unknown engine', { messages: user, engine: 'v3' }, ['body', 'engine']],
    ['an unknown source', { messages: user, sources: 'web' }, ['body', 'sources']],
    ['an unknown source in a list', { messages: user, sources: ['asknews', 'telepathy'] }, ['body', 'sources']],
    ['empty messages', { messages: [] }, ['body', 'messages']],
    ['missing messages', { search_depth: 2 }, ['body', 'messages']],
    ['an unknown model', { messages: user, model: 'gpt-17-ultra' }, ['body', 'model']],
    ['a bad cutoff_datetime', { messages: user, cutoff_datetime: 'yesterday' }, ['body', 'cutoff_datetime']],
    ['a bad search parameter inside filter_params', { messages: user, filter_params: { n_articles: 'many' } }, ['body', 'filter_params', 'n_articles']],
  ];
  it.each(cases)('%s: 422 {code, detail} naming the field', async (_name, body, loc) => {
    const r = await deepnews(body as Record<string, unknown>);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    const locs = (r.body.detail as { loc: (string | number)[] }[]).map((d) => d.loc.slice(0, loc.length));
    expect(locs).toContainEqual(loc);
  });

  it('an unknown thread_id is 404; a known one continues the thread', async () => {
    const missing = await deepnews({ messages: user, thread_id: '7b1c1f8e-1111-4222-8333-944455556666' });
    expect(missing.status).toBe(404);
    const first = await deepnews({ messages: [{ role: 'user', content: 'Sri Lanka crisis' }], search_depth: 1 });
    expect(first.status).toBe(200);
    const thread = first.headers.get('x-thread-id')!;
    expect(first.body.thread_id).toBe(thread);
    const next = await deepnews({ messages: [{ role: 'user', content: 'and Rajapaksa?' }], thread_id: thread, search_depth: 1 });
    expect(next.status).toBe(200);
    expect(next.body.thread_id).toBe(thread);
    const stored = await svc.services.db.all<{ role: string; content: string }>('SELECT role, content FROM chat_messages WHERE thread_id = $1 ORDER BY seq', [
      thread,
    ]);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored[3]!.content).toBe(next.body.choices[0].message.content);
    // conversational awareness folds the earlier question into the research query
    expect(next.body.choices[0].message.content).toMatch(/Sri Lanka|Rajapaksa/);
  });
});

describe('cutoff_datetime', () => {
  it('a cutoff without an offset and with a space for T is read as UTC', async () => {
    const r = await deepnews({
      messages: [{ role: 'user', content: 'Shinzo Abe shot' }],
      cutoff_datetime: '2022-07-08 06:00:00',
      search_depth: 1,
      only_cited_sources: false,
    });
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toContain('Knowledge cutoff: 2022-07-08T06:00:00.000Z; no source published after it was used.');
    expect(r.body.sources.news.length).toBeGreaterThan(0);
    for (const a of r.body.sources.news) expect(Date.parse(a.pub_date)).toBeLessThanOrEqual(Date.parse('2022-07-08T06:00:00Z'));
  });
});

describe('sources with no data here, and a service without a capability', () => {
  it('x and email are skipped and said; wiki / web / forum / graph / charts are called and counted; the run goes on', async () => {
    const r = await deepnews({
      messages: [{ role: 'user', content: 'Why did Boris Johnson resign?' }],
      sources: ['asknews', 'x', 'email', 'wiki', 'google', 'reddit', 'graph', 'charts'],
      search_depth: 1,
      stream: true,
      engine: 'v1.5',
    });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Source x: no data on this service, skipped.');
    expect(r.text).toContain('Source email: no data on this service, skipped.');
    expect(r.text).not.toContain('is unavailable');
    for (const tag of ['search_wiki', 'search_web', 'search_forum', 'build_graph', 'make_chart']) expect(r.text).toContain(`<${tag}>`);
    const plain = await deepnews({
      messages: [{ role: 'user', content: 'Why did Boris Johnson resign?' }],
      sources: ['asknews', 'x', 'email', 'wiki', 'google', 'reddit', 'graph', 'charts'],
      search_depth: 1,
    });
    expect(plain.status).toBe(200);
    const body = DeepNewsResponse.parse(plain.body);
    expect(body.sources.news!.length).toBeGreaterThan(0);
    // the corpus service charts its news index; its wiki, web and forum stores are empty
    expect(body.sources.charts!.length).toBe(1);
    expect(body.sources.charts![0]).toMatchObject({ success: true, chart_json: { data: expect.any(Array), layout: expect.any(Object) } });
    const content = body.choices[0]!.message.content;
    expect(content).toMatch(/Not searched: x, email\./);
    expect(content).not.toMatch(/Not searched: [^.]*(?:wiki|google|reddit|graph|charts)/);
    expect(body.usage.tool_usage).toMatchObject({
      search_news: expect.any(Number),
      search_wiki: 1,
      search_web: 1,
      search_forum: 1,
      build_graph: 1,
      make_chart: 1,
    });
  });

  it('a service without an encyclopedia store: search_wiki says it is unavailable and why, is not called, and the run goes on', async () => {
    const wiki = svc.services.wiki;
    delete svc.services.wiki;
    try {
      const body = { messages: [{ role: 'user', content: 'Why did Boris Johnson resign?' }], sources: ['asknews', 'wiki', 'reddit'], search_depth: 1 };
      const r = await deepnews({ ...body, stream: true, engine: 'v1.5' });
      expect(r.status).toBe(200);
      expect(r.text).toContain('Tool search_wiki (source wiki) is unavailable: this service has no encyclopedia store.');
      expect(r.text).not.toContain('<search_wiki>');
      expect(r.text).toContain('<search_forum>');
      const plain = await deepnews(body);
      expect(plain.status).toBe(200);
      expect(plain.body.sources.news.length).toBeGreaterThan(0);
      expect(plain.body.choices[0].message.content).toMatch(/Not searched: wiki\./);
      expect(plain.body.usage.tool_usage.search_wiki).toBeUndefined();
      expect(plain.body.usage.tool_usage.search_forum).toBe(1);
    } finally {
      svc.services.wiki = wiki;
    }
  });
});

describe('publisher organization keys', () => {
  it('DeepNews by a publisher key sees only its own domains', async () => {
    const r = await deepnews(
      {
        messages: [{ role: 'user', content: 'What happened at Wimbledon with Djokovic and Kyrgios?' }],
        only_cited_sources: false,
        sources: ['asknews', 'full_text_discovery'],
      },
      wireKey,
    );
    expect(r.status).toBe(200);
    const news = r.body.sources.news as { domain_url: string }[];
    expect(news.length).toBeGreaterThan(0);
    for (const a of news) expect(WIRE_DOMAINS).toContain(a.domain_url);
    // the same question by an ordinary key finds other publishers too
    const open = await deepnews({ messages: [{ role: 'user', content: 'What happened at Wimbledon with Djokovic and Kyrgios?' }], only_cited_sources: false });
    expect((open.body.sources.news as { domain_url: string }[]).some((a) => !WIRE_DOMAINS.includes(a.domain_url))).toBe(true);
    console.log(`publisher deepnews: ${news.length} sources, all on ${WIRE_DOMAINS.join(', ')}; open key: ${open.body.sources.news.length} sources`);
  });

  it('sources "google" (web) by a publisher key is restricted: skipped, said in the stream and the report, archive only', async () => {
    const r = await deepnews(
      { messages: [{ role: 'user', content: 'Wimbledon final' }], sources: ['google', 'wiki'], search_depth: 1, stream: true, engine: 'v1.5' },
      wireKey,
    );
    expect(r.status).toBe(200);
    expect(r.text).toContain('Source google: a publisher key researches the news archive only, skipped.');
    expect(r.text).toContain('Source wiki: a publisher key researches the news archive only, skipped.');
    expect(r.text).toContain('Not searched: google, wiki.');
    expect(r.text).not.toContain('<search_web>');
  });

  it("the models list is outside a publisher key's allow-list (403)", async () => {
    const r = await api(svc.url, 'GET', '/v1/chat/deepnews-models', wireKey);
    expect(r.status).toBe(403);
  });
});

describe('GET /v1/chat/deepnews-models', () => {
  it('lists every DeepNews model with type standard / lite / advanced and marks which can run here', async () => {
    const r = await api(svc.url, 'GET', '/v1/chat/deepnews-models', svc.keys.org);
    expect(r.status).toBe(200);
    const body = DeepNewsModelsResponse.parse(r.body);
    expect(body.models.map((m) => m.model)).toEqual([...DEEPNEWS_MODELS]);
    expect(new Set(body.models.map((m) => m.type))).toEqual(new Set(['standard', 'lite', 'advanced']));
    const byName = new Map(r.body.models.map((m: { model: string }) => [m.model, m]));
    expect(byName.get('gpt-5-mini')).toMatchObject({ type: 'lite' });
    expect(byName.get('claude-opus-4-6')).toMatchObject({ type: 'advanced' });
    expect(byName.get('claude-sonnet-5')).toMatchObject({ type: 'standard' });
    // offline: nothing but the extractive writer runs
    expect(r.body.models.every((m: { available: boolean; served_by: string }) => !m.available && m.served_by === 'newsflow-extractive')).toBe(true);
    // with an OpenAI-compatible server configured, the non-BYOK names run there
    svc.services.config.llm = { url: 'http://127.0.0.1:9', model: 'local-model' };
    try {
      const on = await api(svc.url, 'GET', '/v1/chat/deepnews-models', svc.keys.org);
      const m = new Map(on.body.models.map((x: { model: string }) => [x.model, x]));
      expect(m.get('gpt-4o')).toMatchObject({ available: true, served_by: 'local-model' });
      expect(m.get('claude-sonnet-5')).toMatchObject({ available: true, served_by: 'local-model' });
    } finally {
      svc.services.config.llm = null;
    }
  });
});
