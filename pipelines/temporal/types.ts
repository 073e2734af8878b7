/** What every part of pipelines/temporal shares: the endpoint a command talks to and the errors it reports. */
import { UserError } from '../../lib/errors.js';

export class TemporalSetupError extends UserError {}
/** A workflow run ended without its result: the message is one line, the run's failure. */
export class RunFailedError extends UserError {}

export interface TemporalEndpoint {
  address: string;
  namespace: string;
  /** Web UI, when we started the dev server */
  uiUrl: string | null;
  /** process id of the dev server we started */
  pid?: number;
  stop(): Promise<void>;
}
