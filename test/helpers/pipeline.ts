/** What the workflow tests share: an in-process worker with its warehouse, and a held-back news feed. */
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { NewsClient } from '../../client/index.js';
import type { LimitsConfig } from '../../spec/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createWorkers, type WorkerDeps } from '../../pipelines/worker/worker.js';
import { tempDir, type TestService } from './service.js';
import { waitUntil } from './wait-until.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';

export interface Harness {
  warehouse: Warehouse;
  whDir: string;
  temporal: Client;
  stop(): Promise<void>;
}

/**
 * Workers of every queue on the test run's dev server, in the file's own namespace (see
 * test/setup/temporal.ts), landing into a fresh warehouse through `client`.
 */
export async function startHarness(opts: {
  namespace: string;
  client: NewsClient;
  limits?: LimitsConfig;
  smtpUrl?: string | null;
  webhookFetch?: WorkerDeps['webhookFetch'];
  /** what the workers' fetch policy allows beyond public addresses (NEWSFLOW_FETCH_ALLOW's form: the project's `fetchAllow`) */
  fetchAllow?: string;
}): Promise<Harness> {
  const whDir = tempDir('newsflow-wh-');
  const warehouse = await Warehouse.open(whDir);
  const workers = await createWorkers({
    address: inject('temporalAddress'),
    namespace: opts.namespace,
    client: opts.client,
    warehouse,
    limits: opts.limits,
    smtpUrl: opts.smtpUrl,
    webhookFetch: opts.webhookFetch,
    fetchPolicy: parseFetchAllow(opts.fetchAllow),
    // one webpack bundle of the workflows for every file of the run (keyed by their sources)
    bundleCacheDir: path.join(os.tmpdir(), 'newsflow-test-cache', 'bundle'),
  });
  const running = workers.run();
  const temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: opts.namespace });
  return {
    warehouse,
    whDir,
    temporal,
    async stop() {
      workers.shutdown();
      await running;
      warehouse.close();
      await opts.client.close();
      await temporal.connection.close();
    },
  };
}

/** Load a corpus file with its dates moved to now, every article held back for replay. */
export async function holdFeed(svc: TestService, file: string): Promise<void> {
  await svc.services.seeder!.seed(file, { rebaseDates: true, replay: 1 });
  svc.services.seeder!.stopReplay();
  await settled(svc);
}

/**
 * A release in flight has landed: every article the replay took off the pending list is in the
 * search index, and clustered into stories (stories.ingest runs one at a time: this one waits for
 * the release's and clusters nothing new).
 */
async function settled(svc: TestService): Promise<void> {
  const news = svc.services.news!;
  const seeder = svc.services.seeder!;
  // a stored article is in the index or held back, unless a release is taking it from one to the other
  await waitUntil(async () => news.index.size + seeder.pendingCount === (await news.store.count()).total, {
    what: 'released articles indexed',
    intervalMs: 10,
  });
  await svc.services.stories!.ingest();
}

/** Replay held-back articles fast until at most `left` remain; returns once they are indexed and clustered. */
export async function releaseUntil(svc: TestService, left: number, speed = 5000): Promise<void> {
  const seeder = svc.services.seeder!;
  seeder.startReplay(speed);
  await waitUntil(() => seeder.pendingCount <= left, { what: `at most ${left} articles held back`, timeoutMs: 120_000, intervalMs: 10 });
  seeder.stopReplay();
  await settled(svc);
}
