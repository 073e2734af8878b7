/**
 * GET /v1/index_counts on the seeded corpus: every bucket of every sampling equals a series built
 * in SQL over the service store (time_bucket/date_trunc + range), with and without filters;
 * crawl_date vs pub_date on replayed articles; defaults, empty ranges and 422s.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { NOW, qs, sql, startCorpusService, type Query } from '../../helpers/news.js';
import { repoRoot } from '../../helpers/paths.js';
import { waitUntil } from '../../helpers/wait-until.js';

interface Item {
  start: string;
  end: string;
  count: number;
}

/** The bucket of each sampling in DuckDB, written independently of the handler. */
const SQL_BUCKET: Record<string, { of: (x: string) => string; step: string }> = {
  '5m': { of: (x) => `time_bucket(INTERVAL '5 minutes', ${x})`, step: `INTERVAL '5 minutes'` },
  '1h': { of: (x) => `date_trunc('hour', ${x})`, step: `INTERVAL '1 hour'` },
  '12h': { of: (x) => `time_bucket(INTERVAL '12 hours', ${x}, TIMESTAMP '2000-01-01')`, step: `INTERVAL '12 hours'` },
  '1d': { of: (x) => `date_trunc('day', ${x})`, step: `INTERVAL '1 day'` },
  '1w': { of: (x) => `date_trunc('week', ${x})`, step: `INTERVAL '7 days'` },
  '1m': { of: (x) => `date_trunc('month', ${x})`, step: `INTERVAL '1 month'` },
};
const SAMPLINGS = Object.keys(SQL_BUCKET);
/** ISO instant -> DuckDB TIMESTAMP literal (the store keeps naive UTC timestamps) */
const ts = (iso: string) => `TIMESTAMP '${new Date(iso).toISOString().replace('T', ' ').replace('Z', '')}'`;

/**
 * The expected series: every bucket from the one holding `from` to the one holding the last
 * instant before `to`, each with the number of indexed articles whose `column` falls in it.
 */
async function sqlSeries(s: TestService, sampling: string, from: string, to: string, where = 'true', column = 'pub_date'): Promise<Item[]> {
  const b = SQL_BUCKET[sampling]!;
  const rows = await sql<{ s: number | bigint; e: number | bigint; n: number | bigint }>(
    s,
    `
    WITH buckets AS (SELECT range AS b FROM range(${b.of(ts(from))}, ${b.of(`${ts(to)} - INTERVAL 1 millisecond`)} + ${b.step}, ${b.step})),
         c AS (SELECT ${b.of(column)} AS b, count(*) AS n FROM articles a WHERE crawl_date IS NOT NULL AND (${where}) GROUP BY 1)
    SELECT epoch_ms(b) AS s, epoch_ms(b + ${b.step}) AS e, coalesce(n, 0) AS n FROM buckets LEFT JOIN c USING (b) ORDER BY b`,
  );
  return rows.map((r) => ({ start: new Date(Number(r.s)).toISOString(), end: new Date(Number(r.e)).toISOString(), count: Number(r.n) }));
}

const get = (s: TestService, q: Query, key = s.keys.org!) => api(s.url, 'GET', `/v1/index_counts?${qs(q)}`, key);
async function series(s: TestService, q: Query): Promise<Item[]> {
  const r = await get(s, q);
  expect(r.status, r.text).toBe(200);
  return r.body as Item[];
}
const total = (items: Item[]) => items.reduce((n, i) => n + i.count, 0);
const domainSql = (ds: string[]) => `(${ds.map((d) => `domain_url = '${d}' OR domain_url LIKE '%.${d}'`).join(' OR ')})`;

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());

