/**
 * Temporal's time-skipping test environment (`@temporalio/testing`'s
 * `TestWorkflowEnvironment.createTimeSkipping`) on the Java test server installed by
 * `scripts/install-test-server.sh` (Maven Central, into the cache dir; `.ci/run` runs it), never
 * on the SDK's own download (which fetches the server from temporal.download at test time).
 *
 * Use it for workflow logic over long stretches of time: timers (`sleep`) and activity timeouts
 * pass as fast as the workers get idle, while activities run in real time.
 *
 *   const env = await startTimeSkipping();
 *   const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
 *   await worker.runUntil(env.client.workflow.execute(myWorkflow, { taskQueue, workflowId, args }));
 *   await env.teardown();
 *
 * Its limits (the Java test server's): one namespace, `default`; no schedules (drive rounds with a
 * workflow that sleeps between them); time is server-wide, shared by every workflow of the env.
 * `env.sleep(ms)` skips time from the test; `env.currentTimeMs()` reads it.
 *
 * NEWSFLOW_TEST_SERVER names another wrapper or binary (run as `<path> <port>`);
 * NEWSFLOW_TEST_SERVER_VERSION another installed version.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { cacheDir } from '../../lib/cache-dir.js';

/** The version scripts/install-test-server.sh installs by default. */
export const TEST_SERVER_VERSION = process.env.NEWSFLOW_TEST_SERVER_VERSION ?? '1.38.0';

/** The test server's executable: NEWSFLOW_TEST_SERVER, else the wrapper the install script writes. */
export function testServerPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.NEWSFLOW_TEST_SERVER ?? path.join(cacheDir(env), `temporal-test-server-${TEST_SERVER_VERSION}`, 'temporal-test-server');
}

/** A time-skipping environment on the installed Java test server; `teardown()` when done. */
export async function startTimeSkipping(opts: { extraArgs?: string[] } = {}): Promise<TestWorkflowEnvironment> {
  const exe = testServerPath();
  if (!fs.existsSync(exe))
    throw new Error(`Temporal's test server is not installed at ${exe}: run bash scripts/install-test-server.sh (Java 17+ and Maven; Maven Central)`);
  // the SDK waits 5 s for the server to listen (sdk-core's ephemeral_server, fixed): on a machine
  // at load 15 a start can miss it (the archive of install-test-server.sh makes that rare); a
  // start that did not listen in time is tried again, twice
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: exe }, extraArgs: opts.extraArgs } });
    } catch (e) {
      if (attempt >= 3 || !/did not start within/.test(String(e instanceof Error ? e.message : e))) throw e;
    }
  }
}
