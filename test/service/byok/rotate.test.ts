/**
 * Rotation of the master key survives being stopped and run again: a rotation that stopped after
 * its transaction and before the rename is finished by the next run, and a run that fails never
 * loses the key that the stored values are sealed with.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/service.js';
import { Db } from '../../../service/store/db.js';
import { ByokStore } from '../../../service/byok/store.js';
import { rotateSecrets } from '../../../service/byok/rotate.js';
import { KEY_FILE, NEXT_KEY_FILE, Secrets, keyId } from '../../../service/auth/secrets.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A data dir left by a rotation stopped after its commit: rows sealed under `.next`, `secret.key` still the old key. */
async function interruptedRotation(): Promise<{ dir: string; db: Db; next: Buffer }> {
  const dir = tempDir();
  dirs.push(dir);
  const db = await Db.open(path.join(dir, 'service.duckdb'));
  const store = () => new ByokStore(db, () => Secrets.forService({ dataDir: dir }));
  await store().put('org:o1', 'anthropic', 'sk-ant-interrupted-1111');
  await store().put('org:o2', 'google', 'AIza-interrupted-2222');
  const old = Buffer.from(fs.readFileSync(path.join(dir, KEY_FILE), 'utf8').trim(), 'hex');
  const next = crypto.randomBytes(32);
  fs.writeFileSync(path.join(dir, NEXT_KEY_FILE), `${next.toString('hex')}\n`, { mode: 0o600 });
  await new ByokStore(db, () => new Secrets(old)).rotate(new Secrets(old), new Secrets(next));
  return { dir, db, next };
}

describe('secrets rotate after an interrupted rotation', () => {
  it('finishes the interrupted rotation: the .next key becomes the key file and every value opens', async () => {
    const { dir, db, next } = await interruptedRotation();
    const r = await rotateSecrets(db, { dataDir: dir });
    expect(r).toMatchObject({ rotated: 2, to: keyId(next) });
    expect(fs.existsSync(path.join(dir, NEXT_KEY_FILE))).toBe(false);
    expect(fs.readFileSync(path.join(dir, KEY_FILE), 'utf8').trim()).toBe(next.toString('hex'));
    expect(fs.statSync(path.join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    const store = new ByokStore(db, () => Secrets.forService({ dataDir: dir }));
    expect(await store.keys('org:o1')).toEqual({ anthropic: 'sk-ant-interrupted-1111' });
    expect(await store.keys('org:o2')).toEqual({ google: 'AIza-interrupted-2222' });
    db.close();
  });

  it('a second run that fails (its store unreachable) loses no key: every value still opens afterwards', async () => {
    const { dir, db } = await interruptedRotation();
    db.close();
    const closed = await Db.open(path.join(dir, 'other.duckdb'));
    closed.close();
    await expect(rotateSecrets(closed, { dataDir: dir })).rejects.toThrow();
    const reopened = await Db.open(path.join(dir, 'service.duckdb'));
    const store = new ByokStore(reopened, () => Secrets.forService({ dataDir: dir }));
    expect(await store.keys('org:o1')).toEqual({ anthropic: 'sk-ant-interrupted-1111' });
    expect(await store.keys('org:o2')).toEqual({ google: 'AIza-interrupted-2222' });
    reopened.close();
  });
});