describe('counts equal the store', () => {
  it('5m on pub_date: every bucket of a day, all domains and a domain filter (subdomains included)', async () => {
    const range = { start_datetime: '2022-07-10T00:00:00Z', end_datetime: '2022-07-11T00:00:00Z', sampling: '5m' };
    const all = await series(svc, range);
    expect(all).toHaveLength(288);
    expect(all).toEqual(await sqlSeries(svc, '5m', range.start_datetime, range.end_datetime));
    expect(total(all)).toBeGreaterThan(100);
    const cnn = await series(svc, { ...range, domains: ['cnn.com', 'reuters.com'] });
    expect(cnn).toEqual(await sqlSeries(svc, '5m', range.start_datetime, range.end_datetime, domainSql(['cnn.com', 'reuters.com'])));
    expect(total(cnn)).toBeGreaterThan(0);
    expect(total(cnn)).toBeLessThan(total(all));
    const sub = Number((await sql<{ n: bigint }>(svc, `SELECT count(*) AS n FROM articles WHERE domain_url LIKE '%.cnn.com'`))[0]!.n);
    expect(sub).toBeGreaterThan(0); // the corpus has subdomains, so the LIKE arm is exercised
  });

  it('1d with languages, categories, sentiment and countries', async () => {
    const range = { start_datetime: '2022-06-01T00:00:00Z', end_datetime: '2022-07-11T12:00:00Z', sampling: '1d' };
    const cases: [Query, string][] = [
      [{ languages: ['en'] }, `language IN ('en')`],
      [{ categories: ['Politics', 'World'] }, `list_has_any(classification, ['Politics', 'World'])`],
      [{ sentiment: 'negative' }, 'sentiment < 0'],
      [{ sentiment: 'neutral' }, 'sentiment = 0'],
      [{ countries: ['GB'] }, `country IN ('GB')`],
      [
        { languages: ['en'], categories: ['Sports'], sentiment: 'positive', countries: ['US', 'GB'], domains: ['bbc.co.uk', 'cnn.com', 'nbcnews.com'] },
        `language = 'en' AND list_has(classification, 'Sports') AND sentiment > 0 AND country IN ('US', 'GB') AND ${domainSql(['bbc.co.uk', 'cnn.com', 'nbcnews.com'])}`,
      ],
    ];
    for (const [filters, where] of cases) {
      const got = await series(svc, { ...range, ...filters });
      expect(got, JSON.stringify(filters)).toEqual(await sqlSeries(svc, '1d', range.start_datetime, range.end_datetime, where));
      expect(got).toHaveLength(41);
      expect(total(got), JSON.stringify(filters)).toBeGreaterThan(0);
    }
  });

  it('1m over the whole corpus (2004 to 2022), all and by country', async () => {
    const range = { start_datetime: '2003-12-15T00:00:00Z', end_datetime: '2022-08-01T00:00:00Z', sampling: '1m' };
    const all = await series(svc, range);
    expect(all).toEqual(await sqlSeries(svc, '1m', range.start_datetime, range.end_datetime));
    expect(all).toHaveLength(12 * 18 + 8);
    const stored = Number((await sql<{ n: bigint }>(svc, 'SELECT count(*) AS n FROM articles WHERE crawl_date IS NOT NULL'))[0]!.n);
    expect(total(all)).toBe(stored);
    const gb = await series(svc, { ...range, countries: ['GB'], sentiment: 'negative' });
    expect(gb).toEqual(await sqlSeries(svc, '1m', range.start_datetime, range.end_datetime, `country = 'GB' AND sentiment < 0`));
  });

  it('the other filters: provocative, reporting_voice, bad_domain_url, page_rank, string and entity guarantees, blacklist, continents', async () => {
    const range = { start_datetime: '2021-11-01T00:00:00Z', end_datetime: '2022-08-01T00:00:00Z', sampling: '1w' };
    const text = `lower(concat_ws(chr(10), title, summary, array_to_string(key_points, chr(10)), coalesce(full_text, '')))`;
    const entity = (t: string, v: string) =>
      `EXISTS (SELECT 1 FROM article_entities e WHERE e.article_id = a.article_id AND lower(e.type) = '${t}' AND lower(e.value) = '${v}')`;
    const cases: [Query, string][] = [
      [{ provocative: 'medium' }, `provocative = 'medium'`],
      [{ provocative: 'all' }, 'true'],
      [{ reporting_voice: ['Analytical', 'Investigative'] }, `reporting_voice IN ('Analytical', 'Investigative')`],
      [{ bad_domain_url: ['bbc.co.uk', 'cnn.com'] }, `NOT ${domainSql(['bbc.co.uk', 'cnn.com'])}`],
      [{ page_rank: 5 }, 'page_rank <= 5'],
      [{ string_guarantee: ['ukraine', 'russia'] }, `contains(${text}, 'ukraine') AND contains(${text}, 'russia')`],
      [{ string_guarantee: ['ukraine', 'russia'], string_guarantee_op: 'OR' }, `(contains(${text}, 'ukraine') OR contains(${text}, 'russia'))`],
      [{ reverse_string_guarantee: ['covid'] }, `NOT contains(${text}, 'covid')`],
      [{ entity_guarantee: ['Location:Ukraine', 'Location:Russia'] }, `(${entity('location', 'ukraine')} OR ${entity('location', 'russia')})`],
      [
        { entity_guarantee: ['Location:Ukraine', 'Location:Russia'], entity_guarantee_op: 'AND' },
        `${entity('location', 'ukraine')} AND ${entity('location', 'russia')}`,
      ],
      [{ countries_blacklist: ['US'] }, `country <> 'US'`],
      [{ continents: ['Europe', 'Middle East'] }, `continent IN ('Europe', 'Middle East')`],
    ];
    for (const [filters, where] of cases) {
      const got = await series(svc, { ...range, ...filters });
      expect(got, JSON.stringify(filters)).toEqual(await sqlSeries(svc, '1w', range.start_datetime, range.end_datetime, where));
      expect(total(got), JSON.stringify(filters)).toBeGreaterThan(0);
    }
  });
});

