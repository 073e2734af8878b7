/** distributionPull on the real dev server: a 6-month walk lands exactly what the service holds. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { parseLimits } from '../../spec/index.js';
import { DistributionStore } from '../../service/store/distribution.js';
import { startCorpusService, sql } from '../helpers/news.js';
import { type TestService } from '../helpers/service.js';
import { startHarness, type Harness } from '../helpers/pipeline.js';

let svc: TestService;
let warehouse: Warehouse;
let h: Harness;
let temporal: Client;
let api: NewsClient;
const limits = 'distribution=20:5:2,news=1000:1000:50';
const responses: number[] = [];

beforeAll(async () => {
  svc = await startCorpusService({ limitsText: limits });
  await new DistributionStore(svc.services.db).simulate({ months: 7, seed: 1, eventsPerDay: 400, now: new Date('2022-07-15T00:00:00Z') });
  await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com'] });
  const key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
  api = new NewsClient({
    baseUrl: svc.url,
    apiKey: key,
    limits: parseLimits(limits),
    onEvent: (e) => e.type === 'response' && e.operationId.startsWith('top_n') && responses.push(e.status),
  });
  h = await startHarness({ namespace: 'nf-distribution', client: api, limits: parseLimits(limits) });
  ({ warehouse, temporal } = h);
}, 180_000);
afterAll(async () => {
  await h?.stop();
  await svc?.stop();
});

describe('distributionPull', () => {
  it('walks 6 months page by page and lands exactly what the service store holds, with 0 responses 429', async () => {
    const from = '2022-01-01T00:00:00.000Z';
    const to = '2022-07-01T00:00:00.000Z';
    const r = (await temporal.workflow.execute('distributionPull', {
      taskQueue: TASK_QUEUES.distribution,
      workflowId: `dist-${Date.now()}`,
      args: [{ domains: ['reuters.com', 'apnews.com', 'not-ours.com'], from, to, pageSize: 20 }],
    })) as { windows: number; pages: number };
    expect(r.windows).toBe(6);
    expect(r.pages).toBeGreaterThanOrEqual(30);
    expect(responses.filter((s) => s === 429)).toEqual([]);
    // the service store, queried directly: surface hits per (month, article) on the owned domains
    const expected = await sql<{ m: string; id: string; n: bigint }>(
      svc,
      `SELECT strftime(ts, '%Y-%m') AS m, article_id::VARCHAR AS id, count(*) AS n FROM hit_events
      WHERE kind = 'surface' AND ts >= TIMESTAMP '2022-01-01' AND ts < TIMESTAMP '2022-07-01' AND (domain IN ('reuters.com', 'apnews.com') OR domain LIKE '%.reuters.com' OR domain LIKE '%.apnews.com')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const landed = await warehouse.query<{ m: string; id: string; n: bigint }>(
      `SELECT strftime(window_start, '%Y-%m') AS m, article_id AS id, hit_count AS n FROM distribution_top_articles ORDER BY 1, 2`,
    );
    expect(landed.map((x) => `${x.m} ${x.id} ${Number(x.n)}`)).toEqual(expected.map((x) => `${x.m} ${x.id} ${Number(x.n)}`));
    // invariants: pages contiguous from 1 per window, sum = total_count per page
    const pages = await warehouse.query<{ m: string; pages: number[]; ok: boolean }>(
      `SELECT strftime(window_start, '%Y-%m') AS m, list(page ORDER BY page) AS pages, bool_and(sum_hit_count = total_count) AS ok FROM distribution_pages GROUP BY 1 ORDER BY 1`,
    );
    expect(pages).toHaveLength(6);
    for (const p of pages) {
      expect(p.ok).toBe(true);
      expect(p.pages).toEqual(Array.from({ length: p.pages.length }, (_, i) => i + 1));
    }
    const loads = await warehouse.query<{ invariants: string }>(`SELECT invariants FROM _loads WHERE pipeline = 'distribution' ORDER BY window_start`);
    expect(loads).toHaveLength(6);
    for (const l of loads)
      expect(JSON.parse(String(l.invariants))).toMatchObject({ pages_contiguous: true, sum_equals_total_count: true, windows_cover_range_once: true });
    const metrics = await warehouse.query<{ s: bigint }>(`SELECT sum(surfaces) AS s FROM distribution_metrics`);
    expect(Number(metrics[0]!.s)).toBe(expected.reduce((s, x) => s + Number(x.n), 0));
    expect(Number((await warehouse.query<{ n: bigint }>('SELECT count(*) AS n FROM distribution_hit_share'))[0]!.n)).toBe(12);
  }, 300_000);
});
