/**
 * deepResearch against the real dev server, a real worker process and the real service
 * (DeepNews, deterministic planner): the worker SIGKILLed while round 2 is at the API and
 * restarted; the run completes without redoing round 1 and lands the same report and sources as
 * an uninterrupted run; landing a round again changes nothing; a NEWSFLOW_RESEARCH schedule is
 * created and its run lands a briefing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { openSnapshot } from '../../warehouse/read.js';
import { createDeepResearchActivities } from '../../activities/deep-research.js';
import { applySchedules, declareSchedules } from '../../pipelines/schedules/index.js';
import { parseProjectFile } from '../../pipelines/config/index.js';
import { NOW } from '../helpers/news.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { spawnWorker } from '../helpers/cli.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';
import { waitUntil } from '../helpers/wait-until.js';

const NS = 'nf-research';
const limits = 'deepnews=1000:1000:10,chat=1000:1000:10,news=1000:1000:50,stories=1000:1000:50';
const Q = 'What happened after Shinzo Abe was shot, and how did Japan respond?';
const RUN_AT = '2022-07-11T06:00:00.000Z';

let svc: TestService;
let temporal: Client;
let dir: string;
/** DeepNews requests the service received: [workflow tag, search_depth] */
const seen: { depth: number; question: string }[] = [];
/** while set, a round-2 request is held this long before it is answered */
let holdRound2Ms = 0;
let round2Arrived: () => void = () => {};

