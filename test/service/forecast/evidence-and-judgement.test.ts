/**
 * GET /v1/chat/forecast against the seeded corpus: every field present and typed (a strict
 * client's copy of the spec schema), the evidence inside [cutoff - lookback, cutoff], the offline
 * judgement fields saying no model judged, a local OpenAI-compatible server's judgement returned,
 * and bad input a 422 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { strictValidator } from '../../helpers/strict-schema.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/llm-servers.js';
import { ForecastResponse } from '../../../spec/index.js';
import { NewsClient } from '../../../client/client.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
let fake: FakeLlm;
const strict = strictValidator(ForecastResponse);
const Q = 'Will the ruling party win the Japanese upper house election after Shinzo Abe was shot?';
// window [2022-07-07 00:00, 2022-07-10 00:00] UTC: the shooting (July 8) is in, July 10-11 reports are out
const CUTOFF = '2022-07-10-00:00';
const CUTOFF_MS = Date.UTC(2022, 6, 10);
const LOOKBACK = 3;
const qs = (o: Record<string, string | number | boolean>) => new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();

beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
  fake = await startFakeLlm('openai', [
    '{"forecast": "The ruling LDP will most likely win the upper house election [1].", "reasoning": "Sympathy after the shooting [1].", ',
    '"probability": 82, "likelihood": "likely", "confidence": 0.7, "llm_confidence": 75, "choice": true, ',
    '"resolution_criteria": "Official results of the July 10 election.", "opposite_request": "Will the ruling party lose?"}',
  ]);
});
afterAll(async () => {
  await fake?.close();
  await svc?.stop();
});

async function forecast(params: Record<string, string | number | boolean>) {
  return api(svc.url, 'GET', `/v1/chat/forecast?${qs(params)}`, svc.keys.org);
}

describe('forecast without a model (the offline default)', () => {
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  beforeAll(async () => {
    const r = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, articles_to_use: 12 });
    expect(r.status).toBe(200);
    body = r.body;
  });

  it('every field of ForecastResponse is present and typed (strict client schema)', () => {
    expect(strict(body)).toEqual([]);
    for (const k of Object.keys(ForecastResponse.shape)) expect(body, k).toHaveProperty(k);
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.sources.length).toBeLessThanOrEqual(12);
  });

  it('the judgement fields say no model judged: probability/confidence/llm_confidence -1, likelihood and choice "not judged"', () => {
    expect(body.probability).toBe(-1);
    expect(body.confidence).toBe(-1);
    expect(body.llm_confidence).toBe(-1);
    expect(body.likelihood).toBe('not judged');
    expect(body.choice).toBe('not judged');
    expect(body.forecast).toMatch(/^No model judged this question/);
    expect(body.forecast).toMatch(/Nothing here is a prediction/);
    expect(body.reasoning).toMatch(/^No model judged/);
    expect(body.model_used).toBe('newsflow-extractive');
    expect(body.candidate_models).toEqual([]);
    expect(body.expert_information.judged_by_model).toBe(false);
  });

  it('timeline events and sources are dated within [cutoff - lookback days, cutoff], oldest first', () => {
    const from = CUTOFF_MS - LOOKBACK * 86_400_000;
    expect(body.timeline.length).toBe(body.sources.length);
    const dates = body.timeline.map((e: string) => {
      const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC: .+ \([^)]+\) \[\d+\]$/.exec(e);
      expect(m, e).not.toBeNull();
      return Date.parse(`${m![1]}T${m![2]}:00Z`);
    });
    for (const t of dates) {
      expect(t).toBeGreaterThanOrEqual(from - 60_000);
      expect(t).toBeLessThanOrEqual(CUTOFF_MS);
    }
    expect([...dates].sort((a, b) => a - b)).toEqual(dates);
    for (const s of body.sources) {
      expect(Date.parse(s.pub_date)).toBeGreaterThanOrEqual(from);
      expect(Date.parse(s.pub_date)).toBeLessThanOrEqual(CUTOFF_MS);
    }
    expect(body.date).toBe(new Date(CUTOFF_MS).toISOString());
  });

  it('the evidence is about the question: Abe in the sources, key people with roles, facets, a cited summary', () => {
    expect(body.sources.some((s: { title: string }) => /Abe/.test(s.title))).toBe(true);
    const abe = body.key_people.find((p: { name: string }) => /Shinzo Abe/.test(p.name));
    expect(abe, JSON.stringify(body.key_people)).toBeDefined();
    expect(abe.role).toMatch(/prime minister|PM|leader/i);
    // a name the NER missed but a title gives ("Japan PM Kishida")
    expect(body.key_people).toContainEqual({ name: 'Kishida', role: 'Japan PM' });
    // headline words are not people ("Abe Killing", "Abe Assassin Misidentified")
    expect(body.key_people.map((p: { name: string }) => p.name).join('|')).not.toMatch(/Killing|Misidentified/);
    expect(body.key_facets.length).toBeGreaterThan(0);
    expect(body.key_facets.some((f: string) => /Japan/.test(f))).toBe(true);
    expect(body.summary).toMatch(/\[\d+\]/);
  });

  it('a later cutoff moves the window: July 11 reports appear only when the cutoff includes them', async () => {
    const later = await forecast({ query: Q, cutoff_date: '2022-07-12-00:00', lookback: 2, articles_to_use: 30 });
    expect(later.status).toBe(200);
    expect(later.body.timeline.some((e: string) => e.startsWith('2022-07-11'))).toBe(true);
    expect(body.timeline.some((e: string) => e.startsWith('2022-07-11'))).toBe(false);
  });

  it('web_search and use_reddit without a web source or forum store: empty results and a note saying so', async () => {
    // a service built without them (the test service has both: take them away for this request)
    const sources = svc.services as unknown as { web?: unknown; forum?: unknown };
    const { web, forum } = sources;
    delete sources.web;
    delete sources.forum;
    try {
      const r = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, web_search: true, use_reddit: true });
      expect(r.status).toBe(200);
      expect(r.body.web_search_results).toEqual([]);
      expect(r.body.expert_information.notes.join(' ')).toMatch(/no web source/);
      expect(r.body.expert_information.notes.join(' ')).toMatch(/no forum store/);
    } finally {
      Object.assign(sources, { web, forum });
    }
  });

  it('with a web source and a forum store: web results inside the window are returned, forum threads inside it join the timeline', async () => {
    const sources = svc.services as unknown as { web?: unknown; forum?: unknown };
    const real = { web: sources.web, forum: sources.forum };
    const web = (published: string, n: number) => ({
      title: `Web page ${n}`,
      url: `https://example.org/${n}`,
      source: 'example.org',
      published,
      key_points: [`point ${n}`],
      raw_text: '',
    });
    const thread = (date: string, n: number) => ({
      title: `Thread ${n} about Abe`,
      date,
      subreddit_name: 'japan',
      summary: `summary ${n}`,
      url: `https://forum.example/${n}`,
    });
    const asked: unknown[] = [];
    sources.web = {
      search: async (p: unknown) => (asked.push(p), { as_dicts: [web('2022-07-08T10:00:00Z', 1), web('2022-07-11T10:00:00Z', 2), web('not a date', 3)] }),
    };
    sources.forum = { search: async () => [thread('2022-07-09T12:30:00.000Z', 1), thread('2022-06-01T00:00:00.000Z', 2)] };
    try {
      const r = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, web_search: true, use_reddit: true });
      expect(r.status).toBe(200);
      expect(strict(r.body)).toEqual([]);
      expect(r.body.web_search_results.map((w: { title: string }) => w.title)).toEqual(['Web page 1', 'Web page 3']);
      expect(asked[0]).toMatchObject({ queries: [Q], start_datetime: '2022-07-07T00:00:00.000Z', end_datetime: '2022-07-10T00:00:00.000Z' });
      expect(r.body.timeline).toContain('2022-07-09 12:30 UTC: Thread 1 about Abe (forum r/japan)');
      expect(r.body.timeline.join('\n')).not.toMatch(/Thread 2/);
      expect(r.body.expert_information.forum_threads_used).toBe(1);
      sources.web = {
        search: async () => {
          throw new Error('provider down');
        },
      };
      const failed = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, web_search: true });
      expect(failed.status).toBe(200);
      expect(failed.body.web_search_results).toEqual([]);
      expect(failed.body.expert_information.notes.join(' ')).toMatch(/web source failed \(provider down\)/);
    } finally {
      Object.assign(sources, real);
    }
  });

  it('the client method forecast parses the response with the spec', async () => {
    const c = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org! });
    const r = await c.forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, articles_to_use: 5 });
    expect(r.probability).toBe(-1);
    expect(r.sources.length).toBeLessThanOrEqual(5);
  });
});

describe('forecast with a model provider (a local OpenAI-compatible server)', () => {
  it("returns the model's judgement and names the model; the prompt carries the timeline and the articles", async () => {
    svc.services.config.llm = { url: `${fake.url}/v1`, model: 'local-forecaster' };
    try {
      fake.requests.length = 0;
      const r = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, articles_to_use: 8, additional_context: 'election on July 10' });
      expect(r.status).toBe(200);
      expect(strict(r.body)).toEqual([]);
      expect(r.body.probability).toBe(82);
      expect(r.body.likelihood).toBe('likely');
      expect(r.body.confidence).toBe(0.7);
      expect(r.body.llm_confidence).toBe(75);
      expect(r.body.choice).toBe(true);
      expect(r.body.forecast).toMatch(/LDP will most likely win/);
      expect(r.body.reasoning).toMatch(/Sympathy/);
      expect(r.body.opposite_request).toBe('Will the ruling party lose?');
      expect(r.body.model_used).toBe('local-forecaster');
      expect(r.body.candidate_models).toEqual(['local-forecaster']);
      expect(r.body.expert_information.judged_by_model).toBe(true);
      const sent = fake.requests.at(-1)!.body;
      expect(sent.model).toBe('local-forecaster');
      const user = sent.messages.find((m: { role: string }) => m.role === 'user').content as string;
      expect(user).toContain(`Question to forecast: ${Q}`);
      expect(user).toContain('election on July 10');
      expect(user).toContain(r.body.timeline[0]);
    } finally {
      svc.services.config.llm = null;
    }
  });

  it('a model answer without the JSON verdict is a 502, not a guessed forecast', async () => {
    svc.services.config.llm = { url: `${fake.url}/v1`, model: 'local-forecaster' };
    const saved = fake.pieces;
    fake.pieces = ['I think it is likely.'];
    try {
      const r = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK });
      expect(r.status).toBe(502);
      expect(r.body.code).toBe(502000);
    } finally {
      fake.pieces = saved;
      svc.services.config.llm = null;
    }
  });
});

describe('forecast bad input is a 422 naming the field', () => {
  const cases: [string, Record<string, string | number | boolean>, string][] = [
    ['query missing', { lookback: 3 }, 'query'],
    ['query blank', { query: '   ' }, 'query'],
    ['cutoff_date in another format', { query: Q, cutoff_date: '2022-07-10T00:00' }, 'cutoff_date'],
    ['cutoff_date not a real date', { query: Q, cutoff_date: '2022-02-30-25:61' }, 'cutoff_date'],
    ['lookback 0', { query: Q, lookback: 0 }, 'lookback'],
    ['lookback not a number', { query: Q, lookback: 'week' }, 'lookback'],
    ['articles_to_use 0', { query: Q, articles_to_use: 0 }, 'articles_to_use'],
    ['model unknown', { query: Q, model: 'gpt-2' }, 'model'],
    ['method nl (only kw)', { query: Q, method: 'nl' }, 'method'],
    ['expert unknown', { query: Q, expert: 'astrology' }, 'expert'],
    ['web_search not a boolean', { query: Q, web_search: 'maybe' }, 'web_search'],
  ];
  for (const [name, params, field] of cases) {
    it(`${name} -> 422 at ["query", "${field}"]`, async () => {
      const r = await forecast(params);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe(422000);
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(`query.${field}`);
    });
  }

  it('a window reaching before 1970 (lookback 36525 days) or a cutoff in 9999 is answered, not a 500', async () => {
    for (const params of [
      { query: Q, lookback: 36_525, cutoff_date: '1990-01-01-00:00' },
      { query: Q, cutoff_date: '9999-12-31-23:59', lookback: 1 },
    ]) {
      const r = await forecast(params);
      expect(r.status, r.text).toBe(200);
      expect(strict(r.body)).toEqual([]);
    }
  });

  it('a huge articles_to_use is read as the maximum (101), not an error or a hang', async () => {
    const r = await forecast({ query: Q, cutoff_date: CUTOFF, lookback: LOOKBACK, articles_to_use: 1_000_000 });
    expect(r.status).toBe(200);
    expect(r.body.sources.length).toBeLessThanOrEqual(101);
    expect(r.body.expert_information.notes.join(' ')).toMatch(/read as 101/);
  });
});
