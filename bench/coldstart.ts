/**
 * Cold start: seconds from `newsflow start` on an empty data dir to the first landed load (the
 * first `load …` line of its status), without the enriched-corpus cache (an empty
 * NEWSFLOW_CACHE_DIR), then with it (a second empty data dir, the cache the first run left when
 * stopped a minute after its status: the last day's articles and what the background enriched by
 * then). The load average is part of the result: the machine may be shared.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'newsflow.js');
const loadavg = () => os.loadavg().map((l) => Number(l.toFixed(2)));

/** One start: seconds to the first load line; with `linger`, it runs that long after its status (the cache fills). */
async function start(cacheDir: string, lingerMs = 0): Promise<{ firstLoad: number | null; status: number | null }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-start-'));
  const t0 = Date.now();
  const child = spawn(process.execPath, [bin, 'start', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, NEWSFLOW_CACHE_DIR: cacheDir, NEWSFLOW_API_URL: '', NEWSFLOW_API_KEY: '', TEMPORAL_ADDRESS: '' },
  });
  let out = '';
  let firstLoad: number | null = null;
  let status: number | null = null;
  child.stdout.on('data', (d) => {
    out += d;
    if (firstLoad === null && /^load /m.test(out)) firstLoad = (Date.now() - t0) / 1000;
    if (status === null && /^Ctrl-C stops everything/m.test(out)) status = (Date.now() - t0) / 1000;
  });
  child.stderr.resume();
  const until = t0 + 600_000;
  const done = () => firstLoad !== null && (!lingerMs || (status !== null && Date.now() - t0 > status * 1000 + lingerMs));
  while (child.exitCode === null && Date.now() < until && !done()) await new Promise((r) => setTimeout(r, 200));
  const exited = new Promise((r) => child.once('exit', r));
  if (child.exitCode === null) child.kill('SIGINT');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { firstLoad, status };
}

export async function benchColdStart(): Promise<Record<string, unknown>> {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-cache-'));
  const before = loadavg();
  const fresh = await start(cacheDir, 60_000);
  const cached = await start(cacheDir);
  fs.rmSync(cacheDir, { recursive: true, force: true });
  return {
    bench: 'coldstart: newsflow start on an empty data dir to the first landed load',
    fresh_s: fresh.firstLoad,
    fresh_status_s: fresh.status,
    cached_s: cached.firstLoad,
    cached_status_s: cached.status,
    goal_s: 60,
    loadavg_before: before,
    loadavg_after: loadavg(),
    cores: os.cpus().length,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) console.log(JSON.stringify(await benchColdStart()));
