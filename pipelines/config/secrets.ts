import { defaultKeyFile } from '../../lib/secret-key-file.js';

/**
 * The service store's secret key of this process (NEWSFLOW_SECRET_KEY, and NEWSFLOW_SECRET_KEY_OLD
 * while rotating): read here, where the environment is read, and never kept in the project (the
 * project is cached on disk; a secret never is).
 */
export const secretKeys = (env: NodeJS.ProcessEnv = process.env): { secretKey?: string; oldKey?: string; keyFile: string } => ({
  secretKey: env.NEWSFLOW_SECRET_KEY || undefined,
  oldKey: env.NEWSFLOW_SECRET_KEY_OLD || undefined,
  // the master key file outside the data dir: $XDG_CONFIG_HOME/newsflow/secret.key, else ~/.config/newsflow/secret.key
  keyFile: defaultKeyFile(env),
});
