/** Loading: idempotent seeds, rebased dates, replay feeding articles over time. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { search, sql } from '../../helpers/news.js';
import { waitUntil } from '../../helpers/wait-until.js';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});
const count = async (s: TestService, table: string) => Number((await sql<{ n: bigint }>(s, `SELECT count(*) AS n FROM ${table}`))[0]!.n);

describe('seeding', () => {
  it('loading twice gives the same articles (the second load enriches nothing)', async () => {
    svc = await startTestService({ limitsText: 'news=1000:1000:50' });
    const first = await svc.services.seeder!.seed(fixture);
    expect(first).toMatchObject({ read: 20, enriched: 20, inserted: 20, total: 20, indexed: 20 });
    const ids = (await sql<{ id: string }>(svc, 'SELECT article_id::VARCHAR AS id FROM articles ORDER BY 1')).map((r) => r.id);
    const postings = await count(svc, 'postings');
    const second = await svc.services.seeder!.seed(fixture);
    expect(second).toMatchObject({ read: 20, enriched: 0, unchanged: 20, total: 20 });
    expect((await sql<{ id: string }>(svc, 'SELECT article_id::VARCHAR AS id FROM articles ORDER BY 1')).map((r) => r.id)).toEqual(ids);
    expect(await count(svc, 'postings')).toBe(postings);
    expect(await count(svc, 'embeddings')).toBe(20);
    expect((await search(svc, { historical: true, n_articles: 101 })).dicts).toHaveLength(20);
  });

  it('--rebase-dates moves the newest article to now, keeping the spacing', async () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    svc = await startTestService({ limitsText: 'news=1000:1000:50', clock: () => now });
    await svc.services.seeder!.seed(fixture, { rebaseDates: true });
    const times = (await sql<{ ms: number }>(svc, 'SELECT epoch_ms(pub_date) AS ms FROM articles ORDER BY pub_date')).map((r) => Number(r.ms));
    expect(times[times.length - 1]).toBe(now);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(3_600_000);
    // so the default 48-hour window has news
    expect((await search(svc, { n_articles: 101 })).dicts).toHaveLength(20);
  });

  it('--replay releases articles in publication order over time, with crawl_date = release time', async () => {
    // the service clock moves in steps of STEP ms; each step releases what is due by then
    const STEP = 250;
    const t0 = Date.parse('2026-03-02T10:00:00Z');
    let now = t0;
    svc = await startTestService({ limitsText: 'news=1000:1000:50', clock: () => now });
    const published = (JSON.parse(fs.readFileSync(fixture, 'utf8')) as { timestamp: number }[]).map((a) => a.timestamp * 1000).sort((x, y) => x - y);
    // 19 hours of news at 36,000x: 1.9 s of the service clock
    const dueAt = (p: number) => t0 + (p - published[0]!) / 36_000;
    const due = () => published.filter((p) => dueAt(p) <= now).length;
    const r = await svc.services.seeder!.seed(fixture, { replay: 36_000 });
    expect(r.total).toBe(20);
    const news = svc.services.news!;
    await waitUntil(() => news.index.size >= due(), { what: 'the first articles released' });
    expect((await search(svc, { historical: true, n_articles: 101 })).dicts.length).toBe(due());
    expect(due()).toBeLessThan(20);
    const steps: number[] = [];
    while (news.index.size < 20) {
      now += STEP;
      steps.push(now);
      await waitUntil(() => news.index.size >= due(), { what: `the articles due by ${new Date(now).toISOString()} released` });
      expect(news.index.size).toBe(due());
    }
    expect((await search(svc, { historical: true, n_articles: 101 })).dicts.length).toBe(20);
    const rows = await sql<{ pub: number; crawl: number }>(
      svc,
      'SELECT epoch_ms(pub_date) AS pub, epoch_ms(crawl_date) AS crawl FROM articles ORDER BY pub_date',
    );
    expect(rows.map((x) => Number(x.pub))).toEqual(published);
    // each article was released at the first step of the clock at or after its due time: crawl_date is that time
    for (const x of rows) {
      const at = [t0, ...steps].find((t) => t >= dueAt(Number(x.pub)))!;
      expect(Number(x.crawl)).toBe(at);
    }
    expect(steps.length).toBeGreaterThan(4); // spread over the clock's steps, not released at once
  });

  it('a corpus path that does not exist is a clear error', async () => {
    svc = await startTestService({ limitsText: 'news=1000:1000:50' });
    await expect(svc.services.seeder!.seed('/nonexistent/corpus')).rejects.toThrow(/does not exist; point --corpus/);
  });
});

describe('rebased reloads', () => {
  it('move dates without enriching again', async () => {
    let now = Date.parse('2026-11-21T10:00:00Z');
    svc = await startTestService({ limitsText: 'news=1000:1000:50', clock: () => now });
    await svc.services.seeder!.seed(fixture, { rebaseDates: true });
    now += 86_400_000;
    const again = await svc.services.seeder!.seed(fixture, { rebaseDates: true });
    expect(again).toMatchObject({ enriched: 0, redated: 20, total: 20 });
    const newest = Number((await sql<{ ms: number }>(svc, 'SELECT max(epoch_ms(pub_date)) AS ms FROM articles'))[0]!.ms);
    expect(newest).toBe(now);
    // the index follows: the last 48 hours hold all 20 again
    expect((await search(svc, { n_articles: 101 })).dicts).toHaveLength(20);
  });
});