beforeAll(async () => {
  svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    clock: () => NOW,
    limitsText: limits,
    configure: (app) => {
      app.addHook('preHandler', async (req) => {
        if (!req.url.startsWith('/v1/chat/deepnews')) return;
        const b = req.body as { search_depth?: number; messages?: { content: string }[] } | null;
        const depth = Number(b?.search_depth ?? 0);
        seen.push({ depth, question: b?.messages?.[0]?.content ?? '' });
        if (depth === 2 && holdRound2Ms) {
          round2Arrived();
          await new Promise((r) => setTimeout(r, holdRound2Ms));
        }
      });
    },
  });
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: NS });
  dir = tempDir('newsflow-research-');
}, 180_000);
afterAll(async () => {
  for (const id of ['research-abe-daily'])
    await temporal?.schedule
      .getHandle(id)
      .delete()
      .catch(() => undefined);
  await svc?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const worker = () =>
  spawnWorker(dir, {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: NS,
    NEWSFLOW_API_URL: svc.url,
    NEWSFLOW_API_KEY: svc.keys.org!,
    NEWSFLOW_LIMITS: limits,
    NEWSFLOW_RESEARCH: '',
  });

const start = (workflowId: string, depth = 3) =>
  temporal.workflow.start('deepResearch', { taskQueue: 'newsflow-research', workflowId, args: [{ question: Q, depth, runAt: RUN_AT }] });

async function landed(runId: string) {
  const snap = await openSnapshot(dir);
  try {
    const [run] = await snap.all(
      `SELECT question, status, rounds_done, rounds, report, model, usage::VARCHAR AS usage, n_sources, parameters::VARCHAR AS parameters, strftime(run_at, '%Y-%m-%dT%H:%M:%S') AS run_at FROM research_runs WHERE run_id = '${runId}'`,
    );
    const sources = await snap.all(
      `SELECT citation, kind, article_id::VARCHAR AS article_id, url, title, source FROM research_sources WHERE run_id = '${runId}' ORDER BY citation`,
    );
    return { run, sources };
  } finally {
    snap.close();
  }
}

describe('deepResearch', () => {
  const stamp = Date.now();
  const A = `research-a-${stamp}`;
  const B = `research-b-${stamp}`;
  let w2: ReturnType<typeof worker>;

  it('a worker SIGKILLed during round 2 and restarted: the run completes without redoing round 1 and lands what an uninterrupted run lands', async () => {
    const w1 = worker();
    const a = (await (await start(A)).result()) as { rounds: number; roundsDone: number; sources: number; reportChars: number };
    expect(a.rounds).toBe(3);
    // (the agent ends its research when a round brings nothing new: round 3 may report 2 rounds run)
    expect(a.roundsDone).toBeGreaterThanOrEqual(2);
    expect(a.sources).toBeGreaterThan(0);
    expect(a.reportChars).toBeGreaterThan(0);
    expect(seen.map((s) => s.depth)).toEqual([1, 2, 3]);

    seen.length = 0;
    holdRound2Ms = 15_000;
    const arrived = new Promise<void>((r) => (round2Arrived = r));
    const b = await start(B);
    await arrived;
    // round 2 is at the API (held): kill the worker before it is answered
    w1.proc.kill('SIGKILL');
    await w1.exited;
    holdRound2Ms = 0;
    expect(seen.map((s) => s.depth)).toEqual([1, 2]);
    w2 = worker();
    const rb = (await b.result()) as { rounds: number; roundsDone: number; sources: number; reportChars: number };
    expect(rb).toMatchObject({ rounds: 3, roundsDone: a.roundsDone, sources: a.sources, reportChars: a.reportChars });
    // round 1 was not redone; round 2 ran again on the new worker, then round 3
    expect(seen.map((s) => s.depth)).toEqual([1, 2, 2, 3]);
    expect(new Set(seen.map((s) => s.question))).toEqual(new Set([Q]));

    const la = await landed(A);
    const lb = await landed(B);
    expect(la.run).toMatchObject({ question: Q, status: 'complete', rounds_done: a.roundsDone, rounds: 3, run_at: RUN_AT.slice(0, 19) });
    expect(String(la.run!.report).length).toBe(a.reportChars);
    expect(lb.run).toEqual(la.run);
    expect(lb.sources).toEqual(la.sources);
    expect(la.sources.length).toBe(a.sources);
    expect(la.sources.map((s) => s.citation)).toEqual(la.sources.map((_, i) => i + 1));
    for (const s of la.sources) expect(s.kind === 'news' ? s.article_id : s.url).toBeTruthy();
  }, 300_000);

  it('a research pipeline of the project file becomes a daily schedule whose run lands a briefing', async () => {
    const decls = declareSchedules(
      parseProjectFile(`pipelines:\n  - { name: research-abe-daily, kind: research, question: "${Q}", depth: 2 }\n`, 'newsflow.yaml', {}).pipelines,
    );
    expect(decls.map((d) => d.id)).toEqual(['research-abe-daily']);
    const r = await applySchedules(temporal, decls, (id) => id.startsWith('research-'));
    expect(r.created).toEqual(['research-abe-daily']);
    const h = temporal.schedule.getHandle('research-abe-daily');
    const d = await h.describe();
    expect(d.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'deepResearch',
      taskQueue: 'newsflow-research',
      args: [{ pipeline: 'research-abe-daily', name: 'research-abe-daily', question: Q, depth: 2 }],
    });
    expect(d.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 6, end: 6, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] });
    await h.trigger();
    const row = await waitUntil(
      async () => {
        if (!fs.existsSync(path.join(dir, 'lake.sqlite'))) return undefined; // the worker creates the lake
        const snap = await openSnapshot(dir);
        try {
          return (
            await snap.all(
              "SELECT run_id, status, rounds_done, n_sources, length(report) AS chars FROM research_runs WHERE name = 'research-abe-daily' AND status = 'complete'",
            )
          )[0];
        } finally {
          snap.close();
        }
      },
      { what: 'the scheduled run complete in research_runs', timeoutMs: 120_000, intervalMs: 200 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; the worker's log ends:\n${w2.log().slice(-2000)}`);
    });
    expect(row).toMatchObject({ status: 'complete', rounds_done: 2 });
    expect(String(row!.run_id)).toMatch(/^research-abe-daily-run/);
    expect(Number(row!.chars)).toBeGreaterThan(0);
  }, 180_000);

  it('landing a round again changes nothing (merge on run_id; sources replaced per run)', async () => {
    w2.proc.kill('SIGTERM');
    await w2.exited;
    const before = await landed(B);
    const warehouse = await Warehouse.open(dir);
    const client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org });
    try {
      const counts = async () =>
        (await warehouse.query<{ r: bigint; s: bigint }>(`SELECT (SELECT count(*) FROM research_runs) AS r, (SELECT count(*) FROM research_sources) AS s`))[0]!;
      const c0 = await counts();
      const act = createDeepResearchActivities({ client, warehouse });
      const again = await new MockActivityEnvironment().run(act.researchRound, {
        runId: B,
        name: null,
        params: { question: Q, depth: 3 },
        round: 3,
        rounds: 3,
        runAt: RUN_AT,
        loadId: 'replay/1',
      });
      expect(again).toMatchObject({ inserted: 0, updated: 0, sources: before.sources.length });
      const c1 = await counts();
      expect(Number(c1.r)).toBe(Number(c0.r));
      expect(Number(c1.s)).toBe(Number(c0.s));
    } finally {
      await client.close();
      warehouse.close();
    }
    const after = await landed(B);
    expect(after).toEqual(before);
  }, 120_000);
});
