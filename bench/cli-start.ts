/**
 * The CLI's start-up: wall time of `newsflow --help` and `newsflow sql "select 1"` (on a
 * warehouse made first), run from the TypeScript sources through tsx (a checkout) and from the
 * built files (dist/, as the installed package runs them; `npm run build` first), in one run,
 * taking turns, median and p90 of NEWSFLOW_BENCH_CLI_RUNS (default 15) each. Goal: each command
 * built under 300 ms. A cached project (pipelines/config/cached.ts) is what a second command
 * finds: the first run of each warms it and is not counted.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pct, round } from './stats.js';
import { Warehouse } from '../warehouse/warehouse.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'newsflow.js');

function once(args: string[], built: boolean, cwd: string): { wall: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NEWSFLOW_BUILT: built ? '1' : '' }, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`newsflow ${args.join(' ')} (${built ? 'built' : 'tsx'}) exit ${r.status}: ${r.stderr.slice(0, 300)}`);
  return { wall };
}

export async function benchCliStart(): Promise<Record<string, unknown>> {
  if (!fs.existsSync(path.join(root, 'dist', 'pipelines', 'cli', 'index.js'))) throw new Error('bench cli-start: run npm run build first (dist/ is missing)');
  const runs = Number(process.env.NEWSFLOW_BENCH_CLI_RUNS ?? 15);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-cli-'));
  const w = await Warehouse.open(dir);
  w.close();
  const cases: [string, string[]][] = [
    ['help', ['--help']],
    ['sql', ['sql', 'select 1 as one', '--warehouse', dir]],
  ];
  const times: Record<string, number[]> = {};
  const load = [os.loadavg()[0]!];
  for (const [, args] of cases) for (const built of [false, true]) once(args, built, dir); // warm: module caches, the cached project
  for (let i = 0; i < runs; i++)
    for (const [name, args] of cases)
      for (const built of [false, true]) {
        const k = `${name}_${built ? 'built' : 'tsx'}`;
        (times[k] ??= []).push(once(args, built, dir).wall);
      }
  load.push(os.loadavg()[0]!);
  fs.rmSync(dir, { recursive: true, force: true });
  const out: Record<string, unknown> = { bench: 'cli-start', runs, load_avg_1m: load.map((l) => round(l, 2)) };
  for (const [k, xs] of Object.entries(times)) out[k] = { p50_ms: round(pct(xs, 50), 0), p90_ms: round(pct(xs, 90), 0) };
  for (const [name] of cases) out[`${name}_speedup`] = round(pct(times[`${name}_tsx`]!, 50) / pct(times[`${name}_built`]!, 50), 2);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchCliStart()));
