/**
 * The Temporal a command talks to: TEMPORAL_ADDRESS (+ TEMPORAL_NAMESPACE) when set; otherwise a
 * server of our own under the data dir, stopped on exit: the CLI dev server (dev-server.ts), or
 * with NEWSFLOW_TEMPORAL=postgres the Temporal server on PostgreSQL (postgres-server.ts).
 */
import path from 'node:path';
import { startDevServer, TEMPORAL_UI_PORT } from './dev-server.js';
import { preferredPort } from './ports.js';
import { TemporalSetupError, type TemporalEndpoint } from './types.js';

/** TEMPORAL_ADDRESS when set, else a dev server of our own under the data dir (NEWSFLOW_TEMPORAL=postgres: the Temporal server on PostgreSQL, pipelines/temporal/postgres-server.ts). */
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
    const { startPostgresTemporal } = await import('./postgres-server.js');
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
