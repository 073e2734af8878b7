/**
 * The distribution walk against its rate limit: a real `distributionPull` (Temporal dev server,
 * an in-process worker, a warehouse) over 6 months of simulated hits, 20 articles a page (>= 30
 * pages), against the service at the interface's distribution limits (0.2 requests/s, burst 5,
 * concurrency 2) with the rate scaled by FACTOR on both sides: the service's limiter and the
 * worker's (the distribution task queue's activities per second, the client's token bucket).
 * Prints wall time over the rate-limit floor ((distribution requests - burst) / rate; requests
 * are the pages plus each window's hit_share and metrics) and the count of responses 429.
 * Goal: ratio <= 1.05 with 0 responses 429. The worker is warmed first by a run that makes no
 * distribution request (its time is printed, not counted). Also prints where the time went: when
 * the first request left and the last answer came, the time between an answer and the next
 * request, and from the workflow's history the time to its first activity and per activity type.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NewsClient } from '../client/index.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { TASK_QUEUES, createWorkers } from '../pipelines/worker/worker.js';
import { startDevServer } from '../temporal/index.js';
import { DEFAULT_LIMITS, parseLimits, route } from '../spec/index.js';
import { DistributionStore } from '../service/store/distribution.js';
import { startTestService, tempDir } from '../test/helpers/service.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';

const FACTOR = Number(process.env.NEWSFLOW_BENCH_WALK_FACTOR ?? 50);

export async function benchWalk(): Promise<Record<string, unknown>> {
  const d = DEFAULT_LIMITS.distribution;
  const rate = d.rate * FACTOR;
  const limitsText = `distribution=${rate}:${d.burst}:${d.concurrency},news=1000:1000:50,profile=1000:1000:50`;
  const limits = parseLimits(limitsText);
  const tmp = tempDir('newsflow-bench-walk-');
  const temporalServer = await startDevServer({ dataDir: path.join(tmp, 'temporal'), namespaces: ['bench-walk'] });
  const svc = await startTestService({ corpusStore: await seededCorpusStore(() => undefined), limitsText });
  const statuses: number[] = [];
  /** per distribution request: ms from the client's call to the response (token wait + HTTP) */
  const httpMs: number[] = [];
  const sent: number[] = [];
  const answered: number[] = [];
  try {
    await new DistributionStore(svc.services.db).simulate({ months: 7, seed: 1, eventsPerDay: 400, now: new Date('2022-07-15T00:00:00Z') });
    await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com'] });
    const key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
    const api = new NewsClient({
      baseUrl: svc.url,
      apiKey: key,
      limits,
      onEvent: (e) => {
        if (route(e.operationId).limit !== 'distribution') return;
        if (e.type === 'request') sent.push(performance.now());
        if (e.type === 'response') {
          statuses.push(e.status);
          httpMs.push(e.ms);
          answered.push(performance.now());
        }
      },
    });
    const warehouse = await Warehouse.open(path.join(tmp, 'warehouse'));
    const workers = await createWorkers({ address: temporalServer.address, namespace: 'bench-walk', client: api, warehouse, limits });
    const running = workers.run();
    const temporal = new Client({ connection: await Connection.connect({ address: temporalServer.address }), namespace: 'bench-walk' });
    try {
      // a warm worker, as in a running deployment: one run that makes no distribution request
      // (a new worker's first workflow task builds the workflow sandbox: reported, not timed)
      const w0 = performance.now();
      await temporal.workflow.execute('distributionPull', {
        taskQueue: TASK_QUEUES.distribution,
        workflowId: `bench-walk-warm-${Date.now()}`,
        args: [{ domains: ['reuters.com'], from: '2022-01-01T00:00:00.000Z', to: '2022-02-01T00:00:00.000Z', endpoints: [] }],
      });
      const warmUp = (performance.now() - w0) / 1000;
      // the task queue's activity rate (limits.distribution.rate a second) full again, as the client's bucket is
      await new Promise((r) => setTimeout(r, Math.max(2000, 5000 / rate)));
      // the bucket is full (burst) when the walk starts: no distribution request ran before
      if (statuses.length) throw new Error('the warm-up made distribution requests');
      const loadavg = os.loadavg()[0]!;
      const t0 = performance.now();
      const workflowId = `bench-walk-${Date.now()}`;
      const r = (await temporal.workflow.execute('distributionPull', {
        taskQueue: TASK_QUEUES.distribution,
        workflowId,
        args: [{ domains: ['reuters.com', 'apnews.com'], from: '2022-01-01T00:00:00.000Z', to: '2022-07-01T00:00:00.000Z', pageSize: 20 }],
      })) as { windows: number; pages: number };
      const wall = (performance.now() - t0) / 1000;
      const requests = statuses.length;
      const floor = (requests - d.burst) / rate;
      return {
        bench: 'distribution walk against its rate limit (real distributionPull on the Temporal dev server)',
        factor: FACTOR,
        limit: { rate_per_s: rate, burst: d.burst, concurrency: d.concurrency },
        windows: r.windows,
        pages: r.pages,
        distribution_requests: requests,
        wall_s: Number(wall.toFixed(2)),
        floor_s: Number(floor.toFixed(2)),
        ratio_wall_over_floor: Number((wall / floor).toFixed(3)),
        responses_429: statuses.filter((s) => s === 429).length,
        warm_up_run_s: Number(warmUp.toFixed(2)),
        where_the_time_goes: {
          first_request_at_ms: Math.round(sent[0]! - t0),
          last_response_at_ms: Math.round(answered[answered.length - 1]! - t0),
          // between one answer and the next request: the walk not asking (landing, Temporal)
          idle_between_requests_ms: Math.round(sent.slice(1).reduce((a, x, i) => a + Math.max(0, x - answered[i]!), 0)),
          client_call_ms_sum: Math.round(httpMs.reduce((a, b) => a + b, 0)),
          ...(await timeline(temporal, workflowId)),
        },
        goal: 'ratio <= 1.05, 0 responses 429',
        load_average: Number(loadavg.toFixed(2)),
        cpus: os.cpus().length,
      };
    } finally {
      workers.shutdown();
      await running;
      warehouse.close();
      await api.close();
      await temporal.connection.close();
    }
  } finally {
    await svc.stop();
    await temporalServer.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const ms = (t: unknown) => {
  const x = t as { seconds?: { toNumber(): number } | number; nanos?: number } | null | undefined;
  return x ? Number(typeof x.seconds === 'object' ? x.seconds.toNumber() : (x.seconds ?? 0)) * 1000 + (x.nanos ?? 0) / 1e6 : 0;
};

/**
 * Where the wall time went, from the workflow's history (all its runs): per activity type, the
 * count, the sum of scheduled->started (queue and task-queue rate limit), of started->completed
 * (the activity itself), and the time no activity of the walk was running or queued (workflow
 * tasks, Temporal round trips).
 */
async function timeline(temporal: Client, workflowId: string): Promise<Record<string, unknown>> {
  const byType: Record<string, { n: number; queued_ms: number; run_ms: number }> = {};
  const spans: [number, number][] = [];
  let runId: string | undefined;
  let first = Infinity;
  let last = 0;
  for (;;) {
    const h = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
    const sched = new Map<string, { type: string; at: number }>();
    const started = new Map<string, number>();
    let next: string | undefined;
    for (const e of h.events ?? []) {
      const at = ms(e.eventTime);
      first = Math.min(first, at);
      last = Math.max(last, at);
      const id = String(e.eventId);
      if (e.activityTaskScheduledEventAttributes) sched.set(id, { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
      if (e.activityTaskStartedEventAttributes) started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), at);
      const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      if (done) {
        const sid = String(done.scheduledEventId);
        const s = sched.get(sid)!;
        const st = started.get(sid) ?? at;
        const b = (byType[s.type] ??= { n: 0, queued_ms: 0, run_ms: 0 });
        b.n++;
        b.queued_ms += st - s.at;
        b.run_ms += at - st;
        spans.push([s.at, at]);
      }
      if (e.workflowExecutionContinuedAsNewEventAttributes) next = e.workflowExecutionContinuedAsNewEventAttributes.newExecutionRunId ?? undefined;
    }
    if (!next) break;
    runId = next;
  }
  spans.sort((a, b) => a[0] - b[0]);
  let busy = 0;
  let end = -Infinity;
  for (const [a, b] of spans) {
    if (b <= end) continue;
    busy += b - Math.max(a, end);
    end = b;
  }
  for (const b of Object.values(byType)) Object.assign(b, { queued_ms: Math.round(b.queued_ms), run_ms: Math.round(b.run_ms) });
  return {
    history_ms: Math.round(last - first),
    no_activity_ms: Math.round(last - first - busy),
    // workflow start to its first activity scheduled (workflow task; a new worker's first one builds the workflow sandbox)
    to_first_activity_ms: Math.round((spans[0]?.[0] ?? last) - first),
    after_last_activity_ms: Math.round(last - end),
    activities: byType,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchWalk()));
