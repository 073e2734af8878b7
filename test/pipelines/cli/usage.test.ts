/** `newsflow usage`: API usage per pipeline from _loads, over a real lake. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { sinceTime } from '../../../pipelines/run/usage.js';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';

let dir: string;
beforeAll(async () => {
  dir = tempDir('newsflow-usage-');
  const w = await Warehouse.open(dir);
  const usage: Record<string, { apiRequests: number; retries: number; http429: number; credits: number }> = {
    'wf-a1': { apiRequests: 3, retries: 0, http429: 0, credits: 3 },
    'wf-a2': { apiRequests: 5, retries: 2, http429: 2, credits: 0.75 },
    'wf-b1': { apiRequests: 12, retries: 1, http429: 1, credits: 22 },
    'wf-m1': { apiRequests: 0, retries: 0, http429: 0, credits: 0 },
  };
  w.setUsageSource((m) => (m.workflowId ? usage[m.workflowId] : undefined));
  const meta = (loadId: string, pipeline: string, workflowId: string | null, kind = 'news-ingest') => ({
    loadId,
    pipeline,
    kind,
    workflowId,
    runId: null,
    windowStart: null,
    windowEnd: null,
  });
  await w.recordLoad(meta('a1', 'morning', 'wf-a1'), { received: 75, inserted: 70, updated: 5 }, new Date());
  await w.recordLoad(meta('a2', 'morning', 'wf-a2'), { received: 10, inserted: 0, updated: 1 }, new Date());
  await w.recordLoad(meta('b1', 'evening', 'wf-b1'), { received: 300, inserted: 300, updated: 0 }, new Date());
  // a load recorded without usage (a writer that does not count it): NULLs, shown as uncounted
  await w.recordLoad(meta('c1', 'evening', null), { received: 1, inserted: 1, updated: 0 }, new Date());
  // lake maintenance records its live data files before and after, not rows: no rows in usage
  await w.recordLoad(meta('m1', 'maintenance', 'wf-m1', 'maintenance'), { received: 1801, inserted: 16, updated: 0 }, new Date());
  w.close();
}, 120_000);

describe('newsflow usage', () => {
  it('groups the loads of the period by pipeline: requests, retries, 429s, credits; the costliest first', async () => {
    const r = await runCli(['usage', '--since', '1d', '--warehouse', dir, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out);
    expect(rows.map((x: { pipeline: string }) => x.pipeline)).toEqual(['evening', 'morning', 'maintenance']);
    expect(rows[0]).toMatchObject({ pipeline: 'evening', loads: 2, rows: 301, api_requests: 12, retries: 1, http_429: 1, credits: 22, uncounted: 1 });
    expect(rows[1]).toMatchObject({ pipeline: 'morning', loads: 2, rows: 76, api_requests: 8, retries: 2, http_429: 2, credits: 3.75, uncounted: 0 });
    expect(rows[2]).toMatchObject({ pipeline: 'maintenance', kind: 'maintenance', loads: 1, rows: null, api_requests: 0, uncounted: 0 });
    const t = await runCli(['usage', '--since', '1d', '--warehouse', dir]);
    console.log(`newsflow usage --since 1d:\n${t.out}`);
    expect(t.out).toMatch(/^maintenance\s+maintenance\s+1\s+-\s+0\s+0\s+0\s+0\s/m);
    expect(t.out).toMatch(/^total\s+5\s+377\s+20\s+3\s+3\s+25\.75$/m);
    expect(t.out).toContain('1 load(s) recorded without API usage');
  });

  it('refuses a --since it cannot read with one line that says what it takes; a period with no loads is an empty table', async () => {
    const bad = await runCli(['usage', '--since', 'last week', '--warehouse', dir]);
    expect(bad.code).not.toBe(0);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/--since "last week": give a duration \(30m, 12h, 7d, 2w\) or an ISO date/);
    expect(sinceTime('2w', 14 * 86_400_000).getTime()).toBe(0);
    const future = await runCli(['usage', '--since', '2999-01-01', '--warehouse', dir, '--json']);
    expect(JSON.parse(future.out)).toEqual([]);
  });
});
