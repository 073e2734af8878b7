/**
 * `newsflow schedule apply --dry-run` and `apply` as a user runs them against a running Temporal
 * server (the project file names it): after one pipeline's query is edited, the plan shows exactly
 * one update and its changed argument and Temporal is unchanged; `apply` then changes that one
 * schedule; a pipeline removed from the file loses its schedule on the next apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';

const NAMESPACE = 'nf-schedule-cli';
const dir = tempDir('newsflow-schedule-cli-');
let client: Client;
const clean = { NEWSFLOW_API_URL: '', NEWSFLOW_API_KEY: '', NEWSFLOW_DATA_DIR: '', TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '', NEWSFLOW_CONFIG: '' };
const write = (query: string, withCovid = true) =>
  fs.writeFileSync(
    path.join(dir, 'newsflow.yaml'),
    `temporal: { server: "${inject('temporalAddress')}", namespace: ${NAMESPACE} }
pipelines:
  - { name: chips, kind: news, query: "${query}", schedule: { every: 15m } }
${withCovid ? '  - { name: covid, kind: news, query: covid }\n' : ''}  - { name: alerts, kind: alerts }
`,
  );
const apply = (...flags: string[]) => runCli(['schedule', 'apply', ...flags], clean, { cwd: dir });
const queryOf = async (id: string) => ((await client.schedule.getHandle(id).describe()).action as { args: { query: string }[] }).args[0]!.query;

beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: NAMESPACE });
});
afterAll(async () => {
  for await (const s of client.schedule.list()) await client.schedule.getHandle(s.scheduleId).delete();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('newsflow schedule apply', () => {
  it('creates the schedules of the file, then --dry-run after an edit shows one update and its argument and changes nothing; apply changes it', async () => {
    write('semiconductor export controls');
    const first = await apply();
    expect(first.code, first.err).toBe(0);
    expect(first.out.split('\n')[0]).toBe('plan: 3 to create, 0 to update, 0 to delete, 0 unchanged');
    expect(first.out).toContain('applied: 3 created, 0 updated, 0 deleted');
    expect(first.out).toContain('feed poller (feeds-poll): sources 0 added, 0 updated, 0 removed; schedule none (no source)');

    write('chip export controls');
    const dry = await apply('--dry-run');
    console.log(`$ newsflow schedule apply --dry-run\n${dry.out}`);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out.trimEnd().split('\n')).toEqual([
      'plan (dry run: nothing changes): 0 to create, 1 to update, 0 to delete, 2 unchanged',
      '  ~ update chips: chips (news): "chip export controls" over the 1h before each run, every 15m',
      '      args[0].query: "semiconductor export controls" -> "chip export controls"',
      'feed poller (feeds-poll): 0 source(s) in the project file; its schedule does not exist yet',
    ]);
    expect(await queryOf('chips')).toBe('semiconductor export controls');

    const applied = await apply();
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('applied: 0 created, 1 updated, 0 deleted');
    expect(await queryOf('chips')).toBe('chip export controls');
    expect((await apply('--dry-run')).out.split('\n')[0]).toBe('plan (dry run: nothing changes): 0 to create, 0 to update, 0 to delete, 3 unchanged');
  });

  it('a pipeline removed from the file: its schedule is deleted on the next apply', async () => {
    write('chip export controls', false);
    const r = await apply();
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('  - delete covid (no longer declared; what it landed stays in the warehouse)');
    await expect(client.schedule.getHandle('covid').describe()).rejects.toThrow(/not found/i);
  });

  it("sources in the file: apply writes them into the warehouse and keeps the feed poller's schedule", async () => {
    fs.writeFileSync(
      path.join(dir, 'newsflow.yaml'),
      `temporal: { server: "${inject('temporalAddress')}", namespace: ${NAMESPACE} }\nsources:\n  - { name: example-news, url: "https://news.example.org/rss.xml" }\n`,
    );
    const r = await apply();
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('feed poller (feeds-poll): sources 1 added, 0 updated, 0 removed; schedule created');
    expect((await client.schedule.getHandle('feeds-poll').describe()).action).toMatchObject({ workflowType: 'feedPoll' });
  });

  it('without a running server named, one line saying what to set, exit 1', async () => {
    fs.writeFileSync(path.join(dir, 'newsflow.yaml'), 'pipelines: []\n');
    const r = await apply('--dry-run');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: these commands talk to a running Temporal server: set temporal\.server: host:port in newsflow\.yaml or TEMPORAL_ADDRESS/);
  });
});
