/** Where newsflow keeps what it builds or computes once per machine (corpus cache, Temporal binaries, bench data). */
import os from 'node:os';
import path from 'node:path';

/** NEWSFLOW_CACHE_DIR, else $XDG_CACHE_HOME/newsflow, else ~/.cache/newsflow. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NEWSFLOW_CACHE_DIR) return path.resolve(env.NEWSFLOW_CACHE_DIR);
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'newsflow');
}
