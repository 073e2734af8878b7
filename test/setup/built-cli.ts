/**
 * Global setup: with NEWSFLOW_BUILT=1 (as .ci/run sets it) the CLI processes the tests spawn run
 * the built JavaScript in dist/ (bin/newsflow.js) instead of compiling the TypeScript through tsx
 * at each start. The built files must be those of the sources under test: a dist/ older than any
 * source file is built again here (`npm run build`), with its time printed. Without
 * NEWSFLOW_BUILT the CLIs run the sources and nothing is built.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/paths.js';

/** What the build compiles or copies (scripts/build.mjs, tsconfig.build.json). */
const SOURCES = [
  'lib',
  'spec',
  'client',
  'service',
  'activities',
  'workflows',
  'warehouse',
  'temporal',
  'pipelines',
  'tsconfig.build.json',
  'tsconfig.json',
  'package.json',
];
const BUILT = path.join(repoRoot, 'dist', 'pipelines', 'cli', 'index.js');

function newestSource(p: string): { file: string; ms: number } {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return { file: p, ms: st.mtimeMs };
  let best = { file: p, ms: 0 };
  for (const e of fs.readdirSync(p)) {
    const n = newestSource(path.join(p, e));
    if (n.ms > best.ms) best = n;
  }
  return best;
}

/** Why dist/ cannot be run as it is (missing, or older than a source file), or null when it is current. */
export function staleBuild(): string | null {
  if (!fs.existsSync(BUILT)) return 'dist/ is not built';
  const builtMs = fs.statSync(BUILT).mtimeMs;
  const newest = SOURCES.map((s) => newestSource(path.join(repoRoot, s))).reduce((a, b) => (b.ms > a.ms ? b : a));
  return newest.ms > builtMs ? `${path.relative(repoRoot, newest.file)} changed after dist/ was built` : null;
}

export default function setup(): void {
  if (process.env.NEWSFLOW_BUILT !== '1') return;
  const why = staleBuild();
  if (!why) return;
  const t0 = Date.now();
  console.log(`test setup: NEWSFLOW_BUILT=1 and ${why}: npm run build`);
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status}); the CLI tests would run stale or no built files`);
  console.log(`test setup: built dist/ in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
