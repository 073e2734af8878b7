/** Run the newsflow CLI as a child process and collect its exit code and output. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.js';

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
