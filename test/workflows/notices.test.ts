/**
 * Notices (the project file's `notify:`, workflows/notices.ts) on Temporal's time-skipping test
 * server (test/helpers/time-skipping.ts): a news pipeline (the real newsIngest workflow, its pages
 * from a stand-in ingestPage, its `_loads` rows from the real recordLoad into a real warehouse)
 * runs on its own worker; the notices' rounds (pipelineNotices) run on another worker, as the
 * schedule would start them, and POST to a local webhook receiver through postWebhook (the fetch
 * policy of this file's activities allows 127.0.0.1).
 *
 * The pipeline lands, then its worker is stopped and time passes error_after: exactly one
 * "opened" notice arrives; later rounds send nothing more; a worker lands again: exactly one
 * "resolved" notice follows, with the same incident id; more rounds send nothing. A failed run
 * (a check failed) opens a failed_run incident (Slack’s `{text}` body) that a passing run resolves. A
 * receiver that fails a notice once gets its retry with the same Idempotency-Key.
 * The ledger rows are printed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createRecordLoadActivities } from '../../activities/record-load.js';
import { createNoticesActivities, type NotifyConfig } from '../../activities/notices.js';
import type { IngestPageResult } from '../../activities/news-ingest.js';
import type { NewsIngestInput } from '../../workflows/news-ingest.js';
import type { PipelineNoticesInput, PipelineNoticesResult } from '../../workflows/notices.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { tempDir } from '../helpers/service.js';
import { startTimeSkipping } from '../helpers/time-skipping.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';

const require = createRequire(import.meta.url);
const PIPELINE_QUEUE = 'notices-test-pipeline';
const NOTICES_QUEUE = 'notices-test';
const MIN = 60_000;
const H = 60 * MIN;

let env: TestWorkflowEnvironment;
let warehouse: Warehouse;
/**
 * A plain client: waiting for a run's result does not unlock time skipping (the env's own client
 * does, and the server then skipped years at a run's end), so time moves only by env.sleep.
 */
