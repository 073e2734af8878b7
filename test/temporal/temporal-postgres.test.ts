/**
 * The Temporal server on PostgreSQL (temporal/postgres-server.ts): PostgreSQL made under the data
 * dir (as the postgres user when we are root), Temporal's schemas, the server, namespaces; what a
 * workflow writes outlives a restart of both. Needs `npx newsflow temporal install` (.ci/run does it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startPostgresTemporal } from '../../temporal/index.js';
import { temporalEndpoint } from '../../temporal/index.js';
import { runCli } from '../helpers/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nf-temporal-pg-'));
fs.chmodSync(dir, 0o755);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('Temporal on PostgreSQL', () => {
  it('starts on an empty data dir, keeps a started workflow across a restart of server and database, and stops both', async () => {
    const first = await startPostgresTemporal({ dataDir: dir, namespaces: ['nf-pg'] });
    let workflowId: string;
    try {
      expect(fs.existsSync(path.join(dir, 'postgres', 'cluster', 'PG_VERSION'))).toBe(true);
      const conn = await Connection.connect({ address: first.address });
      const client = new Client({ connection: conn, namespace: 'nf-pg' });
      // no worker polls this queue: the workflow stays open, its state only in PostgreSQL
      const h = await client.workflow.start('notRegistered', { taskQueue: 'nobody', workflowId: `pg-${Date.now()}`, args: [] });
      workflowId = h.workflowId;
      expect((await h.describe()).status.name).toBe('RUNNING');
      await conn.close();
    } finally {
      await first.stop();
    }
    // the database is down with the server
    const pgPid = path.join(dir, 'postgres', 'cluster', 'postmaster.pid');
    expect(fs.existsSync(pgPid)).toBe(false);

    const second = await startPostgresTemporal({ dataDir: dir, namespaces: ['nf-pg'] }); // schemas: already there, nothing redone
    try {
      const conn = await Connection.connect({ address: second.address });
      const client = new Client({ connection: conn, namespace: 'nf-pg' });
      const d = await client.workflow.getHandle(workflowId!).describe();
      expect(d.status.name).toBe('RUNNING');
      expect(d.type).toBe('notRegistered');
      // SQL visibility answers list queries
      const listed: string[] = [];
      for await (const w of client.workflow.list({ query: `WorkflowType = 'notRegistered'` })) listed.push(w.workflowId);
      expect(listed).toContain(workflowId!);
      await client.workflow.getHandle(workflowId!).terminate('test over');
      await conn.close();
    } finally {
      await second.stop();
    }
  }, 600_000);

  it('`newsflow temporal install` finds the built server and does not build again', async () => {
    const r = await runCli(['temporal', 'install']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/Temporal server 1\.29\.1 present/);
  }, 120_000);

  it('an unknown --temporal or NEWSFLOW_TEMPORAL says what is accepted', async () => {
    const r = await runCli(['start', '--temporal', 'cassandra', '--data-dir', path.join(dir, 'x')]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/--temporal must be dev or postgres; got cassandra/);
    const r2 = await runCli(['start', '--data-dir', path.join(dir, 'y')], { NEWSFLOW_TEMPORAL: 'cassandra' });
    expect(r2.code).not.toBe(0);
    expect(r2.err).toMatch(/NEWSFLOW_TEMPORAL: takes dev or postgres/);
    await expect(temporalEndpoint({ dataDir: path.join(dir, 'y'), temporal: { server: 'cassandra', namespace: 'default' } })).rejects.toThrow(
      /NEWSFLOW_TEMPORAL must be dev .* or postgres .*; got cassandra/,
    );
  }, 120_000);
});
