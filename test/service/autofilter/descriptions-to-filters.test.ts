/**
 * GET /v1/chat/autofilter on the seeded corpus service: 40 written descriptions against the
 * filters a reader would set (score printed, >= 90% of fields), every emitted filter set accepted
 * by the search schema and by GET /v1/news/search, the window read on the service clock, the
 * client method, and bad input.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchParams } from '../../../spec/index.js';
import { NewsClient } from '../../../client/client.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { NOW, qs, startCorpusService, type Query } from '../../helpers/news.js';
import { repoRoot } from '../../helpers/paths.js';

interface Case {
  description: string;
  expect: Record<string, unknown>;
}
const fixture = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/autofilter/descriptions.json'), 'utf8')) as { now: string; cases: Case[] };
/** Filter fields a description can set; one set without being asked counts as a wrong field. */
const SCORED = [
  'start_timestamp',
  'end_timestamp',
  'countries',
  'countries_blacklist',
  'continents',
  'languages',
  'categories',
  'sentiment',
  'entity_guarantee',
  'reverse_entity_guarantee',
  'domain_url',
  'bad_domain_url',
  'reporting_voice',
  'provocative',
  'n_articles',
];

function expected(c: Case): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c.expect)) {
    if (k === 'start') out.start_timestamp = Date.parse(v as string) / 1000;
    else if (k === 'end') out.end_timestamp = Date.parse(v as string) / 1000;
    else out[k] = v;
  }
  return out;
}
const same = (got: unknown, want: unknown) =>
  Array.isArray(want) ? Array.isArray(got) && got.length === want.length && want.every((x) => got.includes(x)) : got === want;

/** Right fields / (expected fields + fields set unasked); a case expecting nothing is one field. */
function score(got: Record<string, unknown>, want: Record<string, unknown>): { right: number; of: number; wrong: string[] } {
  let right = 0;
  let of = 0;
  const wrong: string[] = [];
  for (const [k, v] of Object.entries(want)) {
    of++;
    if (same(got[k], v)) right++;
    else wrong.push(`${k}: got ${JSON.stringify(got[k])}, want ${JSON.stringify(v)}`);
  }
  for (const k of SCORED) {
    if (!(k in want) && got[k] !== undefined) {
      of++;
      wrong.push(`${k}: set unasked to ${JSON.stringify(got[k])}`);
    }
  }
  if (of === 0) return { right: 1, of: 1, wrong };
  return { right, of, wrong };
}

const autofilter = (s: TestService, query: string) => api(s.url, 'GET', `/v1/chat/autofilter?${qs({ query })}`, s.keys.org);

let svc: TestService;
const answers = new Map<string, Record<string, unknown>>();
beforeAll(async () => {
  svc = await startCorpusService({ limitsText: 'news=1000:1000:50,chat=1000:1000:50' });
  for (const c of fixture.cases) {
    const r = await autofilter(svc, c.description);
    expect(r.status, r.text).toBe(200);
    answers.set(c.description, r.body.filter_params);
  }
});
afterAll(async () => svc?.stop());

describe('descriptions become the filters a reader would set', () => {
  it('gets at least 90% of the expected fields of 40 written descriptions right', () => {
    expect(fixture.cases).toHaveLength(40);
    expect(Date.parse(fixture.now)).toBe(NOW); // the fixture is written for the test service's clock
    let right = 0;
    let of = 0;
    const misses: string[] = [];
    for (const c of fixture.cases) {
      const s = score(answers.get(c.description)!, expected(c));
      right += s.right;
      of += s.of;
      if (s.wrong.length) misses.push(`${c.description}\n    ${s.wrong.join('\n    ')}`);
    }
    console.log(`autofilter: ${right}/${of} expected fields right (${((100 * right) / of).toFixed(1)}%) over ${fixture.cases.length} descriptions`);
    if (misses.length) console.log(`autofilter misses:\n  ${misses.join('\n  ')}`);
    expect(right / of).toBeGreaterThanOrEqual(0.9);
  });

  it('answers a title and puts what no filter took into the query', async () => {
    const r = await autofilter(svc, 'Positive news about Elon Musk and Tesla from last week');
    expect(r.body.metadata.title).toBe('Elon Musk and Tesla (last week)');
    expect(r.body.filter_params.query).toBe('Elon Musk and Tesla');
    expect(r.body.filter_params.method).toBe('kw');
    expect(r.body.filter_params.time_filter).toBe('pub_date');
    expect(r.body.filter_params.historical).toBe(true);
    const q = await autofilter(svc, 'Why are gas prices rising so fast?');
    expect(q.body.filter_params).toEqual({ query: 'Why are gas prices rising so fast?', method: 'nl' });
    expect(q.body.metadata.title).toBe('Why are gas prices rising so fast');
  });

  it('reads "last week" on the service clock, not the wall clock', async () => {
    const later = Date.parse('2030-01-15T00:00:00Z');
    const other = await startTestService({ clock: () => later });
    try {
      const r = await autofilter(other, 'Tesla news from last week');
      expect(r.status, r.text).toBe(200);
      expect(r.body.filter_params.start_timestamp).toBe((later - 7 * 86_400_000) / 1000);
      const mine = await autofilter(svc, 'Tesla news from last week');
      expect(mine.body.filter_params.start_timestamp).toBe((NOW - 7 * 86_400_000) / 1000);
    } finally {
      await other.stop();
    }
  });

  it('is reachable through the client', async () => {
    const c = new NewsClient({ baseUrl: `${svc.url}/v1`, apiKey: svc.keys.org });
    const r = await c.autofilter({ query: 'Show me sports news from Australia' });
    expect(r.filter_params).toMatchObject({ categories: ['Sports'], countries: ['AU'] });
    expect(r.metadata.title).toBe('Sports news');
  });
});

