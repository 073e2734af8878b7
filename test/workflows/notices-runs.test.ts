/**
 * A failed run that recorded no load (the API refused the key: the run fails before its `_loads`
 * row) is a failed_run incident of the notices, found through Temporal's visibility (the runs a
 * pipeline's schedule started: TemporalScheduledById), on the Temporal CLI dev server: the run
 * fails, a round opens failed_run with the run's error; the next run of the schedule lands, a
 * round resolves it. The rounds' activities are called as the pipelineNotices workflow calls them.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createRecordLoadActivities } from '../../activities/record-load.js';
import { createNoticesActivities, type NoticesRoundInput } from '../../activities/notices.js';
import type { IngestPageResult } from '../../activities/news-ingest.js';
import { tempDir } from '../helpers/service.js';
import { waitUntil } from '../helpers/wait-until.js';

const require = createRequire(import.meta.url);
const NS = 'nf-notices';
const QUEUE = 'notices-runs';
const SCHEDULE = `notices-ukraine-${Date.now()}`;

let client: Client;
let warehouse: Warehouse;
let worker: Worker;
let running: Promise<void>;
/** the stand-in ingestPage: the API refusing the key, or a page */
let refuse = true;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const address = inject('temporalAddress');
  client = new Client({ connection: await Connection.connect({ address }), namespace: NS });
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    namespace: NS,
    taskQueue: QUEUE,
    workflowsPath: require.resolve('../../workflows/news-ingest.ts'),
    activities: {
      ...createRecordLoadActivities({ warehouse }),
      ingestPage: async (): Promise<IngestPageResult> => {
        if (refuse) throw ApplicationFailure.nonRetryable('HTTP 401 (code 401000): invalid, expired or revoked API key', 'ApiRejected');
        return { received: 3, inserted: 3, updated: 0, nextOffset: 3, done: true, ids: [] };
      },
    },
  });
  running = worker.run();
  await client.schedule.create({
    scheduleId: SCHEDULE,
    spec: { intervals: [{ every: '1 day' }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'newsIngest',
      taskQueue: QUEUE,
      args: [{ from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T00:00:00.000Z', pipeline: 'ukraine', pageSize: 100 }],
    },
    state: { paused: true },
  });
}, 120_000);

afterAll(async () => {
  await client?.schedule
    .getHandle(SCHEDULE)
    .delete()
    .catch(() => undefined);
  worker?.shutdown();
  await running;
  warehouse?.close();
});

/** Trigger the schedule and wait for its run to finish (and to be seen by visibility). */
async function triggerAndFinish(n: number): Promise<string> {
  await client.schedule.getHandle(SCHEDULE).trigger();
  return waitUntil(
    async () => {
      const seen = [];
      for await (const w of client.workflow.list({ query: `TemporalScheduledById = '${SCHEDULE}' AND ExecutionStatus != 'Running'` })) seen.push(w.status.name);
      return seen.length >= n ? seen[0] : null;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `run ${n} of ${SCHEDULE} finished` },
  );
}

describe('notices: a failed run found by visibility', () => {
  it('a run refused by the API (no load) opens failed_run with its error; the next run lands and resolves it', async () => {
    const a = createNoticesActivities({ warehouse, temporal: async () => client, smtpUrl: null });
    const input = (now: number): NoticesRoundInput => ({
      now,
      pipelines: [{ name: 'ukraine', errorAfterMs: 24 * 3_600_000, schedules: [SCHEDULE] }],
      notify: { webhook: { url: 'https://hooks.example.com/n' } },
    });
    expect(await triggerAndFinish(1)).toBe('FAILED');
    expect(await warehouse.query("SELECT load_id FROM _loads WHERE pipeline = 'ukraine'")).toEqual([]);
    const opened = await a.openAndResolveIncidents(input(Date.now()));
    expect(opened.opened).toEqual([expect.stringMatching(/^failed_run\/ukraine\//)]);
    const [row] = await warehouse.query<{ detail: string }>('SELECT detail FROM notices');
    console.log(`opened: ${opened.opened[0]}: ${row!.detail}`);
    expect(row!.detail).toMatch(/^pipeline ukraine: run failed: run notices-ukraine-\d+-\S+: HTTP 401 \(code 401000\): invalid, expired or revoked API key$/);
    expect(await a.openAndResolveIncidents(input(Date.now()))).toEqual({ opened: [], resolved: [] });

    refuse = false;
    expect(await triggerAndFinish(2)).toBe('COMPLETED');
    const resolved = await a.openAndResolveIncidents(input(Date.now()));
    expect(resolved).toEqual({ opened: [], resolved: opened.opened });
    const rows = await warehouse.query<Record<string, unknown>>('SELECT incident_id, event, status, detail FROM notices ORDER BY event_at, event DESC');
    for (const r of rows) console.log(`  ${JSON.stringify(r)}`);
    expect(rows.map((r) => r.event)).toEqual(['opened', 'resolved']);
  }, 180_000);
});
