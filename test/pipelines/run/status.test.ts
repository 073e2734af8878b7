/**
 * `newsflow status`'s report on the real Temporal dev server: one pipeline's key revoked (its run
 * fails with the API's code and detail: failing, exit 1), another's worker stopped after a good
 * run (past error_after it is stale: exit 2 when nothing fails).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NewsClient } from '../../../client/index.js';
import { applySchedules, declareSchedules } from '../../../pipelines/schedules/index.js';
import { projectStatus, statusLines, type StatusReport } from '../../../pipelines/run/status.js';
import { openReader } from '../../../warehouse/read.js';
import { Pipeline } from '../../../pipelines/config/schema.js';
import { startCorpusService } from '../../helpers/news.js';
import { startHarness, type Harness } from '../../helpers/pipeline.js';
import type { TestService } from '../../helpers/service.js';
import { waitUntil } from '../../helpers/wait-until.js';

let svc: TestService;
let revokedKey: string;
const decls = declareSchedules([
  Pipeline.parse({ name: 'alpha', kind: 'news', query: 'ukraine', schedule: { every: '1h' } }),
  Pipeline.parse({ name: 'beta', kind: 'news', query: 'covid', schedule: { every: '1h' } }),
]);

beforeAll(async () => {
  svc = await startCorpusService();
  const k = await svc.services.keys.createKey({ name: 'alpha-key', org: 'acme', scopes: ['news', 'profile'], plan: 'enterprise' });
  await svc.services.keys.revokeKey(k.id);
  revokedKey = k.key;
}, 180_000);
afterAll(async () => {
  await svc?.stop();
});

/** A client of the test's namespace for `fn`, closed after it. */
async function withClient<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-status' });
  try {
    return await fn(c);
  } finally {
    await c.connection.close();
  }
}

const runOf = async (h: Harness, schedule: string, status: string) => {
  await h.temporal.schedule.getHandle(schedule).trigger();
  await waitUntil(
    async () => {
      const d = await h.temporal.schedule.getHandle(schedule).describe();
      const last = d.info.recentActions.at(-1);
      if (!last) return false;
      return (await h.temporal.workflow.getHandle(last.action.workflow.workflowId).describe()).status.name === status;
    },
    { what: `${schedule} ${status}`, timeoutMs: 120_000 },
  );
};

describe('newsflow status', () => {
  it('says which pipeline fails (the API code and detail) and which is stale, and exits 1 (failing beats stale), 2 when only stale', async () => {
    // alpha's worker runs with a revoked key
    const bad = await startHarness({ namespace: 'nf-status', client: new NewsClient({ baseUrl: svc.url, apiKey: revokedKey }) });
    await applySchedules(bad.temporal, decls);
    // paused: no run but the ones triggered here
    for (const d of decls) await bad.temporal.schedule.getHandle(d.id).pause('status test');
    await runOf(bad, 'alpha', 'FAILED');
    await bad.stop();
    // beta's worker runs once with a good key, then stops
    const good = await startHarness({ namespace: 'nf-status', client: new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org }) });
    await runOf(good, 'beta', 'COMPLETED');
    for (const d of decls) await good.temporal.schedule.getHandle(d.id).unpause('status test');
    await good.stop();

    const reader = await openReader(good.whDir);
    const report = (now: number, which = decls): Promise<StatusReport> => withClient((c) => projectStatus(c, which, (sql) => reader.all(sql), now));
    try {
      // now: alpha failing, beta fresh
      const r0 = await report(Date.now());
      const [alpha, beta] = r0.pipelines;
      expect(alpha).toMatchObject({ pipeline: 'alpha', state: 'active', health: 'failing', failuresInRow: 1, lastLoad: null });
      expect(alpha!.lastRun).toMatchObject({ status: 'FAILED', error: { code: 401000, detail: 'invalid, expired or revoked API key' } });
      expect(beta).toMatchObject({ pipeline: 'beta', health: 'ok', failuresInRow: 0, lastRun: { status: 'COMPLETED' } });
      expect(beta!.lastLoad).not.toBeNull();
      expect(r0.exitCode).toBe(1);
      // four hours on, with beta's worker still stopped: beta is past error_after (3 x its hourly schedule)
      const r1 = await report(Date.now() + 4 * 3_600_000);
      expect(r1.pipelines.map((p) => p.health)).toEqual(['failing', 'stale']);
      expect(r1.pipelines[1]!.errorAfterMs).toBe(3 * 3_600_000);
      expect(r1.exitCode).toBe(1);
      const text = statusLines(r1);
      console.log(`newsflow status (4 h on):\n${text}`);
      expect(text).toContain('alpha: API error 401000: invalid, expired or revoked API key');
      expect(text).toMatch(/exit 1$/);
      // stale alone: exit 2
      const onlyBeta = await report(Date.now() + 4 * 3_600_000, decls.slice(1));
      expect(onlyBeta.exitCode).toBe(2);
      console.log(`newsflow status (beta only, 4 h on):\n${statusLines(onlyBeta)}`);
    } finally {
      reader.close();
      await withClient(async (c) => {
        for (const d of decls)
          await c.schedule
            .getHandle(d.id)
            .delete()
            .catch(() => undefined);
      });
    }
  });
});
