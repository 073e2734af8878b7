/**
 * The Temporal server itself (not the CLI dev server), with PostgreSQL persistence and SQL
 * visibility: `newsflow temporal install` builds it and its schema tool with
 * `go install go.temporal.io/server/cmd/server@v1.29.1` (and cmd/tools/sql) into
 * `~/.cache/newsflow/temporal-server-1.29.1/`, beside the PostgreSQL schema files of that module;
 * `newsflow start --temporal postgres` (or NEWSFLOW_TEMPORAL=postgres) starts PostgreSQL
 * (temporal/postgres.ts), creates and migrates Temporal's two databases (idempotent), writes the
 * server's config under `<data dir>/temporal-pg/` and runs the server on free local ports.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../lib/cache-dir.js';
import { atExit } from './shutdown.js';
import { freePort, preferredPort } from './ports.js';
import { startPostgres, type PgEndpoint } from './postgres.js';
import { findTemporalCli } from './temporal-cli.js';
import { TemporalSetupError, type TemporalEndpoint } from './types.js';

export const TEMPORAL_SERVER_VERSION = '1.29.1';
const MODULE = 'go.temporal.io/server';

/** The cache dir (`NEWSFLOW_CACHE_DIR`, `$XDG_CACHE_HOME/newsflow` or ~/.cache/newsflow), then temporal-server-<version>. */
export function serverDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}
const binaries = (dir: string) => ({ server: path.join(dir, 'server'), sql: path.join(dir, 'sql'), schema: path.join(dir, 'schema', 'postgresql', 'v12') });

export function serverInstalled(env: NodeJS.ProcessEnv = process.env): boolean {
  const b = binaries(serverDir(env));
  return fs.existsSync(b.server) && fs.existsSync(b.sql) && fs.existsSync(path.join(b.schema, 'temporal', 'versioned'));
}

