/**
 * Where the master key file of secrets at rest goes (service/auth/secrets.ts): outside any data
 * dir, in the user's configuration folder. The environment is given by the config modules
 * (service/config.ts, pipelines/config/secrets.ts), never read here.
 */
import os from 'node:os';
import path from 'node:path';

/** $XDG_CONFIG_HOME/newsflow/secret.key, else ~/.config/newsflow/secret.key. */
export function defaultKeyFile(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? path.resolve(env.XDG_CONFIG_HOME) : path.join(env.HOME?.trim() || os.homedir(), '.config');
  return path.join(base, 'newsflow', 'secret.key');
}
