/** One cache dir for everything newsflow builds once per machine: the corpus cache, the Temporal CLI and server. */
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir } from '../../lib/cache-dir.js';
import { serverDir, TEMPORAL_SERVER_VERSION } from '../../temporal/index.js';

describe('the cache dir', () => {
  it('NEWSFLOW_CACHE_DIR first, then $XDG_CACHE_HOME/newsflow (absolute only), then ~/.cache/newsflow', () => {
    expect(cacheDir({ NEWSFLOW_CACHE_DIR: '/srv/nf-cache', XDG_CACHE_HOME: '/xdg' })).toBe('/srv/nf-cache');
    expect(cacheDir({ XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/newsflow');
    expect(cacheDir({ XDG_CACHE_HOME: 'relative/xdg' })).toBe(path.join(os.homedir(), '.cache', 'newsflow'));
    expect(cacheDir({})).toBe(path.join(os.homedir(), '.cache', 'newsflow'));
  });

  it('the Temporal server build lives under it, whichever variable set it', () => {
    expect(serverDir({ XDG_CACHE_HOME: '/xdg' })).toBe(`/xdg/newsflow/temporal-server-${TEMPORAL_SERVER_VERSION}`);
    expect(serverDir({ NEWSFLOW_CACHE_DIR: '/srv/nf-cache' })).toBe(`/srv/nf-cache/temporal-server-${TEMPORAL_SERVER_VERSION}`);
  });
});
