import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Two projects: every test on the Temporal CLI dev server (SQLite), and on the Temporal server with
 * PostgreSQL persistence what must be shown there: a workflow whose worker is killed and resumes,
 * and many workers sharing one lake (test/setup/temporal.ts starts the server its project names;
 * `npx newsflow temporal install` builds it, and the setup does so when it is missing). A test
 * runs on one of them, not both: kills and restarts on the dev server are alert-kill and
 * feed-poll-kill; the workflow logic over time runs on the time-skipping test server.
 */
const POSTGRES_ONLY = ['test/workflows/distribution-kill.test.ts', 'test/workflows/many-workers.test.ts'];

/**
 * Files that run for minutes (the slowest of the last full run, .ci/run prints them) start first,
 * slowest first, so that the run does not end with one of them alone on a worker. The others keep
 * vitest's order (by the durations in its cache when there is one, else the largest file first).
 */
const LONG_FIRST = [
  'test/workflows/many-workers.test.ts',
  'test/workflows/distribution-kill.test.ts',
  'test/fuzz/openapi.test.ts',
  'test/warehouse/lake-readers.test.ts',
  'test/pipelines/package.test.ts',
  'test/pipelines/run/start-fresh.test.ts',
  'test/workflows/alert-receiver-outage.test.ts',
  'test/pipelines/cli/forum.test.ts',
  'test/pipelines/run/run-failures.test.ts',
  'test/pipelines/cli/pipelines.test.ts',
  'test/workflows/news-ingest.test.ts',
  'test/pipelines/cli/wiki.test.ts',
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
          name: 'dev-server',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...POSTGRES_ONLY],
          globalSetup: ['test/setup/built-cli.ts', 'test/setup/cached-stores.ts', 'test/setup/temporal.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'temporal-postgres',
          include: POSTGRES_ONLY,
          globalSetup: ['test/setup/built-cli.ts', 'test/setup/cached-stores.ts', 'test/setup/temporal.ts'],
        },
      },
    ],
  },
});
