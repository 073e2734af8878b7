/**
 * `newsflow run` when the API fails inside a running pipeline: an answer retrying cannot heal ends
 * the run after one attempt with the API's code and detail; a 503 is retried, each retry printed;
 * a SIGTERM mid-run leaves no Temporal dev server of ours behind. Real service, real processes.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../../service/errors/index.js';
import type { HandlerCtx } from '../../../service/context.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { bin, exitWithin, runCli } from '../../helpers/cli.js';
import { waitUntil } from '../../helpers/wait-until.js';

const EMPTY_PAGE = { as_string: null, as_dicts: [], offset: 0 };
const ingest = ['run', 'news', '--from', '2022-07-08', '--to', '2022-07-09', '--page-size', '20'];
/** the preflight asks for one result; the pipeline for a page of 20 */
const isPipeline = (ctx: HandlerCtx<'search_news'>) => ctx.query.n_articles !== 1;

let svc: TestService | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await svc?.stop();
  svc = null;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const dataDir = () => {
  const d = tempDir('newsflow-runfail-');
  dirs.push(d);
  return d;
};

describe('newsflow run: API failures inside a running pipeline', () => {
  it("a 403 ends the run after one attempt, with the API's code and detail, exit 1; the bundle report is in the log file, not on stderr", async () => {
    let calls = 0;
    svc = await startTestService({
      validateResponses: false,
      handlers: {
        search_news: (ctx) => {
          if (!isPipeline(ctx)) return EMPTY_PAGE;
          calls++;
          throw new HttpError(403, 403777, 'historical search needs the analyst plan (test)');
        },
      },
    });
    const dir = dataDir();
    const r = await runCli([...ingest, '--data-dir', dir], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '' });
    console.log(`exit ${r.code}; pipeline calls ${calls}; last stderr line: ${r.err.trim().split('\n').pop()}`);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n').pop(), r.err.slice(-3000)).toBe(
      'error: news failed: search_news: HTTP 403 (code 403777): historical search needs the analyst plan (test)',
    );
    expect(calls).toBe(1);
    expect(r.err).not.toMatch(/retry /);
    expect(r.err).not.toMatch(/webpack|asset workflow-bundle/);
    expect(fs.readFileSync(path.join(dir, 'logs', 'worker.log'), 'utf8')).toMatch(/webpack \d+\.\d+\.\d+ compiled successfully/);
  }, 180_000);

  it('a 503 is retried and each retry is printed as one line (attempt, reason, next try); the run then succeeds', async () => {
    let calls = 0;
    svc = await startTestService({
      validateResponses: false,
      handlers: {
        search_news: (ctx) => {
          if (!isPipeline(ctx)) return EMPTY_PAGE;
          calls++;
          if (calls <= 2) throw new HttpError(503, 503001, 'index is reloading (test)');
          return EMPTY_PAGE;
        },
      },
    });
    const r = await runCli([...ingest, '--data-dir', dataDir()], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '' });
    const retries = r.err.split('\n').filter((l) => l.startsWith('retry '));
    console.log(`exit ${r.code}; pipeline calls ${calls}; retry lines:\n${retries.join('\n')}`);
    expect(r.code, r.err.slice(-800)).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n').pop()!)).toMatchObject({ pages: 1, received: 0 });
    expect(calls).toBe(3);
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(/^retry search_news: attempt 1 failed \(HTTP 503 \(code 503001\): index is reloading \(test\)\); attempt 2 in \d+\.\d s$/);
    expect(retries[1]).toMatch(/^retry search_news: attempt 2 failed \(HTTP 503 \(code 503001\): index is reloading \(test\)\); attempt 3 in \d+\.\d s$/);
  }, 180_000);
});

/** Children of `pid` whose command line is the Temporal CLI's dev server. */
function temporalChildren(pid: number): number[] {
  const r = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((c) => {
      try {
        return /temporal.*server.*start-dev/.test(fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').replace(/\0/g, ' '));
      } catch {
        return false;
      }
    });
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2]!.startsWith('Z');
  } catch {
    return false;
  }
};

describe('newsflow run: ended by a signal', () => {
  it('after SIGTERM mid-run, no temporal process it started remains (checked by PID)', async () => {
    let calls = 0;
    svc = await startTestService({
      validateResponses: false,
      handlers: {
        search_news: (ctx) => {
          if (!isPipeline(ctx)) return EMPTY_PAGE;
          calls++;
          throw new HttpError(503, 503001, 'down for the test');
        },
      },
    });
    const child = spawn(process.execPath, [bin, ...ingest, '--data-dir', dataDir()], {
      env: { ...process.env, NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '' },
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', () => {});
    // mid-run: the pipeline has asked for its first page (and is retrying it)
    await waitUntil(() => calls > 0, { what: 'the first page asked for', timeoutMs: 150_000, intervalMs: 200 }).catch((e) => {
      child.kill('SIGKILL');
      throw e;
    });
    const servers = temporalChildren(child.pid!);
    console.log(`newsflow pid ${child.pid}; its temporal dev server pid(s) ${servers.join(', ')}; pipeline calls so far ${calls}`);
    expect(servers).toHaveLength(1);
    expect(alive(servers[0]!)).toBe(true);
    child.kill('SIGTERM');
    // a generous wait for it to stop; a process still running then is ended, and its dev server looked for
    const code = await exitWithin(child, 60_000);
    if (code === 'running') child.kill('SIGKILL');
    const left = servers.filter(alive);
    console.log(`exit ${code}; temporal processes left: ${left.length ? left.join(', ') : 'none'}`);
    for (const pid of left) process.kill(pid, 'SIGKILL'); // not ours to leave behind, even when the test fails
    expect(left).toEqual([]);
    expect(code).toBe(143);
    expect(err).toMatch(/newsflow: SIGTERM, stopping/);
  }, 200_000);
});
