import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects: every test on the Temporal CLI dev server (SQLite), and on the Temporal server with
 * PostgreSQL persistence what must be shown there: a workflow whose worker is killed and resumes,
 * and many workers sharing one lake (test/setup/temporal.ts starts the server its project names;
 * `npx newsflow temporal install` builds it, and the setup does so when it is missing). A test
 * runs on one of them, not both: kills and restarts on the dev server are alert-kill and
 * feed-poll-kill; the workflow logic over time runs on the time-skipping test server.
 */
const POSTGRES_ONLY = ['test/workflows/distribution-kill.test.ts', 'test/workflows/many-workers.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // the seeded corpus store is built before any file runs (test/setup/cached-stores.ts): a hook
    // starts services, workers and servers, which takes seconds, a minute on a busy 2-core machine
    hookTimeout: 120_000,
    pool: 'forks',
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
          globalSetup: ['test/setup/cached-stores.ts', 'test/setup/temporal.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'temporal-postgres',
          include: POSTGRES_ONLY,
          globalSetup: ['test/setup/cached-stores.ts', 'test/setup/temporal.ts'],
        },
      },
    ],
  },
});
