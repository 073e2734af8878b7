/** What the workflow tests share: an in-process worker with its warehouse, and a held-back news feed. */
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { NewsClient } from '../../client/index.js';
import type { LimitsConfig } from '../../spec/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createWorkers, type WorkerDeps } from '../../pipelines/worker/worker.js';
import { tempDir, type TestService } from './service.js';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Load a corpus file with its dates moved to now, every article held back for replay. */
export async function holdFeed(svc: TestService, file: string): Promise<void> {
  await svc.services.news!.seed(file, { rebaseDates: true, replay: 1 });
  svc.services.news!.stopReplay();
}

/** Replay held-back articles fast until at most `left` remain. */
export async function releaseUntil(svc: TestService, left: number, speed = 5000): Promise<void> {
  const news = svc.services.news!;
  news.startReplay(speed);
  while (news.pendingCount > left) await sleep(20);
  news.stopReplay();
  await sleep(300); // a release in flight lands
}
