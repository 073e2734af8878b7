import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/corpus.ts', 'test/setup/temporal.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // many test files mostly wait (Temporal schedules that fire each minute, worker processes,
    // webhook outages): run 3 at once even on 2 cores (vitest's default there is 1)
    maxWorkers: Number(process.env.NEWSFLOW_TEST_WORKERS ?? 3),
    env: { NEWSFLOW_LOG_LEVEL: 'silent' },
  },
});
