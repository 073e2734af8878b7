/**
 * Kill test of alert delivery: the worker process is SIGKILLed the moment its first webhook POST
 * reaches a receiver, i.e. after the POST and before the worker records it. After a restart every
 * triggered log is delivered to every trigger; a POST that was repeated carried the same
 * Idempotency-Key and body.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { api, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { holdFeed, releaseUntil } from '../helpers/pipeline.js';

const NS = 'nf-alerts-kill';
const LIMITS = 'chat=1000:1000:50,news=1000:1000:50';
const FEED = path.join(repoRoot, 'test/fixtures/corpus/alerts-feed.json');
let svc: TestService;
let temporal: Client;

beforeAll(async () => {
  // the receivers listen on loopback: the service (alert creation) and the worker (delivery) allow it
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  svc = await startTestService({ limitsText: LIMITS });
  await holdFeed(svc, FEED);
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: NS });
}, 180_000);
afterAll(async () => {
  await svc?.stop();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

function worker(dataDir: string): { proc: ChildProcess; ready: Promise<void>; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, [path.join(repoRoot, 'bin', 'newsflow.js'), 'worker', '--data-dir', dataDir], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: NS,
      NEWSFLOW_API_URL: svc.url,
      NEWSFLOW_API_KEY: svc.keys.org,
      NEWSFLOW_LIMITS: LIMITS,
      NEWSFLOW_SMTP_URL: '',
    },
  });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('worker running')) resolve();
    });
    proc.stderr!.on('data', (d) => (out += d));
    proc.once('exit', (c) => reject(new Error(`worker exited ${c}: ${out}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((r) => proc.once('exit', r));
  return { proc, ready, exited };
}

const release = (left: number) => releaseUntil(svc, left, 3000);

describe('alert delivery survives SIGKILL between the POST and its record', () => {
  it('every triggered log reaches every webhook; a repeated POST has the same key and body', async () => {
    let victim: ChildProcess | null = null;
    let killedKey: string | null = null;
    const got: { hook: string; key: string; body: string }[] = [];
    const servers = ['a', 'b'].map((hook) =>
      http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          got.push({ hook, key: String(req.headers['idempotency-key']), body });
          if (victim && !killedKey) {
            killedKey = String(req.headers['idempotency-key']);
            victim.kill('SIGKILL');
          }
          res.writeHead(200).end('ok');
        });
      }),
    );
    for (const s of servers) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const url = (i: number) => `http://127.0.0.1:${(servers[i]!.address() as AddressInfo).port}/hook`;
    const created = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
      query: 'earthquake',
      cron: '0 0 1 1 *',
      alert_type: 'AlwaysAlertWhen',
      triggers: [
        { action: 'webhook', params: { url: url(0) } },
        { action: 'webhook', params: { url: url(1) } },
      ],
    });
    expect(created.status).toBe(201);
    const alertId = created.body.id as string;
    const dir = tempDir('newsflow-alert-kill-');

    const w1 = worker(dir);
    await w1.ready;
    victim = w1.proc;
    await release(12);
    const run1 = await temporal.workflow.start('alertRun', { taskQueue: TASK_QUEUES.alerts, workflowId: `alert-kill-1-${Date.now()}`, args: [{ alertId }] });
    await w1.exited;
    expect(killedKey).not.toBeNull();
    const w2 = worker(dir);
    await w2.ready;
    const r1 = (await run1.result()) as { delivered: number; pending: number };
    expect(r1.pending).toBe(0);
    await release(0);
    const r2 = (await temporal.workflow.execute('alertRun', {
      taskQueue: TASK_QUEUES.alerts,
      workflowId: `alert-kill-2-${Date.now()}`,
      args: [{ alertId }],
    })) as { delivered: number; pending: number };
    expect(r2).toMatchObject({ pending: 0 });
    w2.proc.kill('SIGTERM');
    await w2.exited;
    for (const s of servers) s.close();

    const logs = (await api(svc.url, 'GET', `/v1/chat/alerts/${alertId}/logs?all=true`, svc.keys.org)).body.items as { id: string; alert: boolean }[];
    const triggered = logs.filter((l) => l.alert);
    expect(triggered).toHaveLength(2);
    // each (log, trigger) seen at each receiver under one key; only the killed one twice
    const expected = triggered.flatMap((l) => [0, 1].map((i) => `${l.id}.${i}`));
    const seen = new Map<string, { hook: string; body: string }[]>();
    for (const g of got) seen.set(g.key, [...(seen.get(g.key) ?? []), g]);
    expect([...seen.keys()].map((k) => k.split('.').slice(0, 2).join('.')).sort()).toEqual(expected.sort());
    for (const [key, posts] of seen) {
      expect(posts.length, key).toBe(key === killedKey ? 2 : 1);
      expect(new Set(posts.map((p) => p.body)).size).toBe(1);
      expect(new Set(posts.map((p) => p.hook)).size).toBe(1);
      expect(posts[0]!.hook).toBe(key.split('.')[1] === '0' ? 'a' : 'b');
    }
    console.log(
      `kill test: ${triggered.length} triggered logs x 2 webhooks = ${expected.length} deliveries; ${got.length} POSTs received; killed at key ${killedKey}`,
    );
    // the ledger: all delivered; the interrupted one took two attempts
    const wh = await Warehouse.open(dir);
    try {
      const rows = await wh.query<{ key: string; status: string; attempts: number }>('SELECT idempotency_key AS key, status, attempts FROM alert_deliveries');
      expect(rows).toHaveLength(4);
      for (const r of rows) expect(r).toMatchObject({ status: 'delivered', attempts: r.key === killedKey ? 2 : 1 });
    } finally {
      wh.close();
    }
  }, 240_000);
});
