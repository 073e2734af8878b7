import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects: every test on the Temporal CLI dev server (SQLite), and the workflow tests that
 * kill and resume workers once more on the Temporal server with PostgreSQL persistence
 * (test/setup/temporal.ts starts the server its project names; `npx newsflow temporal install`
 * builds it, and the setup does so when it is missing).
 */
const WORKFLOWS_ON_POSTGRES = ['test/workflows/distribution-pull.test.ts', 'test/workflows/distribution-kill.test.ts', 'test/workflows/news-ingest.test.ts'];
/** Only on PostgreSQL: many workers with the lake's catalog in the project's PostgreSQL. */
const POSTGRES_ONLY = ['test/workflows/many-workers.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // the seeded corpus store is built by the first file that asks for it (test/helpers/corpus-store.ts),
    // in its beforeAll: minutes on a busy 2-core machine
    hookTimeout: 900_000,
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
          globalSetup: ['test/setup/temporal.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'temporal-postgres',
          include: [...WORKFLOWS_ON_POSTGRES, ...POSTGRES_ONLY],
          globalSetup: ['test/setup/temporal.ts'],
        },
      },
    ],
  },
});
