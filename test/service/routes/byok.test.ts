/** BYOK /v1/byok/{provider}: enterprise only, sealed at rest (AES-256-GCM), hint of 4 characters, rotation. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, api, startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { serviceConfig } from '../../../service/config.js';
import { openServices, startService } from '../../../service/server.js';
import { Db } from '../../../service/store/db.js';
import { rotateSecrets } from '../../../service/byok/rotate.js';
import { KEY_FILE } from '../../../service/auth/secrets.js';

/** A data dir and, apart from it, the folder its master key file goes in (as $XDG_CONFIG_HOME/newsflow is). */
function dirs(): { dataDir: string; keyFile: string; done: () => void } {
  const dataDir = tempDir();
  const config = tempDir('newsflow-config-');
  return {
    dataDir,
    keyFile: path.join(config, 'newsflow', KEY_FILE),
    done: () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(config, { recursive: true, force: true });
    },
  };
}

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    limitsText: 'chat=1000:1000:100',
    keys: { ...DEFAULT_KEYS, solo: { scopes: ['chat'], plan: 'enterprise' } },
  });
});
afterAll(async () => svc?.stop());

const storeBytes = (dir: string) =>
  Buffer.concat(
    fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('service.duckdb'))
      .map((f) => fs.readFileSync(path.join(dir, f))),
  );

describe('BYOK keys', () => {
  it('stores a key and shows back only its last 4 characters', async () => {
    const put = await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: 'sk-ant-abcdefghij-1234' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ provider: 'anthropic', key_hint: '...1234' });
    const get = await api(svc.url, 'GET', '/v1/byok/anthropic', svc.keys.org);
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ provider: 'anthropic', key_hint: '...1234' });
    expect(get.text).not.toContain('abcdefghij');
  });

  it('answers 404 for a provider without a key, 204 on delete, then 404', async () => {
    expect((await api(svc.url, 'GET', '/v1/byok/google', svc.keys.org)).status).toBe(404);
    await api(svc.url, 'PUT', '/v1/byok/google', svc.keys.org, { api_key: 'AIzaSy-google-key-5678' });
    const del = await api(svc.url, 'DELETE', '/v1/byok/google', svc.keys.org);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const gone = await api(svc.url, 'GET', '/v1/byok/google', svc.keys.org);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 404000 });
  });

  it('refuses a non-enterprise key with 403', async () => {
    for (const m of ['GET', 'PUT', 'DELETE']) {
      const r = await api(svc.url, m, '/v1/byok/anthropic', svc.keys.analyst, m === 'PUT' ? { api_key: 'sk-ant-abcdefghij' } : undefined);
      expect(r.status, m).toBe(403);
      expect(r.body.code).toBe(403000);
    }
  });

  it('rejects an api_key shorter than 10 characters and an unknown provider with 422', async () => {
    const short = await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.detail[0].loc).toEqual(['body', 'api_key']);
    const other = await api(svc.url, 'PUT', '/v1/byok/openai', svc.keys.org, { api_key: 'sk-0123456789' });
    expect(other.status).toBe(422);
    expect(other.body.detail[0].loc).toEqual(['path', 'provider']);
  });

  it("keeps keys of one owner from another: a personal enterprise key sees none of the organization's", async () => {
    // the organization stores a key here (not relying on an earlier test)
    expect((await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: 'sk-ant-org-owned-0042' })).status).toBe(200);
    expect((await api(svc.url, 'GET', '/v1/byok/anthropic', svc.keys.org)).body.key_hint).toBe('...0042');
    const r = await api(svc.url, 'GET', '/v1/byok/anthropic', svc.keys.solo);
    expect(r.status).toBe(404);
  });
});

