/** Kill test: SIGKILL the worker process at three different pages; after restarts the warehouse equals an uninterrupted run. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DistributionStore } from '../../service/store/distribution.js';
import { openSnapshot } from '../../warehouse/read.js';
import { startCorpusService, sql } from '../helpers/news.js';
import { tempDir, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { waitUntil } from '../helpers/wait-until.js';

let svc: TestService;
let key: string;
let temporal: Client;
const limits = 'distribution=20:5:2,news=1000:1000:50';
beforeAll(async () => {
  svc = await startCorpusService({ limitsText: limits });
  await new DistributionStore(svc.services.db).simulate({ months: 4, seed: 2, eventsPerDay: 300, now: new Date('2022-07-15T00:00:00Z') });
  await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com'] });
  key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-dist-kill' });
}, 180_000);
afterAll(async () => svc?.stop());

/** A worker process; resolves `pages` as it logs landed pages. */
function worker(dataDir: string): { proc: ChildProcess; pages: () => number; exited: Promise<number | null> } {
  let landed = 0;
  const proc = spawn(process.execPath, [path.join(repoRoot, 'bin', 'newsflow.js'), 'worker', '--data-dir', dataDir], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: 'nf-dist-kill',
      NEWSFLOW_API_URL: svc.url,
      NEWSFLOW_API_KEY: key,
      NEWSFLOW_LIMITS: limits,
    },
  });
  const count = (d: Buffer) => (landed += (String(d).match(/landed page/g) ?? []).length);
  proc.stdout!.on('data', count);
  proc.stderr!.on('data', count);
  const exited = new Promise<number | null>((r) => proc.once('exit', r));
  return { proc, pages: () => landed, exited };
}

describe('distributionPull survives SIGKILL', () => {
  it('resumes after the last landed page: no duplicate, no gap', async () => {
    const dir = tempDir('newsflow-kill-');
    const handle = await temporal.workflow.start('distributionPull', {
      taskQueue: 'newsflow-distribution',
      workflowId: `dist-kill-${Date.now()}`,
      args: [{ domains: ['reuters.com', 'apnews.com'], from: '2022-03-01T00:00:00.000Z', to: '2022-07-01T00:00:00.000Z', pageSize: 15 }],
    });
    let total = 0;
    for (const killAt of [3, 4, 5]) {
      const w = worker(dir);
      await waitUntil(() => w.pages() >= killAt, { what: `${killAt} pages landed`, timeoutMs: 120_000 }).catch((e) => {
        w.proc.kill('SIGKILL');
        throw e;
      });
      total += w.pages();
      w.proc.kill('SIGKILL');
      await w.exited;
    }
    const last = worker(dir);
    const result = (await handle.result()) as { windows: number; pages: number };
    last.proc.kill('SIGTERM');
    await last.exited;
    expect(result.windows).toBe(4);
    expect(total).toBeGreaterThanOrEqual(12);

    const expected = await sql<{ m: string; id: string; n: bigint }>(
      svc,
      `SELECT strftime(ts, '%Y-%m') AS m, article_id::VARCHAR AS id, count(*) AS n FROM hit_events
      WHERE kind = 'surface' AND ts >= TIMESTAMP '2022-03-01' AND ts < TIMESTAMP '2022-07-01' AND domain IN ('reuters.com', 'apnews.com')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const snap = await openSnapshot(dir);
    const landed = await snap.all(`SELECT strftime(window_start, '%Y-%m') AS m, article_id AS id, hit_count AS n FROM distribution_top_articles ORDER BY 1, 2`);
    const pages = await snap.all(
      `SELECT strftime(window_start, '%Y-%m') AS m, list(page ORDER BY page) AS pages FROM distribution_pages GROUP BY 1 ORDER BY 1`,
    );
    snap.close();
    expect(landed.map((x) => `${x.m} ${x.id} ${Number(x.n)}`)).toEqual(expected.map((x) => `${x.m} ${x.id} ${Number(x.n)}`));
    for (const p of pages) expect(p.pages).toEqual(Array.from({ length: (p.pages as number[]).length }, (_, i) => i + 1));
    expect(result.pages).toBe(pages.reduce((s, p) => s + (p.pages as number[]).length, 0));
  }, 400_000);
});