describe('every emitted filter set is valid for search', () => {
  const hostile = [
    'a'.repeat(1000),
    'a.'.repeat(500),
    '1 '.repeat(500),
    'May '.repeat(250),
    'Elon Musk '.repeat(100),
    'from from from from the the the in in in since since before after between and and',
    '\u0000\u0007 news\u2028about\u202e Tesla 😀 ﷽ <script>alert(1)</script> %00 %zz',
    'news from 1850 to 1899',
    'articles since 31 February 2022',
    'between 2022-07-01 and 2021-01-01',
    'in 9999',
    'top 99999 articles',
    'top 0 stories',
    'news from nytimes.com.evil.example, xn--80ak6aa92e.com, ..com, a..b.com',
    'not not not excluding excluding cnn',
    'Location:Paris: news',
    ':::',
    'US UK EU UN',
    'in Klingon and Elvish',
    'Provocative positive negative neutral objective subjective satire',
    '?',
    '   x   ',
  ];

  it('parses with the search parameter schema and searches with 200, for all 40 descriptions and hostile ones', async () => {
    const sets: [string, Record<string, unknown>][] = [...answers.entries()];
    for (const h of hostile) {
      const r = await autofilter(svc, h);
      expect(r.status, `${JSON.stringify(h)} -> ${r.text}`).toBe(200);
      sets.push([h, r.body.filter_params]);
    }
    for (const [d, f] of sets) {
      const parsed = SearchParams.safeParse(f);
      expect(parsed.success, `${d}: ${JSON.stringify(f)} ${parsed.error?.message ?? ''}`).toBe(true);
      const r = await api(svc.url, 'GET', `/v1/news/search?${qs(f as Query)}`, svc.keys.org);
      expect(r.status, `${d}: ${JSON.stringify(f)} -> ${r.text.slice(0, 300)}`).toBe(200);
    }
    expect(sets.length).toBe(40 + hostile.length);
  });

  it('finds articles with the filters of descriptions the corpus holds', async () => {
    // the window, publisher country, entity and category filters select real articles
    for (const d of ['News about Ukraine from British media in June 2022', 'Political news from last week', 'Negative coverage of Boris Johnson this month']) {
      const r = await autofilter(svc, d);
      const s = await api(svc.url, 'GET', `/v1/news/search?${qs({ ...(r.body.filter_params as Query), query: undefined, n_articles: 5 })}`, svc.keys.org);
      expect(s.status).toBe(200);
      expect(s.body.as_dicts.length, `${d}: ${JSON.stringify(r.body.filter_params)}`).toBeGreaterThan(0);
    }
  });
});

describe('bad input', () => {
  it('answers 422 naming query when it is missing, empty or too long', async () => {
    const missing = await api(svc.url, 'GET', '/v1/chat/autofilter', svc.keys.org);
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe(422000);
    expect(missing.body.detail[0].loc).toEqual(['query', 'query']);
    expect(missing.body.detail[0].type).toBe('value_error.missing');
    const empty = await api(svc.url, 'GET', '/v1/chat/autofilter?query=', svc.keys.org);
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['query', 'query']);
    const long = await autofilter(svc, 'x'.repeat(1001));
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['query', 'query']);
    expect(long.body.detail[0].msg).toMatch(/1000/);
  });

  it('needs the chat scope', async () => {
    const r = await api(svc.url, 'GET', `/v1/chat/autofilter?${qs({ query: 'Tesla' })}`, svc.keys.legacy);
    expect(r.status).toBe(403);
  });
});
