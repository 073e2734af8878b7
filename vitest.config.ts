import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/corpus.ts', 'test/setup/temporal.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    env: { NEWSFLOW_LOG_LEVEL: 'silent' },
  },
});
