/**
 * The worker's metrics of a load's checks: a load whose checks failed counts in
 * newsflow_check_failures_total (per failed check) and is no success
 * (newsflow_pipeline_last_success_timestamp_seconds keeps the last good load's time, at start
 * from `_loads` too); a replay of the same load counts nothing again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse, type LoadChecksRecord } from '../../../warehouse/warehouse.js';
import { WorkerMetrics } from '../../../pipelines/worker/metrics.js';
import { tempDir } from '../../helpers/service.js';

let dir: string;
let w: Warehouse;
const record = (loadId: string, received: number, checks?: LoadChecksRecord) =>
  w.recordLoad(
    { loadId, pipeline: 'ukraine', kind: 'news', workflowId: loadId, runId: 'r', windowStart: null, windowEnd: null },
    { received, inserted: received, updated: 0 },
    new Date(),
    {},
    checks,
  );
const failed: LoadChecksRecord = {
  results: [
    { check: 'min_rows', ok: false, detail: '0 rows < 1' },
    { check: 'invariants', ok: true, detail: '1 held' },
  ],
  failed: 'check min_rows failed for pipeline ukraine: 0 rows < 1',
};
/** a sample's value from the text format, by its name and labels as printed */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
const LAST = 'newsflow_pipeline_last_success_timestamp_seconds{pipeline="ukraine",kind="news"}';
const FAILS = 'newsflow_check_failures_total{pipeline="ukraine",kind="news",check="min_rows"}';

beforeAll(async () => {
  dir = tempDir('newsflow-wh-');
  w = await Warehouse.open(dir);
}, 120_000);
afterAll(() => w?.close());

describe('worker metrics: checks', () => {
  it('a failed check counts per check and is no success; a replay counts nothing; at start the last good load is read', async () => {
    const m = new WorkerMetrics({ processMetrics: false });
    const stop = await m.watch(w);
    await record('good', 5, { results: [{ check: 'min_rows', ok: true, detail: '5 rows >= 1' }], failed: null });
    const t1 = sample(await m.registry.metrics(), LAST);
    expect(t1).toBeGreaterThan(0);
    expect(sample(await m.registry.metrics(), FAILS)).toBeUndefined();
    await record('empty', 0, failed);
    await record('empty', 0, failed); // the same load again (an activity's retry): no change, not told
    const text = await m.registry.metrics();
    console.log(
      text
        .split('\n')
        .filter((l) => l.startsWith('newsflow_check_failures_total') || l.startsWith(LAST.split('{')[0]!))
        .join('\n'),
    );
    expect(sample(text, FAILS)).toBe(1);
    expect(sample(text, 'newsflow_check_failures_total{pipeline="ukraine",kind="news",check="invariants"}')).toBeUndefined();
    expect(sample(text, LAST)).toBe(t1);
    stop();
    // a worker starting on this warehouse: the last success is the good load's, not the failed one's
    const [good] = await w.query<{ at: number }>(`SELECT epoch(finished_at) AS at FROM _loads WHERE load_id = 'good'`);
    const again = new WorkerMetrics({ processMetrics: false });
    const stop2 = await again.watch(w);
    expect(sample(await again.registry.metrics(), LAST)).toBeCloseTo(Number(good!.at), 3);
    stop2();
  });
});
