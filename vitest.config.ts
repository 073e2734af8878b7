import fs from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Three projects: "shared" (below) needs no Temporal; every other test runs on the Temporal CLI dev
 * server (SQLite), and on the Temporal server with PostgreSQL persistence what must be shown there: a workflow whose worker is killed and resumes,
 * and many workers sharing one lake (test/setup/temporal.ts starts the server its project names;
 * `npx newsflow temporal install` builds it, and the setup does so when it is missing). A test
 * runs on one of them, not both: kills and restarts on the dev server are alert-kill and
 * feed-poll-kill; the workflow logic over time runs on the time-skipping test server.
 */
const POSTGRES_ONLY = ['test/workflows/distribution-kill.test.ts', 'test/workflows/many-workers.test.ts'];

/**
 * The files that share their worker's modules (`isolate: false`): a worker runs file after file
 * on one module graph, so the service stack (Fastify, DuckDB, the MiniLM session, the enrichers)
 * is imported and loaded once per worker, not once per file. 8 service files one after the other:
 * 91 CPU-s isolated, 39 shared (import 85 s -> 13 s). What they share is safe to share: none
 * mocks a module or installs a Temporal runtime, an environment variable a file sets is deleted
 * in its afterAll, the service's registries are per app and the process-wide pools (readers,
 * graph threads, the embedder) are meant to be shared. The workflow tests (Runtime.install, one
 * per process), the CLI's (project and kind registries are process state) and the rest keep a
 * module graph per file.
 */
const SHARED_DIRS = ['activities', 'bench', 'client', 'docs', 'helpers', 'lib', 'scripts', 'service', 'spec', 'warehouse'];
/** Files of those folders that need what .ci/run installs in the background (Chromium): they run with the others. */
const NOT_SHARED = ['test/service/routes/graph.test.ts'];
/** The other folders of test/ (and its top-level files), read from the tree so that a new folder runs somewhere. */
const OTHER_DIRS = fs
  .readdirSync(new URL('./test', import.meta.url), { withFileTypes: true })
  .filter((e) => e.isDirectory() && !SHARED_DIRS.includes(e.name))
  .map((e) => `test/${e.name}/**/*.test.ts`);
const GLOBAL_SETUP = ['test/setup/built-cli.ts', 'test/setup/cached-stores.ts', 'test/setup/temporal.ts'];

/**
 * Files that run for minutes (the slowest of the last full run, .ci/run prints them) start first in their run,
 * slowest first, so that the run does not end with one of them alone on a worker. The others keep
 * vitest's order (by the durations in its cache when there is one, else the largest file first).
 */
const LONG_FIRST = [
  'test/fuzz/openapi.test.ts',
  'test/workflows/many-workers.test.ts',
  'test/workflows/distribution-kill.test.ts',
  'test/pipelines/package.test.ts',
  'test/workflows/feed-poll-kill.test.ts',
  'test/pipelines/cli/pipelines.test.ts',
  'test/pipelines/run/run-failures.test.ts',
  'test/workflows/news-ingest.test.ts',
  'test/warehouse/maintain.test.ts',
  'test/pipelines/cli/service.test.ts',
  'test/warehouse/lake-readers.test.ts',
  'test/pipelines/worker/metrics.test.ts',
  'test/pipelines/cli/research.test.ts',
  'test/examples/dbt.test.ts',
  'test/warehouse/lake.test.ts',
];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((p) => f.moduleId.endsWith(p));
      return i === -1 ? LONG_FIRST.length : i;
    };
    return (await super.sort(files))
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map((x) => x.f);
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // the seeded corpus store is built before any file runs (test/setup/cached-stores.ts): a hook
    // starts services, workers and servers, which takes seconds, a minute on a busy 2-core machine
    hookTimeout: 120_000,
    pool: 'forks',
    sequence: { sequencer: LongFirst },
    // many test files mostly wait (Temporal schedules that fire each minute, worker processes,
    // webhook outages): run 3 at once even on 2 cores (vitest's default there is 1)
    maxWorkers: Number(process.env.NEWSFLOW_TEST_WORKERS ?? 3),
    env: { NEWSFLOW_LOG_LEVEL: 'silent' },
    projects: [
      {
        extends: true,
        test: {
          // no Temporal: none of these files starts a worker or reads temporalAddress
          name: 'shared',
          include: SHARED_DIRS.map((d) => `test/${d}/**/*.test.ts`),
          exclude: [...configDefaults.exclude, ...NOT_SHARED],
          isolate: false,
          globalSetup: ['test/setup/built-cli.ts', 'test/setup/cached-stores.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'dev-server',
          include: ['test/*.test.ts', ...OTHER_DIRS, ...NOT_SHARED],
          exclude: [...configDefaults.exclude, ...POSTGRES_ONLY],
          globalSetup: GLOBAL_SETUP,
        },
      },
      {
        extends: true,
        test: {
          name: 'temporal-postgres',
          include: POSTGRES_ONLY,
          globalSetup: GLOBAL_SETUP,
        },
      },
    ],
  },
});
