/** `newsflow orgs` and `newsflow keys` (pipelines/cli/admin.ts) as a user runs them: real processes, a real data dir, alone and beside `newsflow serve`. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';

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
});