describe('BYOK keys at rest', () => {
  it('never writes the key in plaintext, before or after a checkpoint; the key file is 0600, outside the data dir', async () => {
    const key = `sk-ant-plaintext-${Date.now()}-secret`;
    const marker = `marker-${Date.now()}-visible`;
    expect((await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: key })).status).toBe(200);
    await svc.services.keys.createKey({ name: marker, org: 'acme', scopes: ['news'] });
    for (const phase of ['wal', 'checkpointed']) {
      if (phase === 'checkpointed') await svc.services.db.checkpoint();
      const bytes = storeBytes(svc.dataDir);
      expect(bytes.includes(Buffer.from(marker)), `${phase}: control marker`).toBe(true);
      expect(bytes.includes(Buffer.from(key)), `${phase}: key`).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice(7, -4))), `${phase}: key middle`).toBe(false);
    }
    expect(fs.existsSync(path.join(svc.dataDir, KEY_FILE))).toBe(false);
    expect(fs.statSync(svc.secretKeyFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(svc.secretKeyFile)).mode & 0o777).toBe(0o700);
    const row = await svc.services.db.one<{ secret: string }>("SELECT secret FROM byok_keys WHERE provider = 'anthropic'");
    expect(row!.secret).toMatch(/^v2:[0-9a-f]{8}:/);
    // ...while the service opens it to call the provider
    const owner = `org:${(await svc.services.keys.resolve(svc.keys.org!))!.org!.id}`;
    expect((await svc.services.byok.keys(owner)).anthropic).toBe(key);
  });

  it('seals under NEWSFLOW_SECRET_KEY when it is set (no key file)', async () => {
    const { dataDir, keyFile, done } = dirs();
    const config = serviceConfig({ dataDir, port: 0, logLevel: 'silent', secretKey: 'ab'.repeat(32), embeddings: 'none', secretKeyFile: keyFile });
    const services = await openServices(config);
    await services.byok.put('user:u1', 'google', 'AIza-env-sealed-key-0001');
    expect(fs.existsSync(path.join(dataDir, KEY_FILE))).toBe(false);
    expect(fs.existsSync(keyFile)).toBe(false);
    expect((await services.byok.keys('user:u1')).google).toBe('AIza-env-sealed-key-0001');
    await services.news?.close();
    services.db.close();
    done();
  });

  it('a malformed NEWSFLOW_SECRET_KEY fails when services open, naming the variable; no key file is created', async () => {
    const { dataDir, keyFile, done } = dirs();
    const config = serviceConfig({ dataDir, port: 0, logLevel: 'silent', secretKey: 'not-a-master-key', embeddings: 'none', secretKeyFile: keyFile });
    await expect(openServices(config)).rejects.toThrow(/NEWSFLOW_SECRET_KEY/);
    expect(fs.existsSync(path.join(dataDir, KEY_FILE))).toBe(false);
    expect(fs.existsSync(keyFile)).toBe(false);
    done();
  });

  it('rotate re-seals every key under a new master key and GET keeps working', async () => {
    const { dataDir, keyFile, done } = dirs();
    const config = serviceConfig({ dataDir, port: 0, host: '127.0.0.1', logLevel: 'silent', embeddings: 'none', secretKeyFile: keyFile });
    let services = await openServices(config);
    await services.keys.createOrg({ name: 'acme', domains: ['acme.com'] });
    const { key } = await services.keys.createKey({ name: 'k', org: 'acme', scopes: ['chat'], plan: 'enterprise' });
    let running = await startService({ services, logger: false });
    await api(running.url, 'PUT', '/v1/byok/anthropic', key, { api_key: 'sk-ant-rotate-me-9876' });
    await api(running.url, 'PUT', '/v1/byok/google', key, { api_key: 'AIza-rotate-me-5432' });
    await running.close();
    services.db.close();
    const before = fs.readFileSync(keyFile, 'utf8');

    const db = await Db.open(path.join(dataDir, 'service.duckdb'));
    const r = await rotateSecrets(db, { dataDir, keyFile });
    db.close();
    expect(r.rotated).toBe(2);
    expect(r.to).not.toBe(r.from);
    const after = fs.readFileSync(keyFile, 'utf8');
    expect(after).not.toBe(before);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);

    services = await openServices(config);
    running = await startService({ services, logger: false });
    const got = await api(running.url, 'GET', '/v1/byok/anthropic', key);
    expect(got.status).toBe(200);
    expect(got.body.key_hint).toBe('...9876');
    const owner = `org:${(await services.keys.resolve(key))!.org!.id}`;
    expect(await services.byok.keys(owner)).toEqual({ anthropic: 'sk-ant-rotate-me-9876', google: 'AIza-rotate-me-5432' });
    const rows = await services.db.all<{ secret: string }>('SELECT secret FROM byok_keys');
    expect(rows.every((x) => x.secret.startsWith(`v2:${r.to}:`))).toBe(true);
    await running.close();
    services.db.close();
    done();
  });
});
