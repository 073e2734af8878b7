/** Index-count schedules: one per sampling from NEWSFLOW_INDEX_COUNT_SAMPLINGS, accepted by the real dev server and aligned in UTC. */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { indexCountSchedules, indexCountsFromEnv, schedulesFromEnv } from '../../../pipelines/schedules/index.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';

describe('declared index-count schedules', () => {
  it('default: hourly and daily over every domain, on the news queue, skipping overlaps', () => {
    const d = indexCountSchedules(indexCountsFromEnv({}));
    expect(d.map((s) => s.id)).toEqual(['index-counts-1h', 'index-counts-1d']);
    expect(d.map((s) => s.spec.cronExpressions)).toEqual([['0 * * * *'], ['0 0 * * *']]);
    expect(d.map((s) => s.args)).toEqual([[{ sampling: '1h' }], [{ sampling: '1d' }]]);
    for (const s of d) expect(s).toMatchObject({ workflowType: 'indexCountSampler', taskQueue: TASK_QUEUES.news, overlap: ScheduleOverlapPolicy.SKIP });
    // what the process declares without the variable
    if (process.env.NEWSFLOW_INDEX_COUNT_SAMPLINGS === undefined)
      expect(schedulesFromEnv(process.env).filter((s) => s.workflowType === 'indexCountSampler')).toEqual(d);
  });
  it('NEWSFLOW_INDEX_COUNT_SAMPLINGS chooses the samplings (unknown ones reported), empty turns them off; NEWSFLOW_INDEX_COUNT_DOMAINS the series', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const d = indexCountSchedules(
      indexCountsFromEnv({ NEWSFLOW_INDEX_COUNT_SAMPLINGS: ' 1m, 5m ,2d,1w,12h', NEWSFLOW_INDEX_COUNT_DOMAINS: 'reuters.com, cnn.com' }),
    );
    expect(d.map((s) => s.id)).toEqual(['index-counts-5m', 'index-counts-12h', 'index-counts-1w', 'index-counts-1m']);
    expect(d.map((s) => s.spec.cronExpressions![0])).toEqual(['*/5 * * * *', '0 0,12 * * *', '0 0 * * 1', '0 0 1 * *']);
    expect(d[0]!.args).toEqual([{ sampling: '5m', domains: ['reuters.com', 'cnn.com'] }]);
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/unknown sampling 2d left out/)]);
    warn.mockRestore();
    expect(indexCountSchedules(indexCountsFromEnv({ NEWSFLOW_INDEX_COUNT_SAMPLINGS: '' }))).toEqual([]);
  });
});

describe('on the dev server', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-schedules' });
  });
  const ids: string[] = [];
  afterAll(async () => {
    for (const id of ids) await client.schedule.getHandle(id).delete();
  });
  it("accepts every sampling's cron; the next runs fall on UTC bucket starts", async () => {
    const all = indexCountSchedules(indexCountsFromEnv({ NEWSFLOW_INDEX_COUNT_SAMPLINGS: '5m,1h,12h,1d,1w,1m' })).map((d) => ({
      ...d,
      id: `test-counts-${d.id}`,
      taskQueue: 'newsflow-test-none',
    }));
    // created one by one, without our memo: apply would delete other test files' schedules on the shared server
    for (const d of all) {
      ids.push(d.id);
      await client.schedule.create({
        scheduleId: d.id,
        spec: d.spec,
        policies: { overlap: d.overlap, catchupWindow: d.catchupWindow },
        action: { type: 'startWorkflow', workflowType: d.workflowType, taskQueue: d.taskQueue, args: d.args, workflowId: `${d.id}-run` },
      });
    }
    for (const d of all) {
      const next = (await client.schedule.getHandle(d.id).describe()).info.nextActionTimes.slice(0, 3);
      expect(next.length, d.id).toBeGreaterThan(0);
      for (const t of next) {
        expect(t.getUTCSeconds()).toBe(0);
        if (d.id.endsWith('-5m')) expect(t.getUTCMinutes() % 5).toBe(0);
        else expect(t.getUTCMinutes()).toBe(0);
        if (d.id.endsWith('-12h')) expect([0, 12]).toContain(t.getUTCHours());
        if (d.id.endsWith('-1d') || d.id.endsWith('-1w') || d.id.endsWith('-1m')) expect(t.getUTCHours()).toBe(0);
        if (d.id.endsWith('-1w')) expect(t.getUTCDay()).toBe(1);
        if (d.id.endsWith('-1m')) expect(t.getUTCDate()).toBe(1);
      }
    }
  });
});
