/**
 * `newsflow trace LOAD_ID` on the real Temporal dev server: a news ingest of several pages, then
 * its trace: the `_loads` row (rows, API usage) beside the workflow run's activities from
 * Temporal's history, one ingestPage per page and the recordLoad after; a workflow id alone finds
 * the same load; an unknown id is one line naming the query that lists the loads.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NewsClient } from '../../../client/index.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';
import { traceLines, traceLoad, TraceError } from '../../../pipelines/run/trace.js';
import { openReader } from '../../../warehouse/read.js';
import { startCorpusService } from '../../helpers/news.js';
import { startHarness, type Harness } from '../../helpers/pipeline.js';
import type { TestService } from '../../helpers/service.js';

let svc: TestService;
let h: Harness;

beforeAll(async () => {
  svc = await startCorpusService();
  h = await startHarness({ namespace: 'nf-trace', client: new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org }) });
}, 180_000);
afterAll(async () => {
  await h?.stop();
  await svc?.stop();
});

describe('newsflow trace', () => {
  it("shows a load's rows and API usage beside its workflow's activities, one ingestPage per page", async () => {
    const r = (await h.temporal.workflow.execute('newsIngest', {
      taskQueue: TASK_QUEUES.news,
      workflowId: `trace-${Date.now()}`,
      args: [{ from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T12:00:00.000Z', pageSize: 40 }],
    })) as { loadId: string; pages: number; received: number };
    expect(r.pages).toBeGreaterThan(1);
    const reader = await openReader(h.whDir);
    const c = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-trace' });
    try {
      const rows = (sql: string) => reader.all(sql);
      const t = await traceLoad(c, rows, r.loadId);
      console.log(`newsflow trace ${r.loadId}:\n${traceLines(t)}`);
      expect(t.workflow).toMatchObject({ type: 'newsIngest', status: 'COMPLETED' });
      expect(Number(t.load.rows_received)).toBe(r.received);
      const pages = t.activities.filter((a) => a.type === 'ingestPage');
      expect(pages.length).toBe(r.pages);
      expect(pages.every((a) => a.result === 'completed' && a.attempts === 1 && a.ms !== null)).toBe(true);
      // the load's own counts, as _loads has them
      expect(traceLines(t)).toContain(`rows: ${r.received} received, ${Number(t.load.rows_inserted)} new`);
      expect(t.byType.find((b) => b.type === 'ingestPage')).toMatchObject({ calls: r.pages, retries: 0, failed: 0 });
      expect(t.activities.at(-1)!.type).toBe('recordLoad');
      // the workflow id alone names its newest load
      const byWorkflow = await traceLoad(c, rows, String(t.load.workflow_id));
      expect(byWorkflow.load.load_id).toBe(r.loadId);
      // without a server: the warehouse's part, and why there is no history
      const offline = await traceLoad(null, rows, r.loadId);
      expect(offline.activities).toEqual([]);
      expect(traceLines(offline)).toContain('history: no Temporal server to read the history from');
      await expect(traceLoad(c, rows, "nope'; DROP TABLE _loads; --")).rejects.toThrow(TraceError);
      await expect(traceLoad(c, rows, 'nope')).rejects.toThrow(/^no load nope in _loads; the newest: newsflow sql "SELECT load_id/);
      expect((await rows('SELECT count(*) AS n FROM _loads'))[0]!.n).toBeGreaterThan(0);
    } finally {
      reader.close();
      await c.connection.close();
    }
  }, 300_000);
});
