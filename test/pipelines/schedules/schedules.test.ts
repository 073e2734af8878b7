/** `schedule apply` against the real dev server: idempotent, updates changed, removes undeclared. */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { applySchedules, listOurs, schedulesFromEnv, storyTrackerFromEnv, type ScheduleDecl } from '../../../pipelines/schedules/index.js';

let client: Client;
beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-schedules' });
});
afterAll(async () => {
  for (const s of await listOurs(client)) if (s.id.startsWith('test-')) await client.schedule.getHandle(s.id).delete();
});

const decl = (id: string, every: string): ScheduleDecl => ({
  id,
  description: 'test',
  workflowType: 'newsIngest',
  taskQueue: 'newsflow-test-none',
  spec: { intervals: [{ every }] },
  overlap: ScheduleOverlapPolicy.SKIP,
  catchupWindow: '1 hour',
  args: [{ pageSize: 10 }],
});

describe('schedule apply', () => {
  it('creates, leaves alone, updates and deletes to match the declaration', async () => {
    const a = decl('test-a', '15 minutes');
    const b = decl('test-b', '1 hour');
    expect(await applySchedules(client, [a, b])).toEqual({ created: ['test-a', 'test-b'], updated: [], deleted: [], unchanged: [] });
    expect(await applySchedules(client, [a, b])).toEqual({ created: [], updated: [], deleted: [], unchanged: ['test-a', 'test-b'] });
    // listing schedules is eventually consistent: let it catch up before asking apply to delete
    for (let i = 0; i < 100 && (await listOurs(client)).filter((s) => s.id.startsWith('test-')).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    const a2 = decl('test-a', '30 minutes');
    expect(await applySchedules(client, [a2])).toEqual({ created: [], updated: ['test-a'], deleted: ['test-b'], unchanged: [] });
    const d = await client.schedule.getHandle('test-a').describe();
    expect(d.spec.intervals?.[0]?.every).toBe(30 * 60 * 1000);
    expect((await listOurs(client)).map((s) => s.id).filter((id) => id.startsWith('test-'))).toEqual(['test-a']);
  });
  it('trigger starts a run now', async () => {
    const h = client.schedule.getHandle('test-a');
    await h.trigger();
    for (let i = 0; i < 50 && (await h.describe()).info.recentActions.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await h.describe()).info.recentActions.length).toBe(1);
  });
  it('backfill starts one run per interval of the range', async () => {
    const h = client.schedule.getHandle('test-a'); // every 30 minutes
    const before = (await h.describe()).info.numActionsTaken;
    await h.backfill({ start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-01-01T02:00:00Z'), overlap: ScheduleOverlapPolicy.ALLOW_ALL });
    let taken = before;
    for (let i = 0; i < 50 && taken < before + 4; i++) {
      await new Promise((r) => setTimeout(r, 100));
      taken = (await h.describe()).info.numActionsTaken;
    }
    expect(taken - before).toBeGreaterThanOrEqual(4);
  });
  it('declares news ingest every 15 minutes, skipping overlaps', () => {
    const n = schedulesFromEnv(process.env).find((s) => s.id === 'news-ingest-15m')!;
    expect(n.spec.intervals).toEqual([{ every: '15 minutes' }]);
    expect(n.overlap).toBe(ScheduleOverlapPolicy.SKIP);
  });
});

describe('story-tracker schedule', () => {
  it('hourly at :05 with NEWSFLOW_STORY_TRACKERS (default: top stories); 0 or a bad value declares none', async () => {
    const { storyTrackerSchedules } = await import('../../../pipelines/schedules/index.js');
    const [d] = storyTrackerSchedules(storyTrackerFromEnv({}));
    expect(d).toMatchObject({
      id: 'story-tracker-hourly',
      workflowType: 'storyTracker',
      taskQueue: 'newsflow-stories',
      spec: { cronExpressions: ['5 * * * *'] },
      args: [{}],
    });
    const custom = storyTrackerSchedules(storyTrackerFromEnv({ NEWSFLOW_STORY_TRACKERS: '[{"name":"ukraine","query":"Ukraine war","method":"both"}]' }));
    expect(custom[0]!.args).toEqual([{ trackers: [{ name: 'ukraine', query: 'Ukraine war', method: 'both' }] }]);
    expect(storyTrackerSchedules(storyTrackerFromEnv({ NEWSFLOW_STORY_TRACKERS: '0' }))).toEqual([]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(storyTrackerSchedules(storyTrackerFromEnv({ NEWSFLOW_STORY_TRACKERS: 'nope' }))).toEqual([]);
    expect(storyTrackerSchedules(storyTrackerFromEnv({ NEWSFLOW_STORY_TRACKERS: '[{"query":"no name"}]' }))).toEqual([]);
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/is not JSON/), expect.stringMatching(/with a "name"/)]);
    warn.mockRestore();
  });
});
