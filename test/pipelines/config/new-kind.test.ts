/**
 * A new kind is one registry entry: the fixture's `echo` kind (test/fixtures/kinds/echo-kind.ts,
 * its workflow and activity beside it) is registered, and with no other file touched the project
 * file takes its entries (`config check`, one line per problem for a bad one), `schedule apply
 * --dry-run` plans its schedule on a real Temporal server, and newsflow's worker runs its workflow,
 * which lands its `_loads` row through newsflow's own load-record activity.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildCli } from '../../../pipelines/cli/index.js';
import { registerKind, unregisterKind } from '../../../pipelines/config/kinds/index.js';
import { setConfigFlag } from '../../../pipelines/config/current.js';
import { loadProject } from '../../../pipelines/config/project.js';
import { declareSchedules } from '../../../pipelines/schedules/index.js';
import { createWorkers } from '../../../pipelines/worker/worker.js';
import { NewsClient } from '../../../client/index.js';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { echoKind } from '../../fixtures/kinds/echo-kind.js';
import { tempDir } from '../../helpers/service.js';
import { waitUntil } from '../../helpers/wait-until.js';

const NAMESPACE = 'nf-kind-echo';
const dir = tempDir('newsflow-kind-');
const file = path.join(dir, 'newsflow.yaml');
const ENV = ['NEWSFLOW_API_URL', 'NEWSFLOW_API_KEY', 'NEWSFLOW_DATA_DIR', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'NEWSFLOW_CONFIG', 'NEWSFLOW_TEMPORAL'];
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let connection: Connection;

const write = (entry: string) =>
  fs.writeFileSync(
    file,
    `temporal: { server: "${inject('temporalAddress')}", namespace: ${NAMESPACE} }
warehouse: { path: ./data }
pipelines:
  - ${entry}
`,
  );

/** The CLI in this process (where the kind is registered): its stdout lines, or the error it stops with. */
async function cli(...args: string[]): Promise<string[]> {
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  try {
    setConfigFlag(undefined);
    await buildCli().parseAsync(['node', 'newsflow', '--config', file, ...args]);
    return out.join('\n').split('\n');
  } finally {
    log.mockRestore();
  }
}

beforeAll(async () => {
  for (const k of ENV) delete process.env[k];
  registerKind(echoKind);
  connection = await Connection.connect({ address: inject('temporalAddress') });
  await connection.workflowService
    .registerNamespace({ namespace: NAMESPACE, workflowExecutionRetentionPeriod: { seconds: 86_400 as never } })
    .catch((e: Error) => {
      if (!/already/i.test(e.message)) throw e;
    });
  await waitUntil(
    () =>
      connection.workflowService.describeNamespace({ namespace: NAMESPACE }).then(
        () => true,
        () => false,
      ),
    { what: `namespace ${NAMESPACE} registered`, timeoutMs: 30_000 },
  );
});
afterAll(async () => {
  unregisterKind(echoKind.name);
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  await connection?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a kind added by one registry entry', () => {
  it('config check accepts its entries and says what is wrong with a bad one, file:line:col', async () => {
    write('{ name: greet, kind: echo, word: hi, times: 11 }');
    await expect(cli('config', 'check')).rejects.toThrow(/newsflow\.yaml:4:\d+: pipelines\[0\]\.times: .*10/);
    write('{ name: greet, kind: echo, word: hi, times: 3 }');
    const out = await cli('config', 'check');
    console.log(`$ newsflow config check\n${out.join('\n')}`);
    expect(out[0]).toMatch(/newsflow\.yaml: ok, 1 pipeline\(s\), 1 schedule\(s\), 0 source\(s\)$/);
    expect(out[1]).toBe('  greet: greet (echo): "hi" 3 times, every 2h');
  });

  it('schedule apply --dry-run plans its schedule on the Temporal server', async () => {
    write('{ name: greet, kind: echo, word: hi, times: 3 }');
    const out = await cli('schedule', 'apply', '--dry-run');
    console.log(`$ newsflow schedule apply --dry-run\n${out.join('\n')}`);
    expect(out[0]).toBe('plan (dry run: nothing changes): 1 to create, 0 to update, 0 to delete, 0 unchanged');
    expect(out[1]).toBe('  + create greet: greet (echo): "hi" 3 times, every 2h');
  });

  it("newsflow's worker runs its workflow, which records its load through newsflow's recordLoad", async () => {
    write('{ name: greet, kind: echo, word: hi, times: 3 }');
    const project = loadProject({ config: file, env: {} });
    const [decl] = declareSchedules(project.pipelines);
    const warehouse = await Warehouse.open(path.join(dir, 'wh'));
    const workers = await createWorkers({
      address: inject('temporalAddress'),
      namespace: NAMESPACE,
      client: new NewsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' }),
      warehouse,
      bundleCacheDir: path.join(os.tmpdir(), 'newsflow-test-cache', 'bundle'),
    });
    const running = workers.run();
    try {
      const temporal = new Client({ connection, namespace: NAMESPACE });
      const said = await temporal.workflow.execute(decl!.workflowType, { taskQueue: decl!.taskQueue, args: decl!.args, workflowId: `echo-${Date.now()}` });
      expect(said).toBe('hi hi hi');
      const loads = await warehouse.query<{ kind: string; pipeline: string; rows_received: bigint | number }>(
        'SELECT kind, pipeline, rows_received FROM _loads',
      );
      console.log(
        `worker ran ${decl!.workflowType} on ${decl!.taskQueue}: "${said}"; _loads ${JSON.stringify(loads, (_, v) => (typeof v === 'bigint' ? Number(v) : v))}`,
      );
      expect(loads.map((l) => [l.kind, l.pipeline, Number(l.rows_received)])).toEqual([['echo', 'greet', 3]]);
    } finally {
      workers.shutdown();
      await running;
      warehouse.close();
    }
  }, 180_000);
});