/** Build the server and its SQL schema tool from the Go module proxy (a few minutes), once. */
export function installTemporalServer(opts: { log?: (m: string) => void; force?: boolean } = {}): string {
  const dir = serverDir();
  if (serverInstalled() && !opts.force) {
    opts.log?.(`Temporal server ${TEMPORAL_SERVER_VERSION} present: ${dir}`);
    return dir;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0)
    throw new TemporalSetupError(
      'Go is needed to build the Temporal server (go install go.temporal.io/server/cmd/server@v1.29.1): install Go 1.24+ and try again',
    );
  fs.mkdirSync(dir, { recursive: true });
  opts.log?.(`building the Temporal server ${TEMPORAL_SERVER_VERSION} and its schema tool with go install (a few minutes) into ${dir}`);
  const r = spawnSync('go', ['install', `${MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`, `${MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`], {
    encoding: 'utf8',
    env: { ...process.env, GOBIN: dir },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  if (r.status !== 0) throw new TemporalSetupError(`go install of the Temporal server failed: ${r.stderr.trim().slice(-600)}`);
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const src = path.join(modCache, `${MODULE}@v${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
  if (!fs.existsSync(src)) throw new TemporalSetupError(`the PostgreSQL schema of the Temporal server is not in the module cache (${src})`);
  fs.cpSync(src, binaries(dir).schema, { recursive: true });
  opts.log?.(`Temporal server installed: ${dir}`);
  return dir;
}

/** A free port of [base, base + 10), else of 20000-32767 (Temporal stores membership ports as smallint). */
async function lowPort(base: number): Promise<number> {
  const p = await preferredPort(base, 10);
  if (p < base + 10) return p;
  for (let q = 20000 + Math.floor(Math.random() * 10000); q < 32768; q++) if ((await preferredPort(q, 1)) === q) return q;
  throw new TemporalSetupError("no free port below 32768 for Temporal's membership");
}

function sqlTool(sql: string, pg: PgEndpoint, db: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(
    sql,
    ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, ...(pg.password ? ['--pw', pg.password] : []), '--db', db, ...args],
    { encoding: 'utf8', timeout: 180_000 },
  );
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

/** Create Temporal's databases when missing and bring their schemas up to date (idempotent). */
export function setupSchemas(pg: PgEndpoint, log?: (m: string) => void): void {
  const b = binaries(serverDir());
  for (const [db, kind] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const created = sqlTool(b.sql, pg, db, ['create-database']);
    if (!created.ok && !/already exists/.test(created.out))
      throw new TemporalSetupError(`could not create the database ${db}: ${created.out.trim().slice(-400)}`);
    if (created.ok) {
      const setup = sqlTool(b.sql, pg, db, ['setup-schema', '-v', '0.0']);
      if (!setup.ok) throw new TemporalSetupError(`setup-schema on ${db} failed: ${setup.out.trim().slice(-400)}`);
    }
    const update = sqlTool(b.sql, pg, db, ['update-schema', '-d', path.join(b.schema, kind, 'versioned')]);
    if (!update.ok) throw new TemporalSetupError(`update-schema on ${db} failed: ${update.out.trim().slice(-400)}`);
    log?.(`Temporal schema ${db}: up to date`);
  }
}

function config(
  pg: PgEndpoint,
  p: Record<'frontend' | 'http' | 'history' | 'matching' | 'worker' | 'mFrontend' | 'mHistory' | 'mMatching' | 'mWorker', number>,
  dynamic: string,
): string {
  const store = (db: string, conns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "${pg.host}:${pg.port}"
        connectProtocol: "tcp"
        user: ${JSON.stringify(pg.user)}
        password: ${JSON.stringify(pg.password)}
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const svc = (grpc: number, membership: number, extra = '') => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${extra}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${store('temporal', 20)}
    postgres-visibility:${store('temporal_visibility', 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:${svc(p.frontend, p.mFrontend, `\n      httpPort: ${p.http}`)}
  matching:${svc(p.matching, p.mMatching)}
  history:${svc(p.history, p.mHistory)}
  worker:${svc(p.worker, p.mWorker)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${p.frontend}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: ${JSON.stringify(dynamic)}
  pollInterval: "10s"
`;
}

async function waitFrontend(cli: string, address: string, child: ReturnType<typeof spawn>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new TemporalSetupError(`the Temporal server exited with code ${child.exitCode} (see its log under the data dir)`);
    const r = spawnSync(cli, ['operator', 'cluster', 'health', '--address', address], { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0 && /SERVING/.test(r.stdout)) return;
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new TemporalSetupError(`the Temporal server did not answer on ${address} within ${ms / 1000} s`);
}

/**
 * PostgreSQL (ours or NEWSFLOW_PG_URL), the schemas, then the server; the `default` namespace and
 * `namespaces` registered. stop() stops the server and the PostgreSQL we started.
 */
export async function startPostgresTemporal(opts: {
  dataDir: string;
  namespaces?: string[];
  log?: (m: string) => void;
  /** PostgreSQL without fsync and with asynchronous commits (a throwaway test cluster; see startPostgres) */
  unsafeFast?: boolean;
  /** a PostgreSQL of yours (postgres://user:password@host:port; default: a cluster of our own) */
  pgUrl?: string;
}): Promise<TemporalEndpoint & { pg: PgEndpoint }> {
  if (!serverInstalled()) {
    throw new TemporalSetupError(
      `the Temporal server is not installed (${serverDir()}): run \`npx newsflow temporal install\` (go install, a few minutes) first`,
    );
  }
  const cli = findTemporalCli({ log: opts.log });
  const pg = await startPostgres({ dataDir: path.join(opts.dataDir, 'postgres'), log: opts.log, unsafeFast: opts.unsafeFast, pgUrl: opts.pgUrl });
  try {
    setupSchemas(pg, opts.log);
  } catch (e) {
    await pg.stop();
    throw e;
  }
  const dir = path.join(opts.dataDir, 'temporal-pg');
  fs.mkdirSync(path.join(dir, 'config'), { recursive: true });
  const dynamic = path.join(dir, 'config', 'dynamicconfig.yaml');
  fs.writeFileSync(dynamic, 'system.forceSearchAttributesCacheRefreshOnRead:\n  - value: true\n');
  const ports = {
    frontend: await preferredPort(7233),
    http: await freePort(),
    history: await freePort(),
    matching: await freePort(),
    worker: await freePort(),
    // membership ports go into a smallint column of the cluster_membership table: below 32768, so
    // not from the ephemeral range the OS hands out; one block of ten each from Temporal's 6933
    mFrontend: await lowPort(6933),
    mHistory: await lowPort(6943),
    mMatching: await lowPort(6953),
    mWorker: await lowPort(6963),
  };
  fs.writeFileSync(path.join(dir, 'config', 'development.yaml'), config(pg, ports, dynamic));
  const logFd = fs.openSync(path.join(dir, 'server.log'), 'a');
  const child = spawn(binaries(serverDir()).server, ['--root', dir, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'], {
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  const unhook = atExit(() => child.kill('SIGKILL'));
  child.once('exit', unhook);
  const address = `127.0.0.1:${ports.frontend}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      });
    }
    await pg.stop();
  };
  try {
    await waitFrontend(cli, address, child, 120_000);
    for (const ns of ['default', ...(opts.namespaces ?? [])]) {
      const r = spawnSync(cli, ['operator', 'namespace', 'create', '--namespace', ns, '--retention', '72h', '--address', address], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      if (r.status !== 0 && !/already exists|AlreadyExists/i.test(`${r.stdout}${r.stderr}`))
        throw new TemporalSetupError(`could not register the namespace ${ns}: ${r.stderr.trim().slice(-300)}`);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  opts.log?.(`Temporal server (PostgreSQL persistence, SQL visibility) on ${address}`);
  return { address, namespace: 'default', uiUrl: null, pid: child.pid, stop, pg };
}