describe('bucket boundaries', () => {
  // an unaligned start and end, so every sampling's first and last buckets stick out of the range
  const from = '2022-06-29T07:13:21Z';
  const to = '2022-07-11T12:34:56Z';
  it.each(SAMPLINGS)('%s: aligned UTC buckets, contiguous, covering the range, equal to SQL', async (sampling) => {
    const items = await series(svc, { start_datetime: from, end_datetime: to, sampling });
    expect(items).toEqual(await sqlSeries(svc, sampling, from, to));
    const starts = items.map((i) => Date.parse(i.start));
    expect(starts[0]!).toBeLessThanOrEqual(Date.parse(from));
    expect(Date.parse(items[0]!.end)).toBeGreaterThan(Date.parse(from));
    expect(starts[starts.length - 1]!).toBeLessThan(Date.parse(to));
    expect(Date.parse(items[items.length - 1]!.end)).toBeGreaterThanOrEqual(Date.parse(to));
    items.forEach((item, i) => i > 0 && expect(item.start).toBe(items[i - 1]!.end));
    for (const d of starts.map((t) => new Date(t))) {
      if (sampling === '1w') expect([d.getUTCDay(), d.getUTCHours()]).toEqual([1, 0]);
      if (sampling === '1m') expect([d.getUTCDate(), d.getUTCHours()]).toEqual([1, 0]);
      if (sampling === '12h') expect([0, 12]).toContain(d.getUTCHours());
      if (sampling !== '5m') expect([d.getUTCMinutes(), d.getUTCSeconds()]).toEqual([0, 0]);
      else expect(d.getUTCMinutes() % 5).toBe(0);
    }
  });

  it('1m across December to January and a leap February; 1w across the new year', async () => {
    const months = await series(svc, { start_datetime: '2021-11-16T00:00:00Z', end_datetime: '2022-02-10T00:00:00Z', sampling: '1m' });
    expect(months.map((m) => m.start)).toEqual(['2021-11-01', '2021-12-01', '2022-01-01', '2022-02-01'].map((d) => `${d}T00:00:00.000Z`));
    expect(months).toEqual(await sqlSeries(svc, '1m', '2021-11-16T00:00:00Z', '2022-02-10T00:00:00Z'));
    const leap = await series(svc, { start_datetime: '2024-02-10T00:00:00Z', end_datetime: '2024-03-02T00:00:00Z', sampling: '1m' });
    expect(leap.map((m) => [m.start, m.end])).toEqual([
      ['2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
      ['2024-03-01T00:00:00.000Z', '2024-04-01T00:00:00.000Z'],
    ]);
    const weeks = await series(svc, { start_datetime: '2021-12-30T00:00:00Z', end_datetime: '2022-01-04T00:00:00Z', sampling: '1w' });
    expect(weeks.map((w) => w.start)).toEqual(['2021-12-27T00:00:00.000Z', '2022-01-03T00:00:00.000Z']);
    expect(weeks).toEqual(await sqlSeries(svc, '1w', '2021-12-30T00:00:00Z', '2022-01-04T00:00:00Z'));
  });

  it('the range is half-open: an end on a bucket boundary does not open the next bucket', async () => {
    const items = await series(svc, { start_datetime: '2022-07-01T00:00:00Z', end_datetime: '2022-07-03T00:00:00Z', sampling: '1d' });
    expect(items.map((i) => i.start)).toEqual(['2022-07-01T00:00:00.000Z', '2022-07-02T00:00:00.000Z']);
    // a time zone offset is honoured: 02:00+02:00 is midnight UTC
    const tz = await series(svc, { start_datetime: '2022-07-01T02:00:00+02:00', end_datetime: '2022-07-03T02:00:00+02:00', sampling: '1d' });
    expect(tz).toEqual(items);
  });
});

describe('defaults and empty ranges', () => {
  it('without a range: the last 30 days (1d, the default sampling) before the service clock, pub_date', async () => {
    const items = await series(svc, {});
    expect(items).toHaveLength(30);
    const last = items[items.length - 1]!;
    expect(Date.parse(last.start)).toBeLessThanOrEqual(NOW);
    expect(Date.parse(last.end)).toBeGreaterThan(NOW);
    expect(items).toEqual(await sqlSeries(svc, '1d', items[0]!.start, new Date(NOW).toISOString()));
    expect(await series(svc, { time_filter: 'pub_date', sampling: '1d' })).toEqual(items);
  });

  it('default bucket numbers per sampling; only start or only end given', async () => {
    const n: Record<string, number> = { '5m': 288, '1h': 168, '12h': 60, '1d': 30, '1w': 26, '1m': 12 };
    for (const sampling of SAMPLINGS) {
      const items = await series(svc, { sampling });
      expect(items, sampling).toHaveLength(n[sampling]!);
      // the range [.., now) is half-open: its last bucket holds the instant just before now
      expect(Date.parse(items[items.length - 1]!.start)).toBeLessThan(NOW);
      expect(Date.parse(items[items.length - 1]!.end)).toBeGreaterThanOrEqual(NOW);
      expect(items).toEqual(await sqlSeries(svc, sampling, items[0]!.start, new Date(NOW).toISOString()));
    }
    const onlyEnd = await series(svc, { end_datetime: '2022-07-01T00:00:00Z', sampling: '1d' });
    expect(onlyEnd.map((i) => i.start)).toEqual((await sqlSeries(svc, '1d', '2022-06-01T00:00:00Z', '2022-07-01T00:00:00Z')).map((i) => i.start));
    const onlyStart = await series(svc, { start_datetime: '2022-07-09T00:00:00Z', sampling: '1d' });
    expect(onlyStart).toEqual(await sqlSeries(svc, '1d', '2022-07-09T00:00:00Z', new Date(NOW).toISOString()));
  });

  it('start == end is an empty range; a range without articles has zero buckets', async () => {
    expect(await series(svc, { start_datetime: '2022-07-10T00:00:00Z', end_datetime: '2022-07-10T00:00:00Z' })).toEqual([]);
    const none = await series(svc, { start_datetime: '1999-01-01T00:00:00Z', end_datetime: '1999-01-08T00:00:00Z', sampling: '1d' });
    expect(none).toHaveLength(7);
    expect(none.every((i) => i.count === 0)).toBe(true);
    // a start after the service clock with no end: the range ends at now, so it is empty
    expect(await series(svc, { start_datetime: '2030-01-01T00:00:00Z' })).toEqual([]);
  });
});

describe('bad input is 422 naming the parameter', () => {
  const bad = async (q: Query) => {
    const r = await get(svc, q);
    expect(r.status, r.text).toBe(422);
    expect(r.body.code).toBe(422000);
    return r.body.detail as { loc: string[]; msg: string; type: string }[];
  };
  it('unknown sampling, time_filter, category (Economy is search-only), language; not a date-time', async () => {
    const cases: [string, string][] = [
      ['sampling', '2d'],
      ['time_filter', 'index_date'],
      ['categories', 'Economy'],
      ['languages', 'xx'],
      ['start_datetime', 'yesterday'],
      ['end_datetime', '2022-07-10'],
      ['countries', 'GBR'],
      ['page_rank', 'top'],
    ];
    for (const [name, value] of cases) {
      const d = await bad({ [name]: value });
      expect(d[0]!.loc.slice(0, 2), name).toEqual(['query', name]);
      expect(d[0]!.msg).toContain(name);
      expect(typeof d[0]!.type).toBe('string');
    }
  });
  it('end before start', async () => {
    const d = await bad({ start_datetime: '2022-07-10T00:00:00Z', end_datetime: '2022-07-09T00:00:00Z' });
    expect(d).toEqual([{ loc: ['query', 'end_datetime'], msg: expect.stringMatching(/end_datetime.*before start_datetime/), type: 'value_error' }]);
  });
  it('more than 10,000 buckets', async () => {
    const d = await bad({ start_datetime: '2022-01-01T00:00:00Z', end_datetime: '2022-07-01T00:00:00Z', sampling: '5m' });
    expect(d).toEqual([
      { loc: ['query', 'start_datetime'], msg: expect.stringMatching(/52128 buckets of 5m; at most 10000/), type: 'value_error.too_many_buckets' },
    ]);
    // the same range at 1h is fine
    expect(await series(svc, { start_datetime: '2022-01-01T00:00:00Z', end_datetime: '2022-07-01T00:00:00Z', sampling: '1h' })).toHaveLength(4344);
  });
});

describe('time_filter on replayed articles (crawl_date = release time, not publication time)', () => {
  const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
  const published = (JSON.parse(fs.readFileSync(fixture, 'utf8')) as { timestamp: number }[]).map((a) => a.timestamp * 1000).sort((a, b) => a - b);
  const T0 = Date.parse('2026-03-02T10:00:00Z');
  let now = T0;
  let replay: TestService;
  beforeAll(async () => {
    replay = await startTestService({ limitsText: 'news=1000:1000:50', clock: () => now });
    // 12x: one hour of publication time is released every 5 minutes of the service clock
    await replay.services.seeder!.seed(fixture, { replay: 12 });
    for (let step = 1; replay.services.news!.index.size < published.length; step++) {
      now = T0 + step * 15 * 60_000;
      const due = published.filter((p) => (p - published[0]!) / 12 <= now - T0).length;
      await waitUntil(() => replay.services.news!.index.size >= due, { what: `${due} articles released`, timeoutMs: 10_000, intervalMs: 25 });
      expect(replay.services.news!.index.size).toBe(due);
    }
  }, 60_000);
  afterAll(async () => replay?.stop());

  it('crawl_date counts by release time, pub_date by publication time; both equal SQL', async () => {
    const released = { start_datetime: new Date(T0).toISOString(), end_datetime: new Date(now + 60_000).toISOString(), sampling: '5m' };
    const byCrawl = await series(replay, { ...released, time_filter: 'crawl_date' });
    expect(byCrawl).toEqual(await sqlSeries(replay, '5m', released.start_datetime, released.end_datetime, 'true', 'crawl_date'));
    expect(total(byCrawl)).toBe(published.length);
    expect(byCrawl.filter((i) => i.count > 0).length).toBeGreaterThan(3); // released in several steps
    expect(total(await series(replay, { ...released, time_filter: 'pub_date' }))).toBe(0);
    const day = { start_datetime: '2026-01-01T00:00:00Z', end_datetime: '2026-01-02T00:00:00Z', sampling: '1h' };
    const byPub = await series(replay, day); // pub_date is the default
    expect(byPub).toEqual(await sqlSeries(replay, '1h', day.start_datetime, day.end_datetime));
    expect(total(byPub)).toBe(published.length);
    expect(total(await series(replay, { ...day, time_filter: 'crawl_date' }))).toBe(0);
  });
});
