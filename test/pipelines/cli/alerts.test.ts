/** `newsflow alerts sync` and `newsflow alerts status` as a user runs them. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { api, startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { runCli } from '../../helpers/cli.js';

const NS = 'nf-alerts-cli';
let svc: TestService;
let temporal: Client;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'chat=1000:1000:50,news=1000:1000:50' });
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: NS });
}, 120_000);
afterAll(async () => svc?.stop());

describe('newsflow alerts', () => {
  it('sync creates the schedules of active alerts; status lists alerts with schedule, last run and deliveries', async () => {
    const hook = { action: 'webhook', params: { url: 'https://hooks.example.com/x' } };
    const a = (await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { title: 'floods', query: 'flood', cron: '*/10 * * * *', triggers: [hook] })).body;
    const b = (await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { title: 'paused', query: 'x', cron: '0 * * * *', triggers: [hook], active: false }))
      .body;
    const dataDir = tempDir('newsflow-alerts-cli-');
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: NS,
      NEWSFLOW_API_URL: svc.url,
      NEWSFLOW_API_KEY: svc.keys.org!,
      NEWSFLOW_LOG_LEVEL: 'warn',
    };
    const sync = await runCli(['alerts', 'sync', '--data-dir', dataDir], env);
    expect(sync.code, sync.err).toBe(0);
    const r = JSON.parse(sync.out.trim().split('\n').pop()!);
    expect(r).toMatchObject({ created: [`alert-${a.id}`], alerts: 2, active: 1 });
    const d = await temporal.schedule.getHandle(`alert-${a.id}`).describe();
    for (const t of d.info.nextActionTimes) expect(t.getUTCMinutes() % 10).toBe(0);

    const status = await runCli(['alerts', 'status', '--data-dir', dataDir], env);
    expect(status.code, status.err).toBe(0);
    const lines = status.out.split('\n');
    expect(lines[0]).toMatch(/alert_id\s+title\s+cron\s+active\s+deleted\s+last_run\s+triggered\s+delivered\s+owed\s+skipped\s+schedule\s+next_run/);
    const rowA = lines.find((l) => l.startsWith(a.id.slice(0, 8)))!;
    expect(rowA).toMatch(/floods\s+\*\/10 \* \* \* \*\s+true\s+false/);
    expect(rowA).toContain(`alert-${a.id}`);
    expect(lines.find((l) => l.startsWith(b.id.slice(0, 8)))).toMatch(/paused.*false\s+false.*\(none\)/);
    await temporal.schedule.getHandle(`alert-${a.id}`).delete();
  }, 120_000);

  it('without TEMPORAL_ADDRESS, sync says what to set and exits 1', async () => {
    const r = await runCli(['alerts', 'sync', '--data-dir', tempDir('newsflow-alerts-cli-')], { TEMPORAL_ADDRESS: '' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/set TEMPORAL_ADDRESS/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});
