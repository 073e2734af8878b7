/**
 * A pipeline's checks (the project file's `checks:`, workflows/checks.ts) on the real newsIngest
 * workflow, on Temporal's time-skipping test server (test/helpers/time-skipping.ts): its pages come
 * from a stand-in ingestPage, its `_loads` row from the real recordLoad into a real warehouse. A
 * load under min_rows, and one whose invariant rows_equal_offset is false with `invariants:
 * enforce`, end the run (which has a retry policy of 3 attempts) FAILED after one attempt with a non-retryable CheckFailed naming the check;
 * the `_loads` row records it. The same checks on a good load pass.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createRecordLoadActivities } from '../../activities/record-load.js';
import type { IngestPageInput, IngestPageResult } from '../../activities/news-ingest.js';
import type { NewsIngestInput, NewsIngestResult } from '../../workflows/news-ingest.js';
import { tempDir } from '../helpers/service.js';
import { startTimeSkipping } from '../helpers/time-skipping.js';

const require = createRequire(import.meta.url);
const QUEUE = 'checks-test';

let env: TestWorkflowEnvironment;
let warehouse: Warehouse;
let worker: Worker;
let running: Promise<void>;
/** what the stand-in ingestPage answers per run (by pipeline), and how often it was asked */
const pages = new Map<string, IngestPageResult>();
const asked = new Map<string, number>();

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  env = await startTimeSkipping();
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: QUEUE,
    workflowsPath: require.resolve('../../workflows/news-ingest.ts'),
    activities: {
      ...createRecordLoadActivities({ warehouse }),
      ingestPage: async (input: IngestPageInput): Promise<IngestPageResult> => {
        const p = input.pipeline!;
        asked.set(p, (asked.get(p) ?? 0) + 1);
        return pages.get(p)!;
      },
    },
  });
  running = worker.run();
}, 300_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  warehouse?.close();
  await env?.teardown();
});

const window = { from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T00:00:00.000Z' };
const run = (pipeline: string, checks: NewsIngestInput['checks']) =>
  env.client.workflow.execute('newsIngest', {
    taskQueue: QUEUE,
    workflowId: `checks-${pipeline}-${Date.now()}`,
    // a retry policy on the run: only a non-retryable failure ends it after one attempt
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
    args: [{ ...window, pipeline, pageSize: 100, checks } satisfies NewsIngestInput],
  }) as Promise<NewsIngestResult>;
const loadOf = async (pipeline: string) => {
  const rows = await warehouse.query<{ rows_received: bigint; invariants: string; checks: string | null; check_failed: string | null }>(
    `SELECT rows_received, invariants, checks, check_failed FROM _loads WHERE pipeline = '${pipeline}'`,
  );
  expect(rows).toHaveLength(1);
  const r = rows[0]!;
  return {
    received: Number(r.rows_received),
    invariants: JSON.parse(r.invariants),
    checks: r.checks === null ? null : JSON.parse(r.checks),
    failed: r.check_failed,
  };
};
/** The run's failure: the workflow's own ApplicationFailure (no ActivityFailure around it). */
const failureOf = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(WorkflowFailedError);
  const cause = (e as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
};

describe('checks on a run', () => {
  it('min_rows: a load of 0 rows under min_rows 1 fails the run non-retryable, naming the check; _loads records it', async () => {
    pages.set('ukraine', { received: 0, inserted: 0, updated: 0, nextOffset: 0, done: true, ids: [] });
    const f = await failureOf(run('ukraine', { min_rows: 1, invariants: 'record' }));
    console.log(`min_rows run: ${f.type} nonRetryable=${f.nonRetryable}: ${f.message}`);
    expect(f).toMatchObject({ type: 'CheckFailed', nonRetryable: true, message: 'check min_rows failed for pipeline ukraine: 0 rows < 1' });
    expect(asked.get('ukraine')).toBe(1);
    const load = await loadOf('ukraine');
    console.log(`_loads of ukraine: ${JSON.stringify(load)}`);
    expect(load).toMatchObject({
      received: 0,
      failed: 'check min_rows failed for pipeline ukraine: 0 rows < 1',
      checks: [{ check: 'min_rows', ok: false, detail: '0 rows < 1' }],
    });
  });

  it('invariants: enforce: rows_equal_offset false (5 rows received, the offset moved 4) fails the run non-retryable, naming the invariant', async () => {
    pages.set('covid', { received: 5, inserted: 5, updated: 0, nextOffset: 4, done: true, ids: [] });
    const f = await failureOf(run('covid', { min_rows: 1, invariants: 'enforce' }));
    console.log(`invariants run: ${f.type} nonRetryable=${f.nonRetryable}: ${f.message}`);
    expect(f).toMatchObject({ type: 'CheckFailed', nonRetryable: true, message: 'check invariants failed for pipeline covid: rows_equal_offset is false' });
    expect(asked.get('covid')).toBe(1);
    const load = await loadOf('covid');
    expect(load.invariants).toMatchObject({ rows_equal_offset: false });
    expect(load).toMatchObject({
      received: 5,
      failed: 'check invariants failed for pipeline covid: rows_equal_offset is false',
      checks: [
        { check: 'min_rows', ok: true, detail: '5 rows >= 1' },
        { check: 'invariants', ok: false, detail: 'rows_equal_offset is false' },
      ],
    });
  });

  it('the same checks on a good load pass: the run completes, _loads records them passed', async () => {
    pages.set('chips', { received: 5, inserted: 5, updated: 0, nextOffset: 5, done: true, ids: [] });
    const r = await run('chips', { min_rows: 5, invariants: 'enforce' });
    expect(r).toMatchObject({ received: 5, pages: 1 });
    const load = await loadOf('chips');
    expect(load).toMatchObject({
      failed: null,
      checks: [
        { check: 'min_rows', ok: true, detail: '5 rows >= 5' },
        { check: 'invariants', ok: true, detail: '2 held' },
      ],
    });
  });
});
