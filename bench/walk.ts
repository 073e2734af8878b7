/**
 * The distribution walk against its rate limit: a real `distributionPull` (Temporal dev server,
 * an in-process worker, a warehouse) over 6 months of simulated hits, 20 articles a page (>= 30
 * pages), against the service at the interface's distribution limits (0.2 requests/s, burst 5,
 * concurrency 2) with the rate scaled by FACTOR on both sides: the service's limiter and the
 * worker's (the distribution task queue's activities per second, the client's token bucket).
 * Prints wall time over the rate-limit floor ((distribution requests - burst) / rate; requests
 * are the pages plus each window's hit_share and metrics) and the count of responses 429.
 * Goal: ratio <= 1.05 with 0 responses 429.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NewsClient } from '../client/index.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { TASK_QUEUES, createWorkers } from '../pipelines/worker.js';
import { startDevServer } from '../pipelines/temporal.js';
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
  try {
    await new DistributionStore(svc.services.db).simulate({ months: 7, seed: 1, eventsPerDay: 400, now: new Date('2022-07-15T00:00:00Z') });
    await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com'] });
    const key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
    const api = new NewsClient({
      baseUrl: svc.url, apiKey: key, limits,
      onEvent: (e) => e.type === 'response' && route(e.operationId).limit === 'distribution' && statuses.push(e.status),
    });
    const warehouse = await Warehouse.open(path.join(tmp, 'warehouse'));
    const workers = await createWorkers({ address: temporalServer.address, namespace: 'bench-walk', client: api, warehouse, limits });
    const running = workers.run();
    const temporal = new Client({ connection: await Connection.connect({ address: temporalServer.address }), namespace: 'bench-walk' });
    try {
      // the bucket is full (burst) when the walk starts: nothing ran against it before
      const loadavg = os.loadavg()[0]!;
      const t0 = performance.now();
      const r = (await temporal.workflow.execute('distributionPull', {
        taskQueue: TASK_QUEUES.distribution, workflowId: `bench-walk-${Date.now()}`,
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

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchWalk()));
