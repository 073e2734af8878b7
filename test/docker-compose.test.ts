/**
 * docker-compose.yml, the production stack, checked by Docker Compose itself (`docker compose
 * config`: the Compose Specification's schema, interpolation, references between services). The
 * compose CLI plugin is built by scripts/install-compose.sh (.ci/run runs it).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir } from '../lib/cache-dir.js';
import { repoRoot } from './helpers/paths.js';
import { tempDir } from './helpers/service.js';

/** `docker compose` when the plugin answers, else the binary install-compose.sh cached (it runs standalone too). */
function composeCommand(): string[] {
  if (spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0) return ['docker', 'compose'];
  const cache = cacheDir();
  const built = fs.existsSync(cache)
    ? fs
        .readdirSync(cache)
        .filter((d) => d.startsWith('docker-compose-'))
        .map((d) => path.join(cache, d, 'docker-compose'))
        .find((f) => fs.existsSync(f))
    : undefined;
  if (built) return [built];
  throw new Error('Docker Compose is not installed: run `bash scripts/install-compose.sh` (builds the plugin with Go; .ci/run does it)');
}

/** `compose config` on `file` in its folder, with no variable of ours set (the file's defaults apply). */
function config(file: string, args: string[] = []) {
  const [cmd, ...pre] = composeCommand();
  const r = spawnSync(cmd!, [...pre, '-f', file, '--project-directory', path.dirname(file), 'config', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A copy of the stack (with the Dockerfile its build points at) in a temp folder, edited by `edit`. */
function brokenCopy(edit: (yaml: string) => string): string {
  const dir = tempDir('newsflow-compose-');
  fs.copyFileSync(path.join(repoRoot, 'Dockerfile'), path.join(dir, 'Dockerfile'));
  const yaml = fs.readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
  const edited = edit(yaml);
  expect(edited).not.toBe(yaml);
  fs.writeFileSync(path.join(dir, 'docker-compose.yml'), edited);
  return path.join(dir, 'docker-compose.yml');
}

const stack = path.join(repoRoot, 'docker-compose.yml');

type ServiceName = 'newsflow' | 'postgres' | 'schedules' | 'temporal' | 'temporal-ui' | 'worker';
/** The fields of a service in `docker compose config --format json` that the tests read. */
interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[] };
  volumes?: { source: string; target: string }[];
}

describe('docker-compose.yml (the production stack)', () => {
  it('passes `docker compose config -q`', () => {
    const r = config(stack, ['-q']);
    console.log(`docker compose config -q: exit ${r.code}${r.err.trim() ? `, ${r.err.trim()}` : ''}`);
    expect(r.code, r.err).toBe(0);
  });

  it('resolves to postgres, Temporal on PostgreSQL, its UI, the service and 3 workers on the lake catalog in the same PostgreSQL', () => {
    const r = config(stack, ['--format', 'json']);
    expect(r.code, r.err).toBe(0);
    const c = JSON.parse(r.out) as { services: Record<ServiceName, ComposeService>; volumes: Record<string, unknown> };
    expect(Object.keys(c.services).sort()).toEqual(['newsflow', 'postgres', 'schedules', 'temporal', 'temporal-ui', 'worker']);
    const { postgres, temporal, worker, newsflow } = c.services;
    expect(temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres', DBNAME: 'temporal', VISIBILITY_DBNAME: 'temporal_visibility' });
    expect(worker.deploy?.replicas).toBe(3);
    expect(worker.command).toEqual(['worker', '--data-dir', '/data', '--metrics-host', '0.0.0.0']);
    expect(worker.environment?.NEWSFLOW_LAKE_CATALOG).toBe(`postgres://newsflow:newsflow@postgres:5432/${postgres.environment?.POSTGRES_DB}`);
    expect(worker.environment).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      NEWSFLOW_API_URL: 'http://newsflow:8080',
      NEWSFLOW_LAKE_DATA: '/lake/',
      NEWSFLOW_WORKERS: '3',
    });
    expect(worker.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      temporal: { condition: 'service_healthy' },
      newsflow: { condition: 'service_healthy' },
    });
    for (const s of ['postgres', 'temporal', 'newsflow', 'worker'] as const) expect(c.services[s].healthcheck?.test, s).toBeTruthy();
    // the probes are the health endpoints: the service's readiness, each worker's /healthz on its metrics port
    expect(newsflow.healthcheck?.test?.join(' ')).toContain('/readyz');
    expect(worker.healthcheck?.test?.join(' ')).toContain('/healthz');
    expect(worker.environment?.NEWSFLOW_METRICS_PORT).toBe('9464');
    // the lake data: one volume the workers and the service share
    expect(worker.volumes?.map((v) => `${v.source}:${v.target}`)).toContain('lake-data:/lake');
    expect(newsflow.volumes?.map((v) => `${v.source}:${v.target}`)).toContain('lake-data:/lake');
    expect(Object.keys(c.volumes)).toContain('lake-data');
  });

  it('a broken copy fails the check: a depends_on on a service that does not exist, replicas that are not a number', () => {
    const unknown = config(
      brokenCopy((y) => y.replace(/( {2}worker:[\s\S]*?depends_on:\n)/, '$1      nosuchservice:\n        condition: service_healthy\n')),
      ['-q'],
    );
    console.log(`broken copy (unknown dependency): exit ${unknown.code}, ${unknown.err.trim()}`);
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/nosuchservice/);
    const replicas = config(
      brokenCopy((y) => y.replace('replicas: ${NEWSFLOW_WORKERS:-3}', 'replicas: three')),
      ['-q'],
    );
    console.log(`broken copy (replicas: three): exit ${replicas.code}, ${replicas.err.trim()}`);
    expect(replicas.code).not.toBe(0);
    expect(replicas.err).toMatch(/replicas/);
  });
});
