/**
 * Rotation of the master key survives being stopped and run again: a rotation that stopped after
 * its transaction and before the rename is finished by the next run, and a run that fails never
 * loses the key that the stored values are sealed with. A key file left in the data dir by earlier
 * versions moves out: the values are re-sealed under a new key file outside it, and it is removed.
 * The first rotation re-seals every v1 value and retires the format: a v1 value met afterwards is
 * refused with one line (store the key again), by the store and by the next rotation.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { ByokStore } from '../../../service/byok/store.js';
import { rotateSecrets } from '../../../service/byok/rotate.js';
import { KEY_FILE, NEXT_SUFFIX, Secrets, SecretsError, keyId } from '../../../service/auth/secrets.js';
import { legacyDataDir, sealV1 } from '../../helpers/legacy-secrets.js';
import { tempDirsPerTest } from '../../helpers/temp-dirs.js';

const made = tempDirsPerTest();

/** A data dir and key file left by a rotation stopped after its commit: rows sealed under `.next`, `secret.key` still the old key. */
async function interruptedRotation(): Promise<{ dir: string; keyFile: string; db: Db; next: Buffer }> {
  const dir = made();
  const keyFile = path.join(made('newsflow-config-'), 'newsflow', KEY_FILE);
  const db = await Db.open(path.join(dir, 'service.duckdb'));
  const store = () => new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
  await store().put('org:o1', 'anthropic', 'sk-ant-interrupted-1111');
  await store().put('org:o2', 'google', 'AIza-interrupted-2222');
  const old = Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'hex');
  const next = crypto.randomBytes(32);
  fs.writeFileSync(keyFile + NEXT_SUFFIX, `${next.toString('hex')}\n`, { mode: 0o600 });
  await new ByokStore(db, () => new Secrets(old)).rotate(new Secrets(old), new Secrets(next));
  return { dir, keyFile, db, next };
}

describe('secrets rotate after an interrupted rotation', () => {
  it('finishes the interrupted rotation: the .next key becomes the key file and every value opens', async () => {
    const { dir, keyFile, db, next } = await interruptedRotation();
    const r = await rotateSecrets(db, { dataDir: dir, keyFile });
    expect(r).toMatchObject({ rotated: 2, to: keyId(next), keyFile, removed: [] });
    expect(fs.existsSync(keyFile + NEXT_SUFFIX)).toBe(false);
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(next.toString('hex'));
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const store = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await store.keys('org:o1')).toEqual({ anthropic: 'sk-ant-interrupted-1111' });
    expect(await store.keys('org:o2')).toEqual({ google: 'AIza-interrupted-2222' });
    db.close();
  });

  it('a second run that fails (its store unreachable) loses no key: every value still opens afterwards', async () => {
    const { dir, keyFile, db } = await interruptedRotation();
    db.close();
    const closed = await Db.open(path.join(dir, 'other.duckdb'));
    closed.close();
    await expect(rotateSecrets(closed, { dataDir: dir, keyFile })).rejects.toThrow();
    const reopened = await Db.open(path.join(dir, 'service.duckdb'));
    const store = new ByokStore(reopened, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await store.keys('org:o1')).toEqual({ anthropic: 'sk-ant-interrupted-1111' });
    expect(await store.keys('org:o2')).toEqual({ google: 'AIza-interrupted-2222' });
    reopened.close();
  });
});

describe('secrets rotate on a data dir of an earlier version (key file beside the data, values sealed as v1)', () => {
  it('re-seals every value as v2 under a new key file outside the data dir and removes the data dir key', async () => {
    const dir = made();
    const keyFile = path.join(made('newsflow-config-'), 'newsflow', KEY_FILE);
    const old = await legacyDataDir(dir, [
      ['org:o1', 'anthropic', 'sk-ant-legacy-1111'],
      ['user:u2', 'google', 'AIza-legacy-2222'],
    ]);
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    // the v1 values open as they are, with the data dir's key
    const before = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await before.keys('org:o1')).toEqual({ anthropic: 'sk-ant-legacy-1111' });
    expect(fs.existsSync(keyFile)).toBe(false);

    const r = await rotateSecrets(db, { dataDir: dir, keyFile });
    expect(r).toMatchObject({ rotated: 2, from: keyId(old), keyFile, removed: [path.join(dir, KEY_FILE)] });
    expect(fs.existsSync(path.join(dir, KEY_FILE))).toBe(false);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const rows = await db.all<{ secret: string }>('SELECT secret FROM byok_keys');
    expect(rows.every((x) => x.secret.startsWith(`v2:${r.to}:`))).toBe(true);
    const after = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await after.keys('org:o1')).toEqual({ anthropic: 'sk-ant-legacy-1111' });
    expect(await after.keys('user:u2')).toEqual({ google: 'AIza-legacy-2222' });
    // the data dir alone opens nothing now
    expect((await after.audit(new Secrets(old))).opened).toBe(0);
    db.close();
  });
});

