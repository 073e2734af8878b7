/** `newsflow run` (pipelines/cli/pipelines.ts) as a user runs it: its own dev server and worker, against a real service on the seeded corpus. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/service.js';
import { bin, runCli } from '../../helpers/cli.js';

describe('newsflow run news', () => {
  it('runs one window through its own dev server and worker, printing progress and the result', async () => {
    const { startCorpusService } = await import('../../helpers/news.js');
    const svc = await startCorpusService();
    const dir = tempDir('newsflow-run-');
    try {
      const r = await runCli(['run', 'news', '--from', '2022-07-10T00:00:00Z', '--to', '2022-07-10T06:00:00Z', '--page-size', '20', '--data-dir', dir], {
        NEWSFLOW_API_URL: svc.url,
        NEWSFLOW_API_KEY: svc.keys.org!,
        TEMPORAL_ADDRESS: '',
        NEWSFLOW_LOG_LEVEL: 'warn',
      });
      expect(r.code, r.err.slice(-500)).toBe(0);
      const result = JSON.parse(r.out.trim().split('\n').pop()!);
      expect(result.received).toBeGreaterThan(10);
      expect(result.inserted).toBe(result.received);
      expect(r.err).toMatch(/"msg":"newsIngest"/); // plain progress lines when not a terminal
      // the kind's former name is read for this release, with a one-line warning
      const bad = spawnSync(process.execPath, [bin, 'run', 'news-ingest', '--from', '2022-07-10', '--to', '2022-07-01', '--data-dir', dir], {
        encoding: 'utf8',
      });
      expect(bad.status).not.toBe(0);
      expect(bad.stderr.split('\n')[0]).toBe('warning: "news-ingest" is the former name of the kind news, read for this release only: write news');
      expect(bad.stderr).toMatch(/is after --to/);
    } finally {
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('newsflow run distribution', () => {
  it('backfills month windows through its own dev server and worker', async () => {
    const { startCorpusService } = await import('../../helpers/news.js');
    const { DistributionStore } = await import('../../../service/store/distribution.js');
    const svc = await startCorpusService({ limitsText: 'distribution=50:10:2,news=1000:1000:50' });
    await new DistributionStore(svc.services.db).simulate({ months: 3, seed: 3, eventsPerDay: 100, now: new Date('2022-07-15T00:00:00Z') });
    await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com'] });
    const key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
    const dir = tempDir('newsflow-rundist-');
    try {
      const r = await runCli(
        ['run', 'distribution', '--from', '2022-05-10', '--to', '2022-07-01', '--domains', 'reuters.com', '--page-size', '10', '--data-dir', dir],
        { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: key, TEMPORAL_ADDRESS: '', NEWSFLOW_LIMITS: 'distribution=50:10:2', NEWSFLOW_LOG_LEVEL: 'warn' },
      );
      expect(r.code, r.err.slice(-500)).toBe(0);
      const result = JSON.parse(r.out.trim().split('\n').pop()!);
      expect(result.windows).toBe(2);
      expect(result.pages).toBeGreaterThan(2);
      const bad = spawnSync(process.execPath, [bin, 'run', 'distribution', '--from', '2022-05-10', '--to', '2022-06-01', '--data-dir', dir], {
        encoding: 'utf8',
      });
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/--domains is required/);
    } finally {
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
