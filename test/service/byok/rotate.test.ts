/**
 * Rotation of the master key survives being stopped and run again: a rotation that stopped after
 * its transaction and before the rename is finished by the next run, and a run that fails never
 * loses the key that the stored values are sealed with. A key file left in the data dir by earlier
 * versions moves out: the values are re-sealed under a new key file outside it, and it is removed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { ByokStore } from '../../../service/byok/store.js';
import { rotateSecrets } from '../../../service/byok/rotate.js';
import { KEY_FILE, NEXT_SUFFIX, Secrets, keyId } from '../../../service/auth/secrets.js';
import { legacyDataDir } from '../../helpers/legacy-secrets.js';
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
