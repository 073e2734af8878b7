/**
 * `newsflow reprocess articles` after a row mapper changed: rows landed by a mapper with a bug (the
 * title upper-cased, no keywords) are rebuilt from their raw by today's mapper, with no request to
 * the API (the service's log of the key's requests), batch by batch (one lake snapshot each); every
 * row_hash then equals a fresh ingest's of the same responses, and `sql --at` reads the lake
 * before and after. Real service, real lake, the real CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NewsClient } from '../../client/index.js';
import { createNewsIngestActivities } from '../../activities/news-ingest.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { ARTICLES, articleBatch } from '../../warehouse/tables/articles.js';
import { tempDir } from '../helpers/service.js';
import { runCli } from '../helpers/cli.js';
import { startFooService, type FooService } from '../helpers/foo-service.js';
import type { SearchResponseDictItem } from '../../spec/index.js';

let svc: FooService;
let api: NewsClient;
beforeAll(async () => {
  svc = await startFooService();
  api = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { news: { rate: 500, burst: 100, concurrency: 10 } } });
}, 120_000);
afterAll(async () => svc?.stop());

const window = { from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T12:00:00.000Z' };
const search = async () =>
  (
    await api.searchNews({
      historical: true,
      time_filter: 'crawl_date',
      start_timestamp: Date.parse(window.from) / 1000,
      end_timestamp: Date.parse(window.to) / 1000,
      n_articles: 20,
      offset: 0,
      return_type: 'dicts',
    })
  ).as_dicts ?? [];

/** The mapper as a release with a bug had it: titles upper-cased, keywords lost. */
function buggyBatch(items: SearchResponseDictItem[]) {
  const b = articleBatch(items);
  for (const r of b.rows) r.title = String(r.title).toUpperCase();
  return { rows: b.rows, children: b.children.map((c) => (c.table.name === 'article_keywords' ? { ...c, rows: [] } : c)) };
}

const state = (w: Warehouse) =>
  w.query<{ id: string; title: string; row_hash: string; keywords: bigint }>(
    `SELECT a.article_id::VARCHAR AS id, a.title, a.row_hash, (SELECT count(*) FROM article_keywords k WHERE k.article_id = a.article_id) AS keywords
     FROM articles a ORDER BY id`,
  );
const sqlAt = async (dir: string, at: string, q: string) => {
  const r = await runCli(['sql', q, '--at', at, '--format', 'json', '--warehouse', dir]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Record<string, unknown>[];
};

describe('newsflow reprocess', () => {
  it('rebuilds the columns and child tables from raw with 0 API requests; row hashes equal a fresh ingest; sql --at shows before and after', async () => {
    // a fresh ingest of today's mapper (the real activity): the hashes to match
    const fresh = await Warehouse.open(tempDir('newsflow-fresh-'));
    await new MockActivityEnvironment().run(createNewsIngestActivities({ client: api, warehouse: fresh }).ingestPage, {
      loadId: 'fresh',
      query: '',
      filters: {},
      ...window,
      offset: 0,
      pageSize: 20,
    });
    const want = await state(fresh);
    fresh.close();
    expect(want).toHaveLength(20);

    // the same responses landed by the buggy mapper
    const dir = tempDir('newsflow-reprocess-');
    const w = await Warehouse.open(dir);
    const b = buggyBatch(await search());
    const started = new Date();
    const landed = await w.land(ARTICLES, b.rows, b.children, 'buggy-load');
    await w.recordLoad(
      { loadId: 'buggy-load', pipeline: 'news-ingest', kind: 'news-ingest', workflowId: null, runId: null, windowStart: null, windowEnd: null },
      landed,
      started,
    );
    const before = await state(w);
    w.close();
    expect(before.map((r) => r.id)).toEqual(want.map((r) => r.id));
    expect(before.filter((r, i) => r.row_hash === want[i]!.row_hash)).toEqual([]);

    const requestsBefore = svc.requestsOf('org');
    const allBefore = [...svc.requests.values()].reduce((a, b) => a + b, 0);
    const r = await runCli(['reprocess', 'articles', '--batch', '8', '--warehouse', dir]);
    console.log(`$ newsflow reprocess articles --batch 8\n${r.out}${r.err}`);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out.trim().split('\n').pop()!) as { loadId: string; rows: number; updated: number; batches: number; withoutRaw: number };
    expect(res).toMatchObject({ table: 'articles', rows: 20, updated: 20, batches: 3, withoutRaw: 0 });
    const requests = svc.requestsOf('org') - requestsBefore;
    console.log(`API requests of the key during reprocess: ${requests} (all keys: ${[...svc.requests.values()].reduce((a, b) => a + b, 0) - allBefore})`);
    expect(requests).toBe(0);
    expect([...svc.requests.values()].reduce((a, b) => a + b, 0)).toBe(allBefore);

    const after = await Warehouse.open(dir);
    try {
      // columns and children fixed; each row's hash is a fresh ingest's
      expect(await state(after)).toEqual(want);
      // one lake snapshot per batch, each tagged with the reprocess load
      const snaps = await after.query<{ n: bigint }>(
        `SELECT count(*) AS n FROM ducklake_snapshots('lake') WHERE commit_message = 'land articles ${res.loadId}'`,
      );
      expect(snaps).toEqual([{ n: 3n }]);
      // reprocessing again: every rebuilt row hashes as it is stored, nothing is written
      const again = await runCli(['reprocess', 'articles', '--warehouse', dir]);
      expect(JSON.parse(again.out.trim().split('\n').pop()!)).toMatchObject({ rows: 20, updated: 0 });
    } finally {
      after.close();
    }

    const q =
      'SELECT left(title, 40) AS title, (SELECT count(*) FROM article_keywords k WHERE k.article_id = a.article_id) AS keywords FROM articles a ORDER BY article_id LIMIT 3';
    const was = await sqlAt(dir, 'buggy-load', q);
    const now = await sqlAt(dir, res.loadId, q);
    console.log(`$ newsflow sql --at buggy-load "${q}"\n${JSON.stringify(was)}\n$ newsflow sql --at ${res.loadId} ...\n${JSON.stringify(now)}`);
    expect(was.map((x) => x.title)).toEqual(want.slice(0, 3).map((x) => x.title.slice(0, 40).toUpperCase()));
    expect(was.every((x) => x.keywords === 0)).toBe(true);
    expect(now.map((x) => x.title)).toEqual(want.slice(0, 3).map((x) => x.title.slice(0, 40)));
    expect(now.map((x) => x.keywords)).toEqual(want.slice(0, 3).map((x) => Number(x.keywords)));
  }, 240_000);

  it('a table without raw, or an unknown one, is one line saying which tables can be reprocessed; exit 1', async () => {
    const dir = tempDir('newsflow-reprocess-');
    (await Warehouse.open(dir)).close();
    const r = await runCli(['reprocess', 'alert_deliveries', '--warehouse', dir]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/table "alert_deliveries" cannot be reprocessed: it keeps no raw response; use one of articles, distribution_top_articles/);
  }, 60_000);
});
