/**
 * The feed poller's activities (activities/feed-poll.ts) over the 56 real feeds and sitemaps served
 * on loopback (test/helpers/feed-server.ts), revealing their items in three stages, into a real
 * service through its index_urls and a real warehouse. Time is the poller's `at`, moved past every
 * source's next poll between rounds.
 *
 * Proves: after the rounds every item is indexed exactly once (its page where its link resolves,
 * else the feed's own fields); an unchanged feed gets a 304 and costs nothing downstream; a
 * robots.txt disallow is honoured; a truncated feed and one in the wrong encoding fail in
 * source_polls while the others go on, and are flagged after a day of failing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { FeedPoller, type BatchResult } from '../../activities/feed-poll.js';
import { normaliseUrl } from '../../service/indexing/canonical.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';

let server: FeedServer;
let svc: TestService;
let warehouse: Warehouse;
let client: NewsClient;
let poller: FeedPoller;
const HOUR = 3_600_000;
const at0 = Date.now();
const rounds: { at: number; result: BatchResult; jobsBefore: number; jobsAfter: number }[] = [];
const brokenNames = ['private-guardian', 'broken-truncated', 'broken-utf16'];

const jobs = async () => Number((await svc.services.db.all<{ n: bigint }>('SELECT count(*) AS n FROM url_jobs'))[0]!.n);
const idle = () =>
  waitUntil(
    async () => svc.services.web!.indexer.pending === 0 && (await svc.services.db.all(`SELECT 1 FROM url_jobs WHERE finished_at IS NULL`)).length === 0,
    { timeoutMs: 900_000, intervalMs: 250 },
  );

/** One round of the poller at `at`: every due batch. */
async function round(at: number): Promise<void> {
  const jobsBefore = await jobs();
  const { batches } = await poller.due({ at, limit: 10_000 });
  const total: BatchResult = { polled: 0, ok: 0, notModified: 0, failed: 0, deferred: 0, fresh: 0, sent: 0, calls: 0, skipped: 0 };
  for (const [i, sources] of batches.entries()) {
    const r = await poller.pollBatch({ batchId: `test/${at}/${i}`, at, sources });
    for (const k of Object.keys(total) as (keyof BatchResult)[]) total[k] += r[k];
  }
  await idle();
  rounds.push({ at, result: total, jobsBefore, jobsAfter: await jobs() });
}

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startFeedServer({ stages: 3, extras: true });
  svc = await startTestService({ limitsText: 'news=1000:1000:100' });
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org! });
  poller = new FeedPoller({ client, warehouse, delayMs: 0, fetch: { policy: parseFetchAllow('127.0.0.1') } });
  const decls = [
    ...server.feeds.map((f) => ({ source: f.file.replace(/[/.]/g, '-'), url: f.url })),
    { source: 'private-guardian', url: server.extras.private! },
    { source: 'broken-truncated', url: server.extras.truncated! },
    { source: 'broken-utf16', url: server.extras.utf16! },
    { source: 'misdeclared-oren', url: server.extras.misdeclared! },
  ].map((d) => ({ ...d, language: null, tags: [], pollIntervalS: null }));
  await poller.store.declare(decls, 'file', at0, { replace: true });
  for (const [k, at] of [
    [1, at0],
    [2, at0 + 7 * HOUR],
    [3, at0 + 14 * HOUR],
    // unchanged since the last round
    [3, at0 + 21 * HOUR],
  ] as const) {
    server.reveal(k);
    await round(at);
  }
}, 1_800_000);

