/**
 * Sealed BYOK keys are bound to their row and to a key the data dir does not hold: a value sealed
 * for owner A copied into owner B's row does not open; values sealed before (v1) still open
 * (until the store's first rotation, test/service/byok/rotate.test.ts); a
 * copy of the data dir started where its key is not fails at start with one line, and makes no
 * key; a key file left in the data dir by earlier versions is warned about once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/service.js';
import { legacyDataDir } from '../../helpers/legacy-secrets.js';
import { Db } from '../../../service/store/db.js';
import { ByokStore } from '../../../service/byok/store.js';
import { KEY_FILE, Secrets, SecretsError } from '../../../service/auth/secrets.js';
import { ServiceConfigError, serviceConfig } from '../../../service/config.js';
import { openServices } from '../../../service/server.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const made = (prefix?: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
const keyFileIn = (dir: string) => path.join(dir, 'newsflow', KEY_FILE);

describe('sealed values are bound to their row', () => {
  it("a value sealed for owner A, copied into owner B's row, does not open; A's still does", async () => {
    const dir = made();
    const keyFile = keyFileIn(made('newsflow-config-'));
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    const store = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    await store.put('org:a', 'anthropic', 'sk-ant-owner-a-1111');
    await store.put('org:b', 'anthropic', 'sk-ant-owner-b-2222');
    // someone with write access to the store swaps A's ciphertext into B's row
    await db.run("UPDATE byok_keys SET secret = (SELECT secret FROM byok_keys WHERE owner = 'org:a') WHERE owner = 'org:b'");
    expect(await store.keys('org:a')).toEqual({ anthropic: 'sk-ant-owner-a-1111' });
    const err = await store.keys('org:b').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SecretsError);
    expect((err as Error).message).toMatch(/does not open for its row: it was sealed for another row, or altered/);
    // the same swap between providers of one owner fails too
    await store.put('org:a', 'google', 'AIza-owner-a-3333');
    await db.run(
      "UPDATE byok_keys SET secret = (SELECT secret FROM byok_keys WHERE owner = 'org:a' AND provider = 'anthropic') WHERE owner = 'org:a' AND provider = 'google'",
    );
    await expect(store.keys('org:a')).rejects.toThrow(SecretsError);
    db.close();
  });

  it('values sealed before this binding (v1) still open, and the status counts them', async () => {
    const dir = made();
    const keyFile = keyFileIn(made('newsflow-config-'));
    await legacyDataDir(dir, [['org:a', 'anthropic', 'sk-ant-old-format-4444']]);
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    const secrets = Secrets.forService({ dataDir: dir, keyFile });
    const store = new ByokStore(db, () => secrets);
    expect(await store.keys('org:a')).toEqual({ anthropic: 'sk-ant-old-format-4444' });
    expect(await store.audit(secrets)).toMatchObject({ total: 1, opened: 1, v1: 1 });
    db.close();
  });
});

describe('a data dir without its key', () => {
  it('started elsewhere (no NEWSFLOW_SECRET_KEY, no key file), it fails at start with one line and makes no key', async () => {
    const dir = made();
    const home = made('newsflow-config-');
    const config = serviceConfig({ dataDir: dir, port: 0, logLevel: 'silent', embeddings: 'none', secretKeyFile: keyFileIn(home) });
    const services = await openServices(config);
    await services.byok.put('org:a', 'anthropic', 'sk-ant-backed-up-5555');
    await services.news?.close();
    services.db.close();
    // the backup: the data dir alone, restored on a machine whose key file is elsewhere (empty)
    const restored = made();
    fs.cpSync(dir, restored, { recursive: true });
    const elsewhere = keyFileIn(made('newsflow-config-'));
    const err = await openServices(serviceConfig({ dataDir: restored, port: 0, logLevel: 'silent', embeddings: 'none', secretKeyFile: elsewhere })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceConfigError);
    const msg = (err as Error).message;
    expect(msg.split('\n')).toHaveLength(1);
    expect(msg).toMatch(/^the store holds sealed BYOK keys this machine has no master key for \(1 under master key [0-9a-f]{8}\): set NEWSFLOW_SECRET_KEY/);
    expect(msg).toContain(elsewhere);
    expect(fs.existsSync(elsewhere)).toBe(false);
    // with the key given, the same copy opens
    const key = fs.readFileSync(keyFileIn(home), 'utf8').trim();
    const again = await openServices(
      serviceConfig({ dataDir: restored, port: 0, logLevel: 'silent', embeddings: 'none', secretKeyFile: elsewhere, secretKey: key }),
    );
    expect(await again.byok.keys('org:a')).toEqual({ anthropic: 'sk-ant-backed-up-5555' });
    await again.news?.close();
    again.db.close();
  });

  it('a key file in the data dir (earlier versions) keeps working, with one warning on start that it sits beside the data', async () => {
    const dir = made();
    await legacyDataDir(dir, [['org:a', 'google', 'AIza-beside-6666']]);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const config = serviceConfig({ dataDir: dir, port: 0, logLevel: 'silent', embeddings: 'none', secretKeyFile: keyFileIn(made('newsflow-config-')) });
      for (let i = 0; i < 2; i++) {
        const services = await openServices(config);
        expect(await services.byok.keys('org:a')).toEqual({ google: 'AIza-beside-6666' });
        await services.news?.close();
        services.db.close();
      }
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    const beside = warnings.filter((w) => w.includes('beside the data'));
    expect(beside).toHaveLength(1);
    expect(beside[0]).toContain(path.join(dir, KEY_FILE));
    expect(beside[0]).toContain('newsflow secrets rotate');
  });
});
