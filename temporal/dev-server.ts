/**
 * The Temporal CLI dev server started by us, persisting to a SQLite file under the data dir. It is
 * never left running: stop() ends it, and it is killed when our process exits any other way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { atExit } from './shutdown.js';
import { freePort } from './ports.js';
import { findTemporalCli } from './temporal-cli.js';
import { TemporalSetupError, type TemporalEndpoint } from './types.js';

/** The UI port of the dev server newsflow starts: `NEWSFLOW_TEMPORAL_UI_PORT`, else 8233 or the next free one. */
export const TEMPORAL_UI_PORT = 8233;

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
