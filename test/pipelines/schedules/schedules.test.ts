/** Planning and applying schedules against the real dev server: idempotent, updates what changed (and says what), removes what is no longer declared. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { applyPlan, applySchedules, changedFields, declareSchedules, listOurs, planSchedules, type ScheduleDecl } from '../../../pipelines/schedules/index.js';
import { parseProjectFile } from '../../../pipelines/config/index.js';
import { waitUntil } from '../../helpers/wait-until.js';

let client: Client;
beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-schedules' });
});
afterAll(async () => {
  for (const s of await listOurs(client)) if (s.id.startsWith('test-')) await client.schedule.getHandle(s.id).delete();
});
const ours = (prefix: string) => (id: string) => id.startsWith(prefix);
const listed = async (prefix: string) => (await listOurs(client, ours(prefix))).map((s) => s.id).sort();

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
    const scope = ours('test-');
    const a = decl('test-a', '15 minutes');
    const b = decl('test-b', '1 hour');
    expect(await applySchedules(client, [a, b], scope)).toEqual({ created: ['test-a', 'test-b'], updated: [], deleted: [], unchanged: [] });
    expect(await applySchedules(client, [a, b], scope)).toEqual({ created: [], updated: [], deleted: [], unchanged: ['test-a', 'test-b'] });
    // listing schedules is eventually consistent: let it catch up before asking apply to delete
    await waitUntil(async () => (await listed('test-')).length >= 2, { what: 'both schedules listed' });
    const a2 = decl('test-a', '30 minutes');
    expect(await applySchedules(client, [a2], scope)).toEqual({ created: [], updated: ['test-a'], deleted: ['test-b'], unchanged: [] });
    const d = await client.schedule.getHandle('test-a').describe();
    expect(d.spec.intervals?.[0]?.every).toBe(30 * 60 * 1000);
    await waitUntil(async () => (await listed('test-')).join() === 'test-a', { what: 'test-b gone from the listing' });
  });
  it('trigger starts a run now', async () => {
    const h = client.schedule.getHandle('test-a');
    await h.trigger();
    await waitUntil(async () => (await h.describe()).info.recentActions.length === 1, { what: 'one recent action' });
  });
  it('backfill starts one run per interval of the range', async () => {
    const h = client.schedule.getHandle('test-a'); // every 30 minutes
    const before = (await h.describe()).info.numActionsTaken;
    await h.backfill({ start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-01-01T02:00:00Z'), overlap: ScheduleOverlapPolicy.ALLOW_ALL });
    await waitUntil(async () => (await h.describe()).info.numActionsTaken >= before + 4, { what: 'four backfilled runs' });
  });
});

describe('the plan of a project file', () => {
  const file = (query: string, withCovid = true) =>
    parseProjectFile(
      `
pipelines:
  - { name: test-plan-ukraine, kind: news, query: "${query}", schedule: { every: 15m } }
${withCovid ? '  - { name: test-plan-covid, kind: news, query: covid, filters: { languages: [en] } }' : ''}
  - { name: test-plan-counts, kind: index-counts, samplings: [1d] }
`,
      'newsflow.yaml',
      {},
    );
  const scope = ours('test-plan-');

  it('after one query is edited: exactly one update naming the changed argument, and the server unchanged until applied', async () => {
    const first = declareSchedules(file('Ukraine').pipelines);
    const created = await planSchedules(client, first, scope);
    expect(created.create.map((d) => d.id)).toEqual(['test-plan-ukraine', 'test-plan-covid', 'test-plan-counts-1d']);
    await applyPlan(client, created);

    const edited = declareSchedules(file('Ukraine war').pipelines);
    const plan = await planSchedules(client, edited, scope);
    expect(plan.create).toEqual([]);
    expect(plan.delete).toEqual([]);
    expect(plan.unchanged.sort()).toEqual(['test-plan-counts-1d', 'test-plan-covid']);
    expect(plan.update.map((u) => [u.decl.id, u.changes])).toEqual([['test-plan-ukraine', ['args[0].query: "Ukraine" -> "Ukraine war"']]]);
    // a plan changes nothing
    const before = await client.schedule.getHandle('test-plan-ukraine').describe();
    expect((before.action as { args: { query: string }[] }).args[0]!.query).toBe('Ukraine');

    expect(await applyPlan(client, plan)).toEqual({ created: [], updated: ['test-plan-ukraine'], deleted: [], unchanged: plan.unchanged });
    const after = await client.schedule.getHandle('test-plan-ukraine').describe();
    expect((after.action as { args: { query: string }[] }).args[0]!.query).toBe('Ukraine war');
    expect((await planSchedules(client, edited, scope)).unchanged).toHaveLength(3);
  });

  it('a pipeline removed from the file: its schedule is deleted on the next apply', async () => {
    await waitUntil(async () => (await listed('test-plan-')).length === 3, { what: 'the three plan schedules listed' });
    const plan = await planSchedules(client, declareSchedules(file('Ukraine war', false).pipelines), scope);
    expect(plan.delete).toEqual(['test-plan-covid']);
    expect(plan.update).toEqual([]);
    await applyPlan(client, plan);
    await waitUntil(async () => (await listed('test-plan-')).join() === 'test-plan-counts-1d,test-plan-ukraine', { what: 'test-plan-covid gone' });
  });

  it('changedFields names each changed leaf, and what was added or removed', () => {
    expect(changedFields({ args: [{ q: 'a', n: 1 }], spec: { x: [1] } }, { args: [{ q: 'b', n: 1, f: { l: ['en'] } }], spec: { x: [2] } })).toEqual([
      'args[0].f: (none) -> {"l":["en"]}',
      'args[0].q: "a" -> "b"',
      'spec.x: [1] -> [2]',
    ]);
  });
});
