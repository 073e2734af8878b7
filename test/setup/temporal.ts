/** Global setup: one real Temporal dev server (the Temporal CLI) for the whole test run. */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../temporal/index.js';

/**
 * One namespace per test file that runs workers, so that a workflow is never picked up by
 * another file's worker (each file's worker talks to its own service and warehouse).
 */
export const TEST_NAMESPACES = [
  'nf-ingest',
  'nf-trace',
  'nf-status-page',
  'nf-distribution',
  'nf-dist-kill',
  'nf-schedules',
  'nf-alerts',
  'nf-alerts-kill',
  'nf-alerts-outage',
  'nf-alerts-cli',
  'nf-counts',
  'nf-stories',
  'nf-research',
  'nf-one-worker',
  'nf-many-workers',
  'nf-feeds',
  'nf-feeds-kill',
  'nf-feeds-hostile',
  'nf-package',
  'nf-schedule-cli',
  'nf-metrics',
  'nf-status',
  'nf-notices',
] as const;

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    /** the PostgreSQL of the temporal-postgres project (postgres://postgres@host:port); '' on the dev server */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-temporal-'));
  fs.chmodSync(dir, 0o755); // PostgreSQL (NEWSFLOW_TEST_TEMPORAL=postgres) runs as its own user
  // the project "temporal-postgres" (vitest.config.ts), or NEWSFLOW_TEST_TEMPORAL=postgres: the
  // Temporal server on PostgreSQL, built first when missing (go install, a few minutes, cached)
  const postgres = project.name === 'temporal-postgres' || process.env.NEWSFLOW_TEST_TEMPORAL === 'postgres';
  let ep;
  let pgUrl = '';
  if (postgres) {
    const server = await import('../../temporal/index.js');
    server.installTemporalServer({ log: (m) => console.log(`test setup: ${m}`) });
    // a throwaway cluster: no fsync, asynchronous commits (Temporal writes every task transition;
    // with fsync on a loaded 2-core machine newsIngest's test ran past its timeout)
    const pgEp = await server.startPostgresTemporal({
      dataDir: dir,
      namespaces: [...TEST_NAMESPACES],
      unsafeFast: true,
      log: (m) => console.log(`test setup: ${m}`),
    });
    pgUrl = `postgres://${encodeURIComponent(pgEp.pg.user)}${pgEp.pg.password ? `:${encodeURIComponent(pgEp.pg.password)}` : ''}@${pgEp.pg.host}:${pgEp.pg.port}`;
    ep = pgEp;
  } else {
    ep = await startDevServer({ dataDir: dir, namespaces: [...TEST_NAMESPACES] });
  }
  project.provide('temporalAddress', ep.address);
  project.provide('pgUrl', pgUrl);
  return async () => {
    await ep.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
