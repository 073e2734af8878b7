/**
 * walkDistribution, the activity of distributionPull's walk, on its own (no Temporal server): a
 * retried attempt resumes from its heartbeat details at the first page not known to be landed,
 * and a walk cut by its page budget goes on from the progress it returned; either way the
 * warehouse and `_loads` equal one uninterrupted walk.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { DistributionStore } from '../../service/store/distribution.js';
import { createDistributionActivities } from '../../activities/distribution-pull.js';
import { freshProgress, type WalkInput, type WalkResult } from '../../activities/distribution-walk.js';
import { startCorpusService } from '../helpers/news.js';
import { tempDir, type TestService } from '../helpers/service.js';

let svc: TestService;
let key: string;
const dirs: string[] = [];
beforeAll(async () => {
  svc = await startCorpusService();
  await new DistributionStore(svc.services.db).simulate({ months: 2, seed: 3, eventsPerDay: 200, now: new Date('2022-07-15T00:00:00Z') });
  await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com'] });
  key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
}, 180_000);
afterAll(async () => {
  await svc?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const june = { start: Date.parse('2022-06-01T00:00:00Z'), end: Date.parse('2022-07-01T00:00:00Z'), loadId: 'walk/w-june', index: 0 };
const input = (over: Partial<WalkInput> = {}): WalkInput => ({
  orgId: '',
  domains: ['reuters.com', 'apnews.com'],
  limit: 20,
  metric: 'surface',
  endpoints: ['top_n_for_domains', 'hit_share', 'metrics'],
  windows: [june],
  progress: freshProgress(),
  maxPages: 100,
  budgetMs: 60_000,
  load: { workflowId: 'walk', runId: 'r1', startedAt: '2022-07-15T00:00:00.000Z', windows: 1, coverage: true },
  ...over,
});

/** A warehouse of its own, a client counting its calls per operation, the activities over both. */
async function setup() {
  const dir = tempDir('newsflow-walk-');
  dirs.push(dir);
  const warehouse = await Warehouse.open(dir);
  const calls: Record<string, number> = {};
  const client = new NewsClient({
    baseUrl: svc.url,
    apiKey: key,
    onEvent: (e) => e.type === 'request' && (calls[e.operationId] = (calls[e.operationId] ?? 0) + 1),
  });
  const acts = createDistributionActivities({ client, warehouse });
  const walk = (i: WalkInput, details?: unknown) =>
    new MockActivityEnvironment(details === undefined ? {} : { heartbeatDetails: details }).run(acts.walkDistribution, i) as Promise<WalkResult>;
  const close = async () => {
    warehouse.close();
    await client.close();
  };
  return { warehouse, calls, walk, close };
}

/** What a walk left in the warehouse: rows per table (load columns included) and the window's `_loads` invariants. */
async function landed(warehouse: Warehouse) {
  const rows = async (t: string) =>
    (await warehouse.query(`SELECT * EXCLUDE (row_hash) FROM ${t} ORDER BY ALL`)).map((r) =>
      JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? Number(v) : v)),
    );
  const loads = await warehouse.query<{ load_id: string; rows_received: bigint; invariants: string }>(
    `SELECT load_id, rows_received, invariants FROM _loads ORDER BY load_id`,
  );
  return {
    top: await rows('distribution_top_articles'),
    pages: await rows('distribution_pages'),
    hitShare: await rows('distribution_hit_share'),
    metrics: await rows('distribution_metrics'),
    loads: loads.map((l) => ({ load_id: l.load_id, received: Number(l.rows_received), invariants: JSON.parse(String(l.invariants)) })),
  };
}

describe('walkDistribution', () => {
  it('a retried attempt resumes at the page after the last one its heartbeat says is landed, and lands what one walk lands', async () => {
    const whole = await setup();
    const r = await whole.walk(input());
    const expected = await landed(whole.warehouse);
    await whole.close();
    expect(r.windowsDone).toBe(1);
    expect(r.pages).toBeGreaterThanOrEqual(4);
    expect(expected.loads).toHaveLength(1);
    expect(expected.loads[0]!.invariants).toMatchObject({ pages: r.pages, pages_contiguous: true, sum_equals_total_count: true });

    // the first attempt landed the stats and pages 1-2, heartbeated that, and its worker died
    const retried = await setup();
    const first = await retried.walk(input({ maxPages: 2 }));
    expect(first).toMatchObject({ windowsDone: 0, pages: 2, progress: { page: 3, walked: [1, 2], statsDone: true } });
    const calls = { ...retried.calls };
    const second = await retried.walk(input(), { w: 0, progress: first.progress, pages: 2 });
    expect(retried.calls['top_n_articles_for_domains']! - calls['top_n_articles_for_domains']!).toBe(r.pages - 2);
    expect(retried.calls['domain_hit_share'] ?? 0).toBe(calls['domain_hit_share'] ?? 0);
    expect(second).toMatchObject({ windowsDone: 1, pages: r.pages });
    expect(await landed(retried.warehouse)).toEqual(expected);
    await retried.close();
  }, 120_000);

  it('a walk cut by its page budget goes on from the progress it returned: pages contiguous from 1, loads as one walk', async () => {
    const whole = await setup();
    await whole.walk(input());
    const expected = await landed(whole.warehouse);
    await whole.close();

    const cut = await setup();
    let progress = freshProgress();
    let orgId = '';
    let pages = 0;
    for (let calls = 0; calls < 20; calls++) {
      const r = await cut.walk(input({ orgId, progress, maxPages: 1 }));
      pages += r.pages;
      orgId = r.orgId;
      progress = r.progress;
      if (r.windowsDone === 1) break;
    }
    expect(pages).toBe(expected.loads[0]!.invariants.pages);
    expect(await landed(cut.warehouse)).toEqual(expected);
    await cut.close();
  }, 120_000);
});
