/** `newsflow orgs` and `newsflow keys` (pipelines/cli/admin.ts) as a user runs them: real processes, a real data dir, alone and beside `newsflow serve`. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';
import { sampleLines, writeNdjson } from '../../helpers/forum.js';

const dataDir = tempDir('newsflow-cli-');
// the master key file of secrets at rest ($XDG_CONFIG_HOME/newsflow/secret.key): this file's own
const configHome = tempDir('newsflow-cli-config-');
const cliEnv = () => {
  const e: NodeJS.ProcessEnv = { ...process.env, NEWSFLOW_LOG_LEVEL: 'warn', XDG_CONFIG_HOME: configHome };
  delete e.NEWSFLOW_SECRET_KEY;
  return e;
};
const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir], { encoding: 'utf8', env: cliEnv() });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(configHome, { recursive: true, force: true });
});

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

  it('serves the API on the data dir; orgs, keys, secrets, simulate and forum load go through it meanwhile', async () => {
    const key = JSON.parse(run('keys', 'create', '--name', 'svc', '--org', 'acme', '--scopes', 'profile,chat', '--json').out).key as string;
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir], { env: cliEnv() });
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
      // secrets while the service holds the store: its keys, through its admin routes; a rotation it takes at once
      const byok = (method: string, body?: unknown) =>
        fetch(`${url}/v1/byok/anthropic`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
      expect((await byok('PUT', { api_key: 'sk-ant-live-0123456789' })).status).toBe(200);
      const status = run('secrets', 'status');
      console.log(`newsflow secrets status while serving:\n${status.out}${status.err}`);
      expect(status.code, status.err).toBe(0);
      expect(status.out).toMatch(/^keys of: +the running service at http:\/\/127\.0\.0\.1:\d+$/m);
      expect(status.out).toMatch(/^sealed values: 1, 1 open with these keys$/m);
      const before = /^master key: +([0-9a-f]{8}) /m.exec(status.out)![1];
      const rotated = run('secrets', 'rotate');
      expect(rotated.code, rotated.err).toBe(0);
      expect(rotated.out).toMatch(new RegExp(`^re-sealed 1 secret\\(s\\): master key ${before} -> [0-9a-f]{8}`, 'm'));
      const after = run('secrets', 'status');
      expect(after.code, after.err).toBe(0);
      expect(/^master key: +([0-9a-f]{8}) /m.exec(after.out)![1]).not.toBe(before);
      expect(after.out).toMatch(/^sealed values: 1, 1 open with these keys$/m);
      // the service opens the re-sealed value with its new key, and seals new ones with it
      expect((await byok('GET')).status).toBe(200);
      expect((await byok('PUT', { api_key: 'sk-ant-live-9876543210' })).status).toBe(200);
      // simulate goes through it too: this store has no articles, said in one line
      const sim = run('simulate', 'hits', '--months', '1');
      expect(sim.code).not.toBe(0);
      expect(sim.err).toMatch(/the store holds no articles: seed a corpus first/);
      expect(sim.err).not.toMatch(/in use by another process|\n\s+at /);
      // forum load too: the service reads, stores and indexes the threads at once
      const forum = run('forum', 'load', writeNdjson(configHome, 'RS_live.ndjson', sampleLines()));
      expect(forum.code, forum.err).toBe(0);
      expect(forum.out).toMatch(/threads: 3 read, 3 new/);
      const gone = run('forum', 'load', path.join(configHome, 'nope.ndjson'));
      expect(gone.code).toBe(1);
      expect(gone.err).toMatch(/^error: forum load failed: .*nope\.ndjson: no such file or directory/m);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    expect(child.exitCode).toBe(0);
    // the service is gone: its record too, and the commands open the store again
    expect(fs.existsSync(path.join(dataDir, 'service.json'))).toBe(false);
    expect(run('keys', 'list').out).toContain('while-serving');
    // on the store itself, with this shell's keys: the value sealed after the rotation opens
    const offline = run('secrets', 'status');
    expect(offline.code, offline.err).toBe(0);
    expect(offline.out).toMatch(/^keys of: +the store /m);
    expect(offline.out).toMatch(/^sealed values: 1, 1 open with these keys$/m);
  }, 300_000);
});
