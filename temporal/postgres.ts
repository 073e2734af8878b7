/**
 * PostgreSQL for Temporal's persistence: `NEWSFLOW_PG_URL` (postgres://user:password@host:port),
 * else a cluster of our own under `<data dir>/postgres`, made with Debian's PostgreSQL 15
 * (`initdb`, `pg_ctl`). PostgreSQL refuses to run as root, so a root process runs them as the
 * `postgres` user (runuser) and hands the directory to it. The cluster listens on 127.0.0.1 only,
 * on a free port, with trust authentication for local connections.
 */
import { UserError } from '../lib/errors.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { preferredPort } from './ports.js';

export class PostgresSetupError extends UserError {}

export interface PgEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  /** a cluster we started (stop() stops it); null for NEWSFLOW_PG_URL */
  dataDir: string | null;
  stop(): Promise<void>;
}

/** Where Debian's PostgreSQL binaries are: NEWSFLOW_PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function pgBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NEWSFLOW_PG_BIN) return env.NEWSFLOW_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (fs.existsSync(path.join(root, v, 'bin', 'initdb'))) return path.join(root, v, 'bin');
  throw new PostgresSetupError(
    'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install postgresql-15, set NEWSFLOW_PG_BIN, or give NEWSFLOW_PG_URL',
  );
}

export function parsePgUrl(url: string): Omit<PgEndpoint, 'stop' | 'dataDir'> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PostgresSetupError(`NEWSFLOW_PG_URL is not a URL: expected postgres://user:password@host:5432`);
  }
  if (!/^postgres(ql)?:$/.test(u.protocol)) throw new PostgresSetupError(`NEWSFLOW_PG_URL must start with postgres:// (got ${u.protocol})`);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: decodeURIComponent(u.password),
  };
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Run a PostgreSQL program, as the postgres user when we are root. */
function pg(bin: string, args: string[], what: string): string {
  const cmd = asRoot ? 'runuser' : bin;
  const argv = asRoot ? ['-u', 'postgres', '--', bin, ...args] : args;
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new PostgresSetupError(
      `${what} failed (${path.basename(bin)} exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || String(r.error ?? '')).trim().slice(0, 600)}`,
    );
  return r.stdout;
}

/** Make (once) and start the cluster under `dir`; the port is kept in `dir/newsflow.port`. */
export async function startPostgres(opts: {
  dataDir: string;
  log?: (m: string) => void;
  /** no fsync, asynchronous commits, no full-page writes: for throwaway clusters (tests), never for data to keep */
  unsafeFast?: boolean;
  /** a PostgreSQL of yours (the project's NEWSFLOW_PG_URL): used as it is, nothing started */
  pgUrl?: string;
}): Promise<PgEndpoint> {
  if (opts.pgUrl) return { ...parsePgUrl(opts.pgUrl), dataDir: null, stop: async () => {} };
  const bin = pgBinDir();
  const dir = path.resolve(opts.dataDir);
  const cluster = path.join(dir, 'cluster');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (asRoot) {
    spawnSync('chown', ['-R', 'postgres:postgres', dir]);
    if (spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-w', dir]).status !== 0) {
      throw new PostgresSetupError(
        `PostgreSQL runs as the postgres user, which cannot reach ${dir} (a parent folder is closed to it): use a data dir it can reach, or give NEWSFLOW_PG_URL`,
      );
    }
  }
  if (!fs.existsSync(path.join(cluster, 'PG_VERSION'))) {
    opts.log?.(`PostgreSQL: initdb ${cluster}`);
    pg(path.join(bin, 'initdb'), ['-D', cluster, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions'], 'initdb');
  }
  const pidFile = path.join(cluster, 'postmaster.pid');
  const portFile = path.join(dir, 'newsflow.port');
  if (fs.existsSync(pidFile) && fs.existsSync(portFile)) {
    // a cluster left running (or a stale pid file): pg_ctl status tells
    const st = spawnSync(
      asRoot ? 'runuser' : path.join(bin, 'pg_ctl'),
      asRoot ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), 'status', '-D', cluster] : ['status', '-D', cluster],
    );
    if (st.status === 0) {
      const port = Number(fs.readFileSync(portFile, 'utf8'));
      opts.log?.(`PostgreSQL: already running on 127.0.0.1:${port}`);
      return endpoint(bin, cluster, port, false);
    }
  }
  const port = await preferredPort(5432);
  fs.writeFileSync(portFile, String(port));
  opts.log?.(`PostgreSQL: starting on 127.0.0.1:${port}`);
  const fast = opts.unsafeFast ? ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off' : '';
  pg(
    path.join(bin, 'pg_ctl'),
    [
      '-D',
      cluster,
      '-l',
      path.join(cluster, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${cluster} -c listen_addresses=127.0.0.1 -c max_connections=200${fast}`,
      'start',
    ],
    'pg_ctl start',
  );
  return endpoint(bin, cluster, port, true);
}

function endpoint(bin: string, cluster: string, port: number, owned: boolean): PgEndpoint {
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: '',
    dataDir: cluster,
    stop: async () => {
      if (!owned) return;
      try {
        pg(path.join(bin, 'pg_ctl'), ['-D', cluster, '-m', 'fast', '-w', 'stop'], 'pg_ctl stop');
      } catch {
        /* already stopped */
      }
    },
  };
}
