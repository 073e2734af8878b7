/** Run the newsflow CLI as a child process and collect its exit code and output; wait on the output or exit of one that runs on. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.js';
import { waitUntil } from './wait-until.js';

export const bin = path.join(repoRoot, 'bin', 'newsflow.js');

export function runCli(
  args: string[],
  env: Record<string, string> = {},
  opts: { cwd?: string } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, cwd: opts.cwd });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

/**
 * Wait until `text()` (a child's output so far) matches `re`; throws, with the output's tail, when
 * the child exits first or `timeoutMs` passes. Returns the match.
 */
export async function waitForOutput(child: ChildProcess, text: () => string, re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  const m = await waitUntil(() => re.exec(text()) ?? (child.exitCode !== null || child.signalCode !== null ? 'exited' : null), {
    what: `output matching ${re}`,
    timeoutMs,
    intervalMs: 100,
  }).catch((e: Error) => e);
  if (m instanceof Error || m === 'exited') {
    const why = m === 'exited' ? `the process exited (${child.exitCode ?? child.signalCode}) first` : m.message;
    throw new Error(`no output matching ${re}: ${why}; its output ends:\n${text().slice(-1500)}`);
  }
  return m;
}

/** The exit code of `child` once it has exited, or 'running' when it still runs after `timeoutMs`. */
export async function exitWithin(child: ChildProcess, timeoutMs: number): Promise<number | null | 'running'> {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return waitUntil(exited, { what: `pid ${child.pid} exited`, timeoutMs, intervalMs: 50 }).then(
    () => child.exitCode,
    () => 'running' as const,
  );
}

/** A `newsflow worker` process on `dataDir` with `env` over the test's environment; its stdout and stderr gathered in `log()`. */
export function spawnWorker(dataDir: string, env: Record<string, string>): { proc: ChildProcess; exited: Promise<number | null>; log: () => string } {
  let log = '';
  const proc = spawn(process.execPath, [bin, 'worker', '--data-dir', dataDir], { env: { ...process.env, ...env } });
  proc.stdout!.on('data', (d) => (log += d));
  proc.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', r));
  return { proc, exited, log: () => log };
}