let client: Client;
let noticeWorkers: Worker[] = [];
let noticesRunning: Promise<unknown>;
/** what the receiver accepted: the Idempotency-Key and the body of each POST it answered 200 */
const got: { key: string; body: Record<string, unknown> }[] = [];
/** the POSTs it answers 503 before accepting again, and the keys of those */
let failNext = 0;
const refusedKeys: string[] = [];
let receiver: http.Server;
let hookUrl: string;
/** the stand-in ingestPage's answer, per pipeline */
const pages = new Map<string, IngestPageResult>();

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  receiver = http.createServer((req, res) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      if (failNext > 0) {
        failNext--;
        refusedKeys.push(key);
        res.writeHead(503).end('busy');
        return;
      }
      got.push({ key, body: JSON.parse(b) as Record<string, unknown> });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/newsflow`;
  env = await startTimeSkipping();
  client = new Client({ connection: env.connection });
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  const activities = { ...createNoticesActivities({ warehouse, smtpUrl: null, webhookFetch: { policy: parseFetchAllow('127.0.0.1') } }) };
  noticeWorkers = [
    await Worker.create({
      connection: env.nativeConnection,
      taskQueue: NOTICES_QUEUE,
      workflowsPath: require.resolve('../../workflows/notices.ts'),
      activities,
    }),
    await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUES.deliveries, activities }),
  ];
  noticesRunning = Promise.all(noticeWorkers.map((w) => w.run()));
}, 300_000);

afterAll(async () => {
  for (const w of noticeWorkers) w.shutdown();
  await noticesRunning;
  warehouse?.close();
  await env?.teardown();
  receiver?.close();
});

/** The pipeline's worker: newsIngest with a stand-in ingestPage and the real recordLoad. */
const pipelineWorker = () =>
  Worker.create({
    connection: env.nativeConnection,
    taskQueue: PIPELINE_QUEUE,
    workflowsPath: require.resolve('../../workflows/news-ingest.ts'),
    activities: { ...createRecordLoadActivities({ warehouse }), ingestPage: async (input: { pipeline?: string }) => pages.get(input.pipeline!)! },
  });
const GOOD: IngestPageResult = { received: 5, inserted: 5, updated: 0, nextOffset: 5, done: true, ids: [] };
const window = { from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T00:00:00.000Z' };
/** One run of the pipeline (on its worker, which must be running); resolves with how it ended. */
const land = (pipeline: string, checks?: NewsIngestInput['checks']) =>
  client.workflow
    .execute('newsIngest', {
      taskQueue: PIPELINE_QUEUE,
      workflowId: `notices-${pipeline}-${Math.random()}`,
      args: [{ ...window, pipeline, pageSize: 100, ...(checks ? { checks } : {}) } satisfies NewsIngestInput],
    })
    .then(
      () => 'completed',
      () => 'failed',
    );
/** One round of the notices, as its schedule would start it. */
const round = (input: PipelineNoticesInput) =>
  client.workflow.execute('pipelineNotices', {
    taskQueue: NOTICES_QUEUE,
    workflowId: `notices-round-${Math.random()}`,
    args: [input],
  }) as Promise<PipelineNoticesResult>;

const ledger = async (subject: string) =>
  (
    await warehouse.query<Record<string, unknown>>(
      `SELECT incident_id, incident, event, strftime(event_at, '%Y-%m-%dT%H:%M:%SZ') AS event_at, channel, target, idempotency_key, status, attempts, response_code, detail
       FROM notices WHERE subject = '${subject}' ORDER BY event_at, event DESC`,
    )
  ).map((r): Record<string, unknown> => ({ ...r, attempts: Number(r.attempts), response_code: r.response_code === null ? null : Number(r.response_code) }));
const print = (title: string, rows: Record<string, unknown>[]) => {
  console.log(`${title} (${rows.length} rows):`);
  for (const r of rows) console.log(`  ${JSON.stringify(r)}`);
};

describe('notices on the time-skipping server', () => {
  it('a pipeline whose worker stopped past error_after: exactly one opened notice; one resolved notice after it lands again; nothing more', async () => {
    const notify: NotifyConfig = { webhook: { url: hookUrl, format: 'json' } };
    const input: PipelineNoticesInput = { pipelines: [{ name: 'ukraine', errorAfterMs: H }], notify };
    pages.set('ukraine', GOOD);
    let w = await pipelineWorker();
    expect(await w.runUntil(land('ukraine'))).toBe('completed');
    // the pipeline's worker stops: nothing lands from here on
    expect(await round(input)).toMatchObject({ opened: [], resolved: [], delivered: 0 });
    await env.sleep(30 * MIN);
    expect(await round(input)).toMatchObject({ opened: [], resolved: [], delivered: 0 });
    expect(got).toHaveLength(0);

    await env.sleep(40 * MIN); // 70 minutes since the load, error_after 1h
    const opened = await round(input);
    expect(opened).toMatchObject({ opened: [expect.stringMatching(/^stale\/ukraine\//)], resolved: [], delivered: 1, pending: 0 });
    const id = opened.opened[0]!;
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ key: `${id}.opened`, body: { incident_id: id, incident: 'stale', subject: 'ukraine', event: 'opened' } });
    expect(String(got[0]!.body.detail)).toMatch(/^pipeline ukraine: no successful load for 1h 1\dm \(error_after 1h; last at /);

    // more rounds while it stays stale: no second notice
    for (const skip of [MIN, 10 * MIN, 2 * H]) {
      await env.sleep(skip);
      expect(await round(input)).toMatchObject({ opened: [], resolved: [], delivered: 0 });
    }
    expect(got).toHaveLength(1);

    // a worker lands again: the incident resolves, one notice
    w = await pipelineWorker();
    expect(await w.runUntil(land('ukraine'))).toBe('completed');
    expect(await round(input)).toMatchObject({ opened: [], resolved: [id], delivered: 1 });
    expect(got).toHaveLength(2);
    expect(got[1]).toMatchObject({
      key: `${id}.resolved`,
      body: { incident_id: id, event: 'resolved', detail: expect.stringMatching(/^pipeline ukraine: a load landed at /) },
    });
    for (const skip of [MIN, 20 * MIN]) {
      await env.sleep(skip);
      expect(await round(input)).toMatchObject({ opened: [], resolved: [], delivered: 0 });
    }
    expect(got.map((g) => g.key)).toEqual([`${id}.opened`, `${id}.resolved`]);

    const rows = await ledger('ukraine');
    print('notices ledger, pipeline ukraine', rows);
    expect(rows.map((r) => [r.incident_id, r.event, r.channel, r.target, r.idempotency_key, r.status, r.attempts, r.response_code])).toEqual([
      [id, 'opened', 'webhook', hookUrl, `${id}.opened`, 'delivered', 1, 200],
      [id, 'resolved', 'webhook', hookUrl, `${id}.resolved`, 'delivered', 1, 200],
    ]);
  }, 300_000);

  it('a failed run (a check failed) opens failed_run, in Slack’s {text} body; a passing run resolves it', async () => {
    got.length = 0;
    const input: PipelineNoticesInput = { pipelines: [{ name: 'covid', errorAfterMs: 24 * H }], notify: { webhook: { url: hookUrl, format: 'slack' } } };
    const w = await pipelineWorker();
    await w.runUntil(async () => {
      pages.set('covid', GOOD);
      expect(await land('covid')).toBe('completed');
      pages.set('covid', { ...GOOD, received: 0, inserted: 0, nextOffset: 0 });
      expect(await land('covid', { min_rows: 1, invariants: 'record' })).toBe('failed');
      const opened = await round(input);
      expect(opened).toMatchObject({ opened: [expect.stringMatching(/^failed_run\/covid\//)], delivered: 1 });
      const id = opened.opened[0]!;
      expect(got).toEqual([
        {
          key: `${id}.opened`,
          body: { text: '[newsflow] OPENED failed_run: pipeline covid: run failed: check min_rows failed for pipeline covid: 0 rows < 1' },
        },
      ]);
      await env.sleep(5 * MIN);
      expect(await round(input)).toMatchObject({ opened: [], resolved: [], delivered: 0 });
      pages.set('covid', GOOD);
      expect(await land('covid', { min_rows: 1, invariants: 'record' })).toBe('completed');
      expect(await round(input)).toMatchObject({ opened: [], resolved: [id], delivered: 1 });
      expect(await round(input)).toMatchObject({ opened: [], resolved: [], delivered: 0 });
      expect(got.map((g) => g.key)).toEqual([`${id}.opened`, `${id}.resolved`]);
      expect(String(got[1]!.body.text)).toMatch(/^\[newsflow\] RESOLVED failed_run: pipeline covid: a run passed \(load at /);
      print('notices ledger, pipeline covid', await ledger('covid'));
    });
  }, 300_000);

  it('a receiver that fails a notice once: the retry carries the same Idempotency-Key, one notice accepted, the ledger counts 2 attempts', async () => {
    got.length = 0;
    const input: PipelineNoticesInput = { pipelines: [{ name: 'chips', errorAfterMs: H }], notify: { webhook: { url: hookUrl } } };
    pages.set('chips', GOOD);
    const w = await pipelineWorker();
    expect(await w.runUntil(land('chips'))).toBe('completed');
    await env.sleep(H + 5 * MIN);
    failNext = 1;
    const r = await round(input);
    expect(r).toMatchObject({ opened: [expect.stringMatching(/^stale\/chips\//)], delivered: 1, pending: 0 });
    const id = r.opened[0]!;
    expect(refusedKeys).toEqual([`${id}.opened`]);
    expect(got.map((g) => g.key)).toEqual([`${id}.opened`]);
    expect(await round(input)).toMatchObject({ opened: [], delivered: 0 });
    const rows = await ledger('chips');
    print('notices ledger, pipeline chips', rows);
    expect(rows).toMatchObject([{ incident_id: id, event: 'opened', status: 'delivered', attempts: 2, response_code: 200 }]);
  }, 300_000);
});
