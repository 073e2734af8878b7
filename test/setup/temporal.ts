/** Global setup: one real Temporal dev server (the Temporal CLI) for the whole test run. */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../pipelines/temporal.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-temporal-'));
  const ep = await startDevServer({ dataDir: dir });
  project.provide('temporalAddress', ep.address);
  return async () => {
    await ep.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
