/**
 * `newsflow status`'s freshness from the project file: a pipeline's `freshness:` bounds (else the
 * schedule's: warn 2, error 3 periods) turn its lag into fresh, warn (late, exit 0) and error
 * (stale, exit 2); a load whose checks failed does not make a pipeline fresh. `_loads` is a real
 * warehouse read as the command reads it; the Temporal side is a stand-in whose schedules have
 * started no run yet (the real server's side: status.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { openReader, type Reader } from '../../../warehouse/read.js';
import { parseProjectFile } from '../../../pipelines/config/index.js';
import { declareSchedules } from '../../../pipelines/schedules/index.js';
import { projectStatus, statusLines } from '../../../pipelines/run/status.js';
import { tempDir } from '../../helpers/service.js';

const M = 60_000;
const decls = declareSchedules(
  parseProjectFile(
    [
      'pipelines:',
      '  - { name: tight, kind: news, schedule: { every: 1h }, freshness: { warn_after: 30m, error_after: 90m } }',
      '  - { name: loose, kind: news, schedule: { every: 1h } }',
      '  - { name: checked, kind: news, schedule: { every: 1h }, checks: { min_rows: 1 } }',
      '',
    ].join('\n'),
    'newsflow.yaml',
    {},
  ).pipelines,
);

let t0: number;
let reader: Reader;
/** Temporal as the status reads it: every schedule there, active, created at t0, no run started yet. */
const temporal = () =>
  ({
    schedule: {
      getHandle: () => ({
        describe: async () => ({ info: { recentActions: [], createdAt: new Date(t0), nextActionTimes: [] }, state: { paused: false } }),
      }),
    },
    workflow: { getHandle: () => ({ describe: async () => null }) },
  }) as unknown as Client;

beforeAll(async () => {
  const dir = tempDir('newsflow-wh-');
  const w = await Warehouse.open(dir);
  const load = (pipeline: string, loadId: string, received: number, checks?: Parameters<Warehouse['recordLoad']>[4]) =>
    w.recordLoad(
      { loadId, pipeline, kind: 'news', workflowId: loadId, runId: 'r', windowStart: null, windowEnd: null },
      { received, inserted: received, updated: 0 },
      new Date(),
      {},
      checks,
    );
  t0 = Date.now();
  await load('tight', 'tight-1', 10);
  await load('loose', 'loose-1', 10);
  await load('checked', 'checked-good', 3, { results: [{ check: 'min_rows', ok: true, detail: '3 rows >= 1' }], failed: null });
  // the newer load failed its check: the good one before it is the last successful load
  await load('checked', 'checked-empty', 0, {
    results: [{ check: 'min_rows', ok: false, detail: '0 rows < 1' }],
    failed: 'check min_rows failed for pipeline checked: 0 rows < 1',
  });
  w.close();
  reader = await openReader(dir);
}, 120_000);
afterAll(() => reader?.close());

const at = (minutes: number) => projectStatus(temporal(), decls, (sql) => reader.all(sql), t0 + minutes * M);

describe('newsflow status: freshness', () => {
  it('the file bounds (30m, 90m) against the schedule ones (2h, 3h): fresh, warn, error; exit 2 only past an error_after', async () => {
    const r45 = await at(45);
    expect(r45.pipelines.map((p) => [p.pipeline, p.freshnessFrom, p.warnAfterMs! / M, p.errorAfterMs! / M, p.freshness, p.health])).toEqual([
      ['tight', 'file', 30, 90, 'warn', 'late'],
      ['loose', 'schedule', 120, 180, 'fresh', 'ok'],
      ['checked', 'schedule', 120, 180, 'fresh', 'ok'],
    ]);
    expect(r45.exitCode).toBe(0);
    const r100 = await at(100);
    expect(r100.pipelines.map((p) => [p.freshness, p.health])).toEqual([
      ['error', 'stale'],
      ['fresh', 'ok'],
      ['fresh', 'ok'],
    ]);
    expect(r100.exitCode).toBe(2);
    const text = statusLines(r100);
    console.log(`newsflow status, 100 minutes after the loads:\n${text}`);
    expect(text).toMatch(/^tight +tight +active +STALE .* 1\.7h \/ 30m \/ 1\.5h \(file\) +ERROR +0$/m);
    expect(text).toMatch(/^loose +loose +active +OK .* 1\.7h \/ 2\.0h \/ 3\.0h +fresh +0$/m);
    expect(text).toMatch(/exit 2$/);
    const r150 = await at(150);
    expect(r150.pipelines.map((p) => p.freshness)).toEqual(['error', 'warn', 'warn']);
    const r200 = await at(200);
    expect(r200.pipelines.map((p) => p.health)).toEqual(['stale', 'stale', 'stale']);
  });

  it('a load whose checks failed is not the last load: the good one before it is', async () => {
    const r = await at(0);
    expect(r.pipelines[2]!.lastLoad).toMatchObject({ loadId: 'checked-good', rows: 3 });
  });
});
