/** `newsflow seed` and `newsflow start` (pipelines/cli/service.ts) as a user runs them: real processes, a real data dir. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/service.js';
import { bin, exitWithin, runCli, waitForOutput } from '../../helpers/cli.js';
import { waitUntil } from '../../helpers/wait-until.js';

describe('newsflow seed', () => {
  it('loads a corpus, and a second load changes nothing', () => {
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
    const dir = tempDir('newsflow-seed-');
    const seed = () =>
      spawnSync(process.execPath, [bin, 'seed', '--corpus', fixture, '--data-dir', dir, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn' },
      });
    const a = seed();
    expect(a.status, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout.trim().split('\n').pop()!)).toMatchObject({ read: 20, enriched: 20, total: 20 });
    const b = seed();
    expect(JSON.parse(b.stdout.trim().split('\n').pop()!)).toMatchObject({ read: 20, enriched: 0, total: 20 });
    const missing = spawnSync(process.execPath, [bin, 'seed', '--data-dir', dir], { encoding: 'utf8', env: { ...process.env, NEWSFLOW_CORPUS: '' } });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/no corpus: pass --corpus PATH/);
    const bad = spawnSync(process.execPath, [bin, 'seed', '--corpus', '/nope', '--data-dir', dir], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/does not exist/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000); // four CLI processes, each loading the models: minutes on a loaded machine
});

describe('newsflow start', () => {
  it('runs the main job on a small corpus: service, Temporal, worker, schedules, one ingest; Ctrl-C stops it', async () => {
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
    const dir = tempDir('newsflow-start-');
    const child = spawn(process.execPath, [bin, 'start', '--corpus', fixture, '--replay', '36000', '--port', '0', '--data-dir', dir], {
      env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn', NEWSFLOW_API_URL: '', NEWSFLOW_API_KEY: '', TEMPORAL_ADDRESS: '' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', () => {});
    try {
      await waitForOutput(child, () => out, /Ctrl-C stops everything/, 90_000);
      expect(out).toMatch(/Temporal UI: http:\/\/127\.0\.0\.1:\d+/);
      expect(out).toMatch(/Warehouse: +.* \(a DuckLake: /);
      expect(out.match(/newsflow sql "/g)).toHaveLength(4); // the four SQL examples of the README
      // the triggered ingest lands a load
      const loads = await waitUntil(
        async () => {
          const r = await runCli(['sql', 'SELECT count(*) AS n FROM _loads', '--format', 'json', '--warehouse', dir]);
          const n = r.code === 0 ? (JSON.parse(r.out)[0].n as number) : 0;
          return n >= 1 && n; // 0 loads is not yet (waitUntil takes 0 as an answer)
        },
        { what: 'a load in _loads', timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(loads).toBeGreaterThanOrEqual(1);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exitWithin(child, 60_000)).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
