/** The newsflow CLI as a user runs it: real processes, a real data dir. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/service.js';
import { runCli } from '../../helpers/cli.js';

const bin = path.join(repoRoot, 'bin', 'newsflow.js');
const dataDir = tempDir('newsflow-cli-');
const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir], { encoding: 'utf8', env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('newsflow admin CLI', () => {
  it('creates organizations and keys, prints the key once, lists and revokes', () => {
    expect(run('orgs', 'create', '--name', 'acme', '--domains', 'acme.com,www.b.com').out).toMatch(/created organization acme .* domains=acme.com,b.com/);
    const created = run('keys', 'create', '--name', 'etl', '--org', 'acme', '--scopes', 'news,distribution', '--json');
    expect(created.code).toBe(0);
    const k = JSON.parse(created.out) as { id: string; key: string; scopes: string[]; plan: string };
    expect(k.key).toMatch(/^nfk_/);
    expect(k.scopes).toEqual(['news', 'distribution']);
    expect(k.plan).toBe('enterprise');
    const listed = run('keys', 'list');
    expect(listed.out).toContain(k.id);
    expect(listed.out).not.toContain(k.key);
    const legacy = JSON.parse(run('keys', 'create', '--name', 'old', '--org', 'acme', '--scopes', 'news,distribution', '--legacy', '--json').out);
    expect(legacy.scopes).toEqual(['news']);
    expect(run('keys', 'revoke', k.id).out).toContain(`revoked ${k.id}`);
    expect(JSON.parse(run('keys', 'list', '--json').out).find((r: { id: string }) => r.id === k.id).revoked).toBeTruthy();
  });

  it('says what was wrong and exits non-zero', () => {
    const cases: [string[], RegExp][] = [
      [['keys', 'create', '--name', 'x', '--scopes', 'news,wizardry'], /unknown scope\(s\) wizardry; use any of news, stories, chat, distribution, profile/],
      [['keys', 'create', '--name', 'x', '--scopes', 'distribution'], /needs an organization key: add --org ORG/],
      [['keys', 'create', '--name', 'x', '--org', 'nobody', '--scopes', 'news'], /no organization "nobody"; create it with: newsflow orgs create/],
      [['keys', 'create', '--name', 'x'], /required option '--scopes/],
      [['keys', 'revoke', 'key_missing'], /no key with id key_missing/],
      [['orgs', 'create', '--name', 'bad', '--domains', 'not a domain'], /is not a domain name/],
      [['orgs', 'create', '--name', 'acme2', '--plan', 'gold'], /unknown plan "gold"/],
      [['serve', '--port', 'eighty'], /--port must be an integer/],
    ];
    for (const [args, msg] of cases) {
      const r = run(...args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.err, args.join(' ')).toMatch(msg);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it('serves the API on the data dir; orgs and keys go through it meanwhile, other store commands say the store is busy', async () => {
    const key = JSON.parse(run('keys', 'create', '--name', 'svc', '--org', 'acme', '--scopes', 'profile', '--json').out).key as string;
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir], { env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn' } });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout.on('data', (d) => {
          buf += String(d);
          const m = /listening on (http:\/\/\S+)/.exec(buf);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (c) => reject(new Error(`serve exited ${c}`)));
      });
      const res = await fetch(`${url}/v1/profiles/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      // keys and orgs while the service holds the store: through its admin routes (admin token)
      expect(run('orgs', 'create', '--name', 'live', '--domains', 'live.com').out).toMatch(/created organization live/);
      const created = run('keys', 'create', '--name', 'while-serving', '--org', 'live', '--scopes', 'profile', '--json');
      expect(created.code, created.err).toBe(0);
      const k = JSON.parse(created.out) as { id: string; key: string; org: string };
      expect(k.org).toBe('live');
      expect((await fetch(`${url}/v1/profiles/me`, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(200);
      expect(run('keys', 'list').out).toContain(k.id);
      expect(run('orgs', 'list').out).toContain('live.com');
      expect(run('keys', 'revoke', k.id).out).toContain(`revoked ${k.id}`);
      expect((await fetch(`${url}/v1/profiles/me`, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(401);
      const refused = run('keys', 'create', '--name', 'x', '--org', 'nobody', '--scopes', 'news');
      expect(refused.code).not.toBe(0);
      expect(refused.err).toMatch(/no organization "nobody"/);
      expect(refused.err).not.toMatch(/\n\s+at /);
      // an ordinary key on an admin route is 403; a wrong admin token 401
      expect((await fetch(`${url}/v1/admin/keys`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(403);
      expect((await fetch(`${url}/v1/admin/keys`, { headers: { authorization: 'Bearer not-the-token' } })).status).toBe(401);
      expect(fs.statSync(path.join(dataDir, 'admin.token')).mode & 0o777).toBe(0o600);
      // a command that needs the store itself still says it is busy
      const busy = run('simulate', 'hits', '--months', '1');
      expect(busy.code).not.toBe(0);
      expect(busy.err).toMatch(/in use by another process .*stop it first/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    expect(child.exitCode).toBe(0);
    // the service is gone: its record too, and the commands open the store again
    expect(fs.existsSync(path.join(dataDir, 'service.json'))).toBe(false);
    expect(run('keys', 'list').out).toContain('while-serving');
  }, 300_000);

  it('prints the OpenAPI document', () => {
    const r = spawnSync(process.execPath, [bin, 'openapi'], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout).openapi).toBe('3.1.0');
  });
});

describe('newsflow seed', () => {
  it('loads a corpus, and a second load changes nothing', () => {
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
    const dir = tempDir('newsflow-seed-');
    const seed = () =>
      spawnSync(process.execPath, [bin, 'seed', '--corpus', fixture, '--data-dir', dir, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn' },
      });
    const a = seed();
    expect(a.status, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout.trim().split('\n').pop()!)).toMatchObject({ read: 20, enriched: 20, total: 20 });
    const b = seed();
    expect(JSON.parse(b.stdout.trim().split('\n').pop()!)).toMatchObject({ read: 20, enriched: 0, total: 20 });
    const missing = spawnSync(process.execPath, [bin, 'seed', '--data-dir', dir], { encoding: 'utf8', env: { ...process.env, NEWSFLOW_CORPUS: '' } });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/no corpus: pass --corpus PATH/);
    const bad = spawnSync(process.execPath, [bin, 'seed', '--corpus', '/nope', '--data-dir', dir], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/does not exist/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000); // four CLI processes, each loading the models: minutes on a loaded machine
});

describe('newsflow start', () => {
  it('runs the main job on a small corpus: service, Temporal, worker, schedules, one ingest; Ctrl-C stops it', async () => {
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'corpus', 'headlines-sample.json');
    const dir = tempDir('newsflow-start-');
    const child = spawn(process.execPath, [bin, 'start', '--corpus', fixture, '--replay', '36000', '--port', '0', '--data-dir', dir], {
      env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn', NEWSFLOW_API_URL: '', NEWSFLOW_API_KEY: '', TEMPORAL_ADDRESS: '' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', () => {});
    const until = Date.now() + 90_000;
    while (!/Ctrl-C stops everything/.test(out) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(out).toMatch(/Temporal UI: http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/Warehouse: +.* \(a DuckLake: /);
    expect(out.match(/newsflow sql "/g)).toHaveLength(4);
    // the triggered ingest lands a load
    let loads = 0;
    while (loads === 0 && Date.now() < until) {
      const r = spawnSync(process.execPath, [bin, 'sql', 'SELECT count(*) AS n FROM _loads', '--format', 'json', '--warehouse', dir], { encoding: 'utf8' });
      if (r.status === 0) loads = JSON.parse(r.stdout)[0].n;
      if (loads === 0) await new Promise((res) => setTimeout(res, 500));
    }
    expect(loads).toBeGreaterThanOrEqual(1);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});

describe('newsflow run news-ingest', () => {
  it('runs one window through its own dev server and worker, printing progress and the result', async () => {
    const { startCorpusService } = await import('../../helpers/news.js');
    const svc = await startCorpusService();
    const dir = tempDir('newsflow-run-');
    try {
      const r = await runCli(['run', 'news-ingest', '--from', '2022-07-10T00:00:00Z', '--to', '2022-07-10T06:00:00Z', '--page-size', '20', '--data-dir', dir], {
        NEWSFLOW_API_URL: svc.url,
        NEWSFLOW_API_KEY: svc.keys.org!,
        TEMPORAL_ADDRESS: '',
        NEWSFLOW_LOG_LEVEL: 'warn',
      });
      expect(r.code, r.err.slice(-500)).toBe(0);
      const result = JSON.parse(r.out.trim().split('\n').pop()!);
      expect(result.received).toBeGreaterThan(10);
      expect(result.inserted).toBe(result.received);
      expect(r.err).toMatch(/"msg":"newsIngest"/); // plain progress lines when not a terminal
      const bad = spawnSync(process.execPath, [bin, 'run', 'news-ingest', '--from', '2022-07-10', '--to', '2022-07-01', '--data-dir', dir], {
        encoding: 'utf8',
      });
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/is after --to/);
    } finally {
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('newsflow run distribution', () => {
  it('backfills month windows through its own dev server and worker', async () => {
    const { startCorpusService } = await import('../../helpers/news.js');
    const { DistributionStore } = await import('../../../service/store/distribution.js');
    const svc = await startCorpusService({ limitsText: 'distribution=50:10:2,news=1000:1000:50' });
    await new DistributionStore(svc.services.db).simulate({ months: 3, seed: 3, eventsPerDay: 100, now: new Date('2022-07-15T00:00:00Z') });
    await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com'] });
    const key = (await svc.services.keys.createKey({ name: 'w', org: 'wires', scopes: ['distribution', 'profile'] })).key;
    const dir = tempDir('newsflow-rundist-');
    try {
      const r = await runCli(
        ['run', 'distribution', '--from', '2022-05-10', '--to', '2022-07-01', '--domains', 'reuters.com', '--page-size', '10', '--data-dir', dir],
        { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: key, TEMPORAL_ADDRESS: '', NEWSFLOW_LIMITS: 'distribution=50:10:2', NEWSFLOW_LOG_LEVEL: 'warn' },
      );
      expect(r.code, r.err.slice(-500)).toBe(0);
      const result = JSON.parse(r.out.trim().split('\n').pop()!);
      expect(result.windows).toBe(2);
      expect(result.pages).toBeGreaterThan(2);
      const bad = spawnSync(process.execPath, [bin, 'run', 'distribution', '--from', '2022-05-10', '--to', '2022-06-01', '--data-dir', dir], {
        encoding: 'utf8',
      });
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/--domains is required/);
    } finally {
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