describe('v1 values after a rotation', () => {
  /** An earlier data dir rotated once (its v1 values re-sealed), then a v1 value written into a row by hand, sealed with the key in use. */
  async function rotatedThenV1(): Promise<{ dir: string; keyFile: string; db: Db; key: Buffer; at: string }> {
    const dir = made();
    const keyFile = path.join(made('newsflow-config-'), 'newsflow', KEY_FILE);
    await legacyDataDir(dir, [
      ['org:o1', 'anthropic', 'sk-ant-legacy-1111'],
      ['user:u2', 'google', 'AIza-legacy-2222'],
    ]);
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    const r = await rotateSecrets(db, { dataDir: dir, keyFile });
    expect(r.rotated).toBe(2);
    const log = await db.all<{ resealed: number; v1_resealed: number; to_key: string }>('SELECT resealed, v1_resealed, to_key FROM secrets_rotations');
    expect(log).toEqual([{ resealed: 2, v1_resealed: 2, to_key: r.to }]);
    const at = (await db.one<{ at: string }>("SELECT strftime(rotated_at, '%Y-%m-%d %H:%M:%S') AS at FROM secrets_rotations"))!.at;
    // the key that seals now: the v1 value below opens with it, so only its format can refuse it
    const key = Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'hex');
    await db.run("INSERT INTO byok_keys (owner, provider, secret, key_hint, updated_at) VALUES ('org:o3', 'anthropic', $1, '...3333', now())", [
      sealV1(key, 'sk-ant-after-3333'),
    ]);
    return { dir, keyFile, db, key, at };
  }

  it('the store refuses it with one line naming the row and the fix; the re-sealed values still open', async () => {
    const { dir, keyFile, db, at } = await rotatedThenV1();
    const store = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await store.keys('org:o1')).toEqual({ anthropic: 'sk-ant-legacy-1111' });
    const err = await store.keys('org:o3').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SecretsError);
    const msg = (err as Error).message;
    console.log(`a v1 value after the rotation: ${msg}`);
    expect(msg.split('\n')).toHaveLength(1);
    expect(msg).toBe(
      `the anthropic BYOK key of org:o3 is sealed in the v1 format (not bound to its row), refused since this store's secrets were rotated at ${at} UTC ` +
        '(that rotation re-sealed every v1 value, so this one was written afterwards): store the key again with PUT /v1/byok/anthropic, or remove it with DELETE /v1/byok/anthropic',
    );
    expect(await store.audit(Secrets.forService({ dataDir: dir, keyFile }))).toMatchObject({ total: 3, opened: 2, v1: 1, rotatedAt: at, problem: msg });
    // stored again, it is sealed as v2 for its row and opens
    await store.put('org:o3', 'anthropic', 'sk-ant-again-4444');
    expect(await store.keys('org:o3')).toEqual({ anthropic: 'sk-ant-again-4444' });
    db.close();
  });

  it('the next rotation refuses it too, and changes nothing', async () => {
    const { dir, keyFile, db } = await rotatedThenV1();
    const before = await db.all('SELECT owner, provider, secret FROM byok_keys ORDER BY owner, provider');
    const keyBefore = fs.readFileSync(keyFile, 'utf8');
    await expect(rotateSecrets(db, { dataDir: dir, keyFile })).rejects.toThrow(/^the anthropic BYOK key of org:o3 is sealed in the v1 format/);
    expect(await db.all('SELECT owner, provider, secret FROM byok_keys ORDER BY owner, provider')).toEqual(before);
    expect(await db.all('SELECT resealed FROM secrets_rotations')).toEqual([{ resealed: 2 }]);
    // the rotation's new key stays as .next (the next run finishes with it); the key that opens the values is where it was
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(keyBefore);
    const store = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await store.keys('user:u2')).toEqual({ google: 'AIza-legacy-2222' });
    db.close();
  });

  it('before any rotation a v1 value still opens (a data dir of an earlier version, not yet rotated)', async () => {
    const dir = made();
    const keyFile = path.join(made('newsflow-config-'), 'newsflow', KEY_FILE);
    await legacyDataDir(dir, [['org:o1', 'anthropic', 'sk-ant-legacy-1111']]);
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    const store = new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile }));
    expect(await store.firstRotation()).toBeNull();
    expect(await store.keys('org:o1')).toEqual({ anthropic: 'sk-ant-legacy-1111' });
    db.close();
  });
});
