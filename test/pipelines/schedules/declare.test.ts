/** The schedules of a project: one per named pipeline (index-counts: one per sampling), with each kind's defaults; accepted by the real dev server. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { declareSchedules } from '../../../pipelines/schedules/index.js';
import { parseProjectFile, STARTER_FILE } from '../../../pipelines/config/index.js';
import { scheduledNeeds } from '../../../pipelines/run/preflight.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';

const project = (yaml: string) => parseProjectFile(yaml, 'newsflow.yaml', {});

describe('declared schedules', () => {
  it('the starter file: two news pipelines at their own cadence, top stories hourly, index counts per sampling, the alert sync, lake maintenance daily', () => {
    const d = declareSchedules(project(STARTER_FILE).pipelines);
    expect(d.map((s) => [s.id, s.workflowType, s.taskQueue])).toEqual([
      ['ukraine', 'newsIngest', TASK_QUEUES.news],
      ['covid', 'newsIngest', TASK_QUEUES.news],
      ['top-stories', 'storyTracker', TASK_QUEUES.stories],
      ['counts-1h', 'indexCountSampler', TASK_QUEUES.news],
      ['counts-1d', 'indexCountSampler', TASK_QUEUES.news],
      ['alerts', 'alertSync', TASK_QUEUES.alerts],
      ['maintenance', 'lakeMaintenance', TASK_QUEUES.maintenance],
    ]);
    const [ukraine, covid, stories, h1, d1, alerts, maintenance] = d;
    expect(ukraine).toMatchObject({
      spec: { intervals: [{ every: 15 * 60_000 }] },
      catchupWindow: '1h',
      overlap: ScheduleOverlapPolicy.SKIP,
      pipeline: 'ukraine',
    });
    expect(ukraine!.args).toEqual([{ pipeline: 'ukraine', query: 'Ukraine', filters: {}, windowMs: 3_600_000, pageSize: 100 }]);
    expect(covid!.args).toEqual([{ pipeline: 'covid', query: 'covid', filters: { languages: ['en'] }, windowMs: 3_600_000, pageSize: 100 }]);
    expect(covid).toMatchObject({ spec: { intervals: [{ every: 30 * 60_000 }] }, catchupWindow: '2h' });
    expect(stories).toMatchObject({ spec: { cronExpressions: ['5 * * * *'] }, catchupWindow: '3h' });
    expect(stories!.args).toEqual([{ pipeline: 'top-stories', trackers: [{ name: 'top', strategy: 'topstories', stories: 20 }] }]);
    expect([h1!.spec.cronExpressions, d1!.spec.cronExpressions]).toEqual([['0 * * * *'], ['0 0 * * *']]);
    expect(h1!.args).toEqual([{ pipeline: 'counts', sampling: '1h' }]);
    expect(alerts).toMatchObject({ spec: { intervals: [{ every: 60_000 }] }, catchupWindow: '5m', args: [] });
    expect(maintenance).toMatchObject({
      spec: { cronExpressions: ['30 3 * * *'] },
      catchupWindow: '1d',
      args: [{ pipeline: 'maintenance', retentionDays: 7, targetFileSize: '256MB', deleteThreshold: 0.1 }],
    });
    expect(scheduledNeeds(d)).toEqual([{ kind: 'news' }, { kind: 'stories' }, { kind: 'index-counts' }, { kind: 'alerts' }]);
  });

  it('every kind with its parameters: distribution, research, graph, index counts with domains and filters; alerts with sync off declare none; paused is kept', () => {
    const d = declareSchedules(
      project(`
pipelines:
  - { name: mine, kind: distribution, domains: [reuters.com, bbc.co.uk], metric: citation }
  - { name: weekly, kind: research, question: "What changed in Ukraine?", depth: 5, sources: [asknews, wiki], schedule: { cron: "30 7 * * 1" } }
  - name: chips-graph
    kind: graph
    query: semiconductor export controls
    filters: { languages: [en] }
    options: { geo: true, min_cluster_probability: 0.8 }
    schedule: { every: 6h, catchup: 12h, paused: true }
  - { name: c, kind: index-counts, samplings: [5m, 1w], domains: [cnn.com], filters: { languages: [en] }, lookback: 2h }
  - { name: quiet, kind: alerts, sync: false }
`).pipelines,
    );
    expect(d.map((s) => s.id)).toEqual(['mine', 'weekly', 'chips-graph', 'c-5m', 'c-1w']);
    expect(d[0]).toMatchObject({
      workflowType: 'distributionPull',
      taskQueue: TASK_QUEUES.distribution,
      spec: { cronExpressions: ['0 2 * * *'] },
      catchupWindow: '1d',
    });
    expect(d[0]!.args).toEqual([{ pipeline: 'mine', domains: ['reuters.com', 'bbc.co.uk'], pageSize: 100, metric: 'citation' }]);
    expect(d[1]).toMatchObject({ workflowType: 'deepResearch', taskQueue: TASK_QUEUES.research, spec: { cronExpressions: ['30 7 * * 1'] } });
    expect(d[1]!.args).toEqual([{ pipeline: 'weekly', name: 'weekly', question: 'What changed in Ukraine?', depth: 5, sources: ['asknews', 'wiki'] }]);
    expect(d[2]).toMatchObject({ workflowType: 'entityGraph', spec: { intervals: [{ every: 6 * 3_600_000 }] }, catchupWindow: '12h', paused: true });
    expect(d[2]!.args).toEqual([
      { pipeline: 'chips-graph', query: 'semiconductor export controls', filterParams: { languages: ['en'] }, geo: true, minClusterProbability: 0.8 },
    ]);
    expect(d.slice(3).map((s) => [s.spec.cronExpressions, s.catchupWindow])).toEqual([
      [['*/5 * * * *'], '15m'],
      [['0 0 * * 1'], '1w'],
    ]);
    expect(d[3]!.args).toEqual([{ pipeline: 'c', sampling: '5m', domains: ['cnn.com'], filters: { languages: ['en'] }, lookback: '2h' }]);
    expect(scheduledNeeds(d)).toContainEqual({ kind: 'distribution', domains: ['reuters.com', 'bbc.co.uk'] });
  });
});

describe('on the dev server', () => {
  let client: Client;
  const ids: string[] = [];
  beforeAll(async () => {
    client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-schedules' });
  });
  afterAll(async () => {
    for (const id of ids) await client.schedule.getHandle(id).delete();
  });
  it("accepts every kind's schedule and every sampling's cron; the next runs fall on UTC bucket starts", async () => {
    const all = declareSchedules(
      project(`
pipelines:
  - { name: n, kind: news, query: x, schedule: { every: 15m } }
  - { name: r, kind: research, question: q, schedule: { cron: "30 7 * * 1" } }
  - { name: c, kind: index-counts, samplings: [5m, 1h, 12h, 1d, 1w, 1m] }
`).pipelines,
    ).map((d) => ({ ...d, id: `test-decl-${d.id}`, taskQueue: 'newsflow-test-none' }));
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
    for (const d of all.filter((x) => x.workflowType === 'indexCountSampler')) {
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
    const weekly = (await client.schedule.getHandle('test-decl-r').describe()).info.nextActionTimes[0]!;
    expect([weekly.getUTCDay(), weekly.getUTCHours(), weekly.getUTCMinutes()]).toEqual([1, 7, 30]);
  });
});
