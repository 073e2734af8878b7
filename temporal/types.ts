/** What every part of temporal/ shares: the endpoint a command talks to and the errors it reports. */
import { UserError } from '../lib/errors.js';

export class TemporalSetupError extends UserError {}
/** A workflow run ended without its result: the message is one line, the run's failure. */
export class RunFailedError extends UserError {}

/** The project's Temporal settings (pipelines/config resolves them, environment included): passed, never read here. */
export interface TemporalSettings {
  /** dev (the CLI dev server, started for you), postgres (the Temporal server on PostgreSQL, started for you) or host:port of a running server */
  server: string;
  namespace: string;
  /** the dev server's Web UI port (default: 8233 when free) */
  uiPort?: string;
  /** postgres: the PostgreSQL to use (postgres://user:password@host:port; default: a cluster of our own) */
  pgUrl?: string;
}

/** host:port of a running server (else the command starts one of its own, or, for a value that is neither, says what is accepted). */
export const runningServer = (t: TemporalSettings): string | null => (/:\d{1,5}$/.test(t.server) ? t.server : null);

export interface TemporalEndpoint {
  address: string;
  namespace: string;
  /** Web UI, when we started the dev server */
  uiUrl: string | null;
  /** process id of the dev server we started */
  pid?: number;
  stop(): Promise<void>;
}
