/**
 * The Temporal a command talks to: TEMPORAL_ADDRESS (+ TEMPORAL_NAMESPACE) when set; otherwise a
 * server of our own under the data dir, stopped on exit: the CLI dev server (dev-server.ts), or
 * with NEWSFLOW_TEMPORAL=postgres the Temporal server on PostgreSQL (postgres-server.ts).
 */
import path from 'node:path';
import { startDevServer, TEMPORAL_UI_PORT } from './dev-server.js';
import { preferredPort } from './ports.js';
import { runningServer, TemporalSetupError, type TemporalEndpoint, type TemporalSettings } from './types.js';

/** TEMPORAL_ADDRESS when set, else a dev server of our own under the data dir (NEWSFLOW_TEMPORAL=postgres: the Temporal server on PostgreSQL, temporal/postgres-server.ts). */
export async function temporalEndpoint(opts: {
  dataDir: string;
  /** the project's Temporal settings (project.temporal) */
  temporal: TemporalSettings;
  log?: (m: string) => void;
  /** a dev server without the Web UI (a one-off run, which shows none) */
  headless?: boolean;
}): Promise<TemporalEndpoint> {
  const running = runningServer(opts.temporal);
  if (running) return { address: running, namespace: opts.temporal.namespace, uiUrl: null, stop: async () => {} };
  const kind = opts.temporal.server;
  if (kind === 'postgres') {
    const { startPostgresTemporal } = await import('./postgres-server.js');
    return startPostgresTemporal({ dataDir: path.join(opts.dataDir, 'temporal'), log: opts.log, pgUrl: opts.temporal.pgUrl });
  }
  if (kind !== 'dev')
    throw new TemporalSetupError(`NEWSFLOW_TEMPORAL must be dev (the CLI dev server, SQLite) or postgres (the Temporal server on PostgreSQL); got ${kind}`);
  const dataDir = path.join(opts.dataDir, 'temporal');
  if (opts.headless) return startDevServer({ dataDir, headless: true, log: opts.log });
  const asked = opts.temporal.uiPort;
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
