/**
 * storyTracker on the real dev server against the real service. News arrives through replay
 * between two runs, so stories grow: the warehouse keeps one row per story and update (merged),
 * the update's articles as the API gave them, and one metrics row per story and run.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import type { StoryResponse } from '../../spec/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { holdFeed, releaseUntil, startHarness, type Harness } from '../helpers/pipeline.js';

const NS = 'nf-stories';
const FEED = path.join(repoRoot, 'test/fixtures/corpus/story-feed.json');
let svc: TestService;
let h: Harness;
let warehouse: Warehouse;
let temporal: Client;
let client: NewsClient;

beforeAll(async () => {
  svc = await startTestService({ limitsText: 'stories=1000:1000:50,news=1000:1000:50' });
  await holdFeed(svc, FEED);
  client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { stories: { rate: 500, burst: 100, concurrency: 10 } } });
  h = await startHarness({ namespace: NS, client });
  ({ warehouse, temporal } = h);
}, 180_000);
afterAll(async () => {
  await h?.stop();
  await svc?.stop();
});

const release = (left: number) => releaseUntil(svc, left);
const trackers = [
  { name: 'floods', query: 'Severn flooding', method: 'kw' as const, stories: 10, maxUpdates: 10, maxArticles: 25 },
  { name: 'latest', sort_by: 'published' as const, stories: 10, maxUpdates: 10, maxArticles: 25 },
];
const track = (runAt: string) =>
  temporal.workflow.execute('storyTracker', { taskQueue: TASK_QUEUES.stories, workflowId: `stories-${Date.now()}`, args: [{ trackers, runAt }] }) as Promise<{
    loadId: string;
    trackers: Record<string, { stories: number; updates: number; articles: number; inserted: number; updated: number }>;
  }>;
const n = async (sql: string) => Number((await warehouse.query<{ n: bigint }>(sql))[0]!.n);

describe('storyTracker', () => {
  it('two runs with news arriving between them: history rows per run, no duplicate stories or updates, growth in one query', async () => {
    await release(9);
    const r1 = await track('2026-01-01T10:00:00.000Z');
    expect(r1.trackers.floods!.stories).toBeGreaterThan(0);
    const storiesAfter1 = await n('SELECT count(*) AS n FROM stories');
    await release(0);
    const r2 = await track('2026-01-01T11:00:00.000Z');

    // what the API says now, fetched directly, equals what the second run landed
    const api: StoryResponse[] = [];
    for (const t of trackers) {
      const page = await client.getStories({
        query: t.query,
        method: t.method,
        sort_by: t.sort_by,
        limit: 10,
        expand_updates: true,
        max_updates: 10,
        max_articles: 25,
      });
      api.push(...page.stories);
    }
    const byId = new Map(api.map((s) => [s.uuid, s]));
    // no duplicates: keys are unique, and every story / update the API returned is there once
    expect(await n('SELECT count(*) - count(DISTINCT story_uuid) AS n FROM stories')).toBe(0);
    expect(await n('SELECT count(*) - count(DISTINCT update_uuid) AS n FROM story_updates')).toBe(0);
    expect(await n('SELECT count(*) - count(DISTINCT (update_uuid, article_id)) AS n FROM update_articles')).toBe(0);
    const landed = await warehouse.query<{ id: string; n_updates: number; n_articles: number }>(
      'SELECT story_uuid::VARCHAR AS id, n_updates, n_articles FROM stories',
    );
    for (const s of byId.values()) {
      const row = landed.find((x) => x.id === s.uuid);
      expect(row, s.uuid).toBeDefined();
      expect(Number(row!.n_updates)).toBe(s.n_updates);
      expect(Number(row!.n_articles)).toBe(s.n_articles.reduce((a, b) => a + b, 0));
      for (const u of s.updates) {
        const arts = await warehouse.query<{ id: string }>('SELECT article_id::VARCHAR AS id FROM update_articles WHERE update_uuid = $1::UUID', [u.uuid]);
        expect(arts.map((a) => a.id).sort()).toEqual(u.cluster_articles.map((a) => a.article_id).sort());
      }
    }
    expect(landed.length).toBeGreaterThanOrEqual(storiesAfter1);
    // history: one metrics row per story, tracker and run
    const perRun = await warehouse.query<{ run_at: Date; tracker: string; n: bigint }>(
      'SELECT run_at, tracker, count(*) AS n FROM story_metrics GROUP BY ALL ORDER BY run_at, tracker',
    );
    expect(perRun.map((r) => [new Date(r.run_at).toISOString(), r.tracker, Number(r.n)])).toEqual([
      ['2026-01-01T10:00:00.000Z', 'floods', r1.trackers.floods!.stories],
      ['2026-01-01T10:00:00.000Z', 'latest', r1.trackers.latest!.stories],
      ['2026-01-01T11:00:00.000Z', 'floods', r2.trackers.floods!.stories],
      ['2026-01-01T11:00:00.000Z', 'latest', r2.trackers.latest!.stories],
    ]);
    // the query of docs/warehouse.md: growth of coverage between the first and the last run of the window
    const growth = await warehouse.query<{ story_uuid: string; topic: string; first: number; last: number; growth: number }>(`
      WITH w AS (SELECT * FROM story_metrics WHERE run_at >= TIMESTAMP '2026-01-01 11:00:00' - INTERVAL 24 HOUR)
      SELECT s.story_uuid::VARCHAR AS story_uuid, s.topic, arg_min(w.coverage, w.run_at) AS first, arg_max(w.coverage, w.run_at) AS last,
             arg_max(w.coverage, w.run_at) - arg_min(w.coverage, w.run_at) AS growth
      FROM w JOIN stories s USING (story_uuid) GROUP BY ALL ORDER BY growth DESC, s.topic LIMIT 10`);
    expect(growth.length).toBeGreaterThan(0);
    expect(Number(growth[0]!.growth)).toBeGreaterThan(0);
    // the flood story gained articles between the runs; its latest coverage is what the API says now
    const severn = growth.find((g) => /Severn/.test(g.topic))!;
    expect(severn).toBeDefined();
    expect(Number(severn.first)).toBeLessThan(Number(severn.last));
    expect(Number(severn.last)).toBe(byId.get(severn.story_uuid)!.n_articles.reduce((a, b) => a + b, 0));
    expect(Number(severn.growth)).toBe(Number(severn.last) - Number(severn.first));
    // a third run over the same data changes no story and adds one history row per story
    const before = await n('SELECT count(*) AS n FROM story_metrics');
    const r3 = await track('2026-01-01T12:00:00.000Z');
    expect(r3.trackers.floods!.inserted + r3.trackers.latest!.inserted).toBe(0);
    expect(r3.trackers.floods!.updated + r3.trackers.latest!.updated).toBe(0);
    expect(await n('SELECT count(*) AS n FROM story_metrics')).toBe(before + r3.trackers.floods!.stories + r3.trackers.latest!.stories);
    expect(await n(`SELECT count(*) AS n FROM _loads WHERE pipeline = 'stories'`)).toBe(3);
  }, 180_000);
});