afterAll(async () => {
  await poller?.close();
  warehouse?.close();
  await client?.close();
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

describe('polling the 56 real feeds in stages', () => {
  it('indexes every item exactly once: its page where the link resolves, else what the feed says of it', async () => {
    for (const r of rounds) console.log(`round at +${(r.at - at0) / HOUR} h: ${JSON.stringify(r.result)}; index_urls jobs ${r.jobsAfter - r.jobsBefore}`);
    // every URL of every feed, once (the misdeclared copy of oren.ru lists oren.ru's URLs)
    const items = server.feeds.flatMap((f) => f.items);
    const indexable = new Map<string, { title: string; page: boolean }>();
    for (const i of items)
      if (i.url) indexable.set(normaliseUrl(i.url)!, { title: i.title || indexable.get(normaliseUrl(i.url)!)?.title || '', page: server.pages.has(i.url) });
    const expected = [...indexable].filter(([, v]) => v.title || v.page).map(([u]) => u);
    const untitled = [...indexable].filter(([, v]) => !v.title && !v.page).map(([u]) => u);
    const rows = await svc.services.db.all<{ u: string; n: bigint }>(`SELECT article_url AS u, count(*) AS n FROM articles WHERE source = 'web' GROUP BY 1`);
    const got = new Map(rows.map((r) => [r.u, Number(r.n)]));
    const missing = expected.filter((u) => !got.has(u));
    console.log(
      `indexable URLs ${indexable.size}: ${expected.length} with a title or a page, ${untitled.length} sitemap URLs with neither; articles ${got.size}; missing ${missing.length}`,
    );
    expect(missing).toEqual([]);
    expect([...got].filter(([, n]) => n > 1)).toEqual([]);
    expect(got.size).toBe(expected.length);
    // a URL went to index_urls once, whatever the number of feeds that list it
    const sent = await svc.services.db.all<{ u: string; n: bigint }>(`SELECT url AS u, count(*) AS n FROM url_job_items GROUP BY 1 HAVING count(*) > 1`);
    expect(sent).toEqual([]);
    // a sitemap URL with no title and a dead page is sent, and recorded as failed by its job (not lost)
    const failed = await svc.services.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM url_job_items WHERE status = 'failed'`);
    expect(Number(failed[0]!.n)).toBe(untitled.length);
  });

  it('indexes items whose links resolve from their pages, the others from the feed, flagged', async () => {
    const byReason = await svc.services.db.all<{ r: string | null; n: bigint }>(
      `SELECT reason AS r, count(*) AS n FROM url_job_items WHERE status = 'indexed' GROUP BY 1 ORDER BY 1`,
    );
    console.log(`indexed by reason: ${JSON.stringify(byReason.map((x) => [x.r, Number(x.n)]))}`);
    const fromPages = Number(byReason.find((x) => x.r === null)?.n ?? 0);
    expect(fromPages).toBe(server.pages.size);
    const [page] = [...server.pages.keys()];
    const [a] = await svc.services.db.all<{ t: string | null }>('SELECT full_text AS t FROM articles WHERE article_url = $1', [normaliseUrl(page!)]);
    expect(a!.t!.length).toBeGreaterThan(500);
  });

  it('gets a 304 from every unchanged feed and sends nothing for it', async () => {
    const last = rounds.at(-1)!;
    expect(last.result).toMatchObject({ fresh: 0, sent: 0, calls: 0 });
    expect(last.jobsAfter).toBe(last.jobsBefore);
    const polls = await warehouse.query<{ status: string; n: bigint }>(
      `SELECT status, count(*) AS n FROM source_polls WHERE starts_with(poll_id, $1) GROUP BY 1 ORDER BY 1`,
      [`test/${last.at}/`],
    );
    const by = Object.fromEntries(polls.map((p) => [p.status, Number(p.n)]));
    // every served feed and the misdeclared copy: 304 (the broken and the disallowed ones fail)
    expect(by.not_modified).toBe(server.feeds.length + 1);
    for (const f of server.feeds) expect(server.notModified.get(f.path) ?? 0, f.file).toBeGreaterThanOrEqual(1);
  });

  it('never requests a feed robots.txt disallows, and says so in its health', async () => {
    expect(server.count('/private/guardian.rss')).toBe(0);
    const [row] = await poller.store.get(['private-guardian']);
    expect(row).toMatchObject({ status: 'failing', failuresInRow: rounds.length });
    expect(row!.lastError).toMatch(/^robots: robots.txt disallows \/private\/guardian.rss/);
  });

  it('records a truncated feed and one in the wrong encoding as failed while the others go on', async () => {
    const polls = await warehouse.query<{ source: string; status: string; reason: string; http_status: number }>(
      `SELECT source, status, reason, http_status FROM source_polls WHERE source IN ('broken-truncated', 'broken-utf16') ORDER BY source, started_at`,
    );
    expect(polls).toHaveLength(2 * rounds.length);
    for (const p of polls) expect(p).toMatchObject({ status: 'failed', reason: 'not_well_formed', http_status: 200 });
    const all = await poller.store.all();
    const healthy = all.filter((s) => !brokenNames.includes(s.source));
    expect(healthy.map((s) => [s.source, s.status]).filter(([, st]) => st !== 'ok')).toEqual([]);
    expect(all.find((s) => s.source === 'misdeclared-oren')!.itemsSeen).toBe(10);
  });

  it('flags a source that has failed for a day, and keeps polling it', async () => {
    await round(at0 + 25 * HOUR);
    const [row] = await poller.store.get(['broken-truncated']);
    expect(row).toMatchObject({ status: 'flagged', failingSince: at0 });
    expect(row!.nextPollAt).toBeGreaterThan(at0 + 25 * HOUR);
  });
});
