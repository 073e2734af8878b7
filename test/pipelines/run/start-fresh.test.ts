/**
 * The first five minutes: `npx newsflow start` on a fresh data dir with an empty enriched-corpus
 * cache (NEWSFLOW_CACHE_DIR in a temp dir) lands its first load; the README's SQL examples, run
 * as printed, return rows; the terminal is a short status, not a log.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';
import { exitWithin, waitForOutput } from '../../helpers/cli.js';

/** The SQL examples of the README's quickstart: the sh block after "Once it prints its status:". */
function readmeExamples(): string[] {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const block = /Once it prints its status:\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('npx newsflow sql "'));
}

describe('newsflow start on a fresh clone', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-fresh-data-'));
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-fresh-cache-'));
  let child: ChildProcess;
  let terminal = '';
  let firstLoadSeconds = 0;

  beforeAll(async () => {
    const t0 = Date.now();
    child = spawn('npx', ['newsflow', 'start', '--port', '0', '--data-dir', dataDir], {
      cwd: repoRoot,
      env: { ...process.env, NEWSFLOW_CACHE_DIR: cacheDir, NEWSFLOW_API_URL: '', NEWSFLOW_API_KEY: '', TEMPORAL_ADDRESS: '', NEWSFLOW_LOG_LEVEL: 'info' },
      detached: true,
    });
    child.stdout!.on('data', (d) => (terminal += d));
    child.stderr!.on('data', (d) => (terminal += d));
    // the test below says what was printed when no load landed
    await waitForOutput(child, () => terminal, /^load (ukraine|covid): [1-9]/m, 280_000).catch(() => undefined);
    firstLoadSeconds = (Date.now() - t0) / 1000;
    console.log(
      `fresh start (empty data dir, empty cache): first landed news load after ${firstLoadSeconds.toFixed(1)} s; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
  }, 300_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      process.kill(-child.pid!, 'SIGINT');
      await exitWithin(child, 30_000);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }, 60_000);

  it("lands its first load, and the README's four SQL examples, run as printed, return rows", () => {
    expect(terminal, terminal.slice(-2000)).toMatch(/^load (ukraine|covid): [1-9]\d* rows received/m);
    const examples = readmeExamples();
    expect(examples).toHaveLength(4);
    for (const line of examples) {
      // exactly as printed (a table), in the repo, with the data dir of this start
      const r = spawnSync('sh', ['-c', line], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, NEWSFLOW_DATA_DIR: dataDir } });
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      const lines = r.stdout.split('\n');
      const sep = lines.findIndex((l) => /^-+(\+-+)*$/.test(l.trim()));
      const rows = lines.slice(sep + 1).filter((l) => l.trim() && !/^\(\d+ rows?\)$/.test(l.trim()));
      console.log(`${rows.length} rows: ${line}`);
      expect(sep, r.stdout).toBeGreaterThan(0);
      expect(rows.length, r.stdout).toBeGreaterThan(0);
    }
  }, 120_000);

  it('prints a short status and one line per load: no request log lines, no worker state dumps', () => {
    for (const l of [
      /^Service: +http:\/\/127\.0\.0\.1:\d+/m,
      /export NEWSFLOW_API_KEY=nfk_/,
      /^Temporal UI: http:\/\/127\.0\.0\.1:\d+/m,
      /^Warehouse: +\S+ \(a DuckLake: its catalog lake\.sqlite/m,
      /^Logs: +.*logs/m,
      /^ {2}ukraine +newsIngest +next \d{4}-\d\d-\d\d \d\d:\d\d UTC$/m,
      /^ {2}covid +newsIngest +next \d{4}-\d\d-\d\d \d\d:\d\d UTC$/m,
      /^Backfill: +the last 7 days of ukraine, covid/m,
      /^Ctrl-C stops everything\.$/m,
    ]) {
      expect(terminal).toMatch(l);
    }
    expect(terminal).not.toMatch(/incoming request|request completed|"reqId"|"level":30/);
    expect(terminal).not.toMatch(/Worker state changed|TMPRL\d+|temporalio_sdk_core|"sdkComponent"/);
    // the request log is in the data dir instead
    expect(fs.readFileSync(path.join(dataDir, 'logs', 'service.log'), 'utf8')).toMatch(/incoming request/);
    expect(fs.existsSync(path.join(dataDir, 'logs', 'worker.log'))).toBe(true);
    console.log(`terminal: ${terminal.split('\n').length} lines\n${terminal.replace(/nfk_\S+/, 'nfk_…')}`);
  });
});
