/**
 * `newsflow secrets status` and `rotate`, and `newsflow serve` on a data dir restored without its
 * key. The key file goes where $XDG_CONFIG_HOME says (a folder of the test's own).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { legacyDataDir, sealV1 } from '../../helpers/legacy-secrets.js';
import { Db } from '../../../service/store/db.js';
import { ByokStore } from '../../../service/byok/store.js';
import { KEY_FILE, Secrets } from '../../../service/auth/secrets.js';
import { tempDirsPerTest } from '../../helpers/temp-dirs.js';

const made = tempDirsPerTest();

/** A data dir with one BYOK key sealed under the key file of $XDG_CONFIG_HOME = `config`. */
async function sealedDataDir(): Promise<{ dir: string; config: string; keyFile: string }> {
  const dir = made();
  const config = made('newsflow-config-');
  const keyFile = path.join(config, 'newsflow', KEY_FILE);
  const db = await Db.open(path.join(dir, 'service.duckdb'));
  await new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile })).put('org:o1', 'anthropic', 'sk-ant-cli-rotate-1111');
  db.close();
  return { dir, config, keyFile };
}

describe('newsflow secrets status', () => {
  it('says where the master key is and how many sealed values it opens', async () => {
    const { dir, config, keyFile } = await sealedDataDir();
    const r = await runCli(['secrets', 'status', '--data-dir', dir], { NEWSFLOW_SECRET_KEY: '', XDG_CONFIG_HOME: config });
    console.log(`$ newsflow secrets status\n${r.out}`);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`^master key: +[0-9a-f]{8} from ${keyFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
    expect(r.out).toMatch(/^sealed values: 1, 1 open with these keys$/m);
  });

  it('on an earlier data dir: the key beside the data and the v1 values, with what to run', async () => {
    const dir = made();
    await legacyDataDir(dir, [
      ['org:o1', 'anthropic', 'sk-ant-legacy-1111'],
      ['org:o2', 'google', 'AIza-legacy-2222'],
    ]);
    const r = await runCli(['secrets', 'status', '--data-dir', dir], { NEWSFLOW_SECRET_KEY: '', XDG_CONFIG_HOME: made('newsflow-config-') });
    console.log(`$ newsflow secrets status   (a data dir of an earlier version)\n${r.out}`);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`from ${path.join(dir, KEY_FILE)} (beside the data: move it out with \`newsflow secrets rotate\`)`);
    expect(r.out).toMatch(/^sealed values: 2, 2 open with these keys; 2 sealed before values were bound to their rows/m);
  });

  it('without the key: the values that do not open, and exit 1', async () => {
    const { dir } = await sealedDataDir();
    const r = await runCli(['secrets', 'status', '--data-dir', dir], { NEWSFLOW_SECRET_KEY: '', XDG_CONFIG_HOME: made('newsflow-config-') });
    console.log(`$ newsflow secrets status   (without the key)\n${r.out}${r.err}`);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^master key: +none yet/m);
    expect(r.out).toMatch(/^sealed values: 1, 0 open with these keys$/m);
    expect(r.err.trim()).toMatch(/^error: 1 sealed value\(s\) do not open: no master key to open a secret sealed by master key [0-9a-f]{8}$/);
  });
});

describe('newsflow secrets rotate', () => {
  it('re-seals every key under a new key file; the keys open with it', async () => {
    const { dir, config, keyFile } = await sealedDataDir();
    const before = fs.readFileSync(keyFile, 'utf8');
    const r = await runCli(['secrets', 'rotate', '--data-dir', dir], { NEWSFLOW_SECRET_KEY: '', XDG_CONFIG_HOME: config });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/re-sealed 1 secret\(s\): master key [0-9a-f]{8} -> [0-9a-f]{8}/);
    expect(fs.readFileSync(keyFile, 'utf8')).not.toBe(before);
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    expect(await new ByokStore(db, () => Secrets.forService({ dataDir: dir, keyFile })).keys('org:o1')).toEqual({ anthropic: 'sk-ant-cli-rotate-1111' });
    // the old key alone no longer opens it
    expect((await new ByokStore(db, () => new Secrets(Buffer.from(before.trim(), 'hex'))).audit(new Secrets(Buffer.from(before.trim(), 'hex')))).opened).toBe(
      0,
    );
    db.close();
  });
});

describe('newsflow secrets after a rotation of an earlier data dir', () => {
  it('a v1 value written afterwards is refused by status and by the next rotation, each with one line saying to store the key again', async () => {
    const dir = made();
    const config = made('newsflow-config-');
    await legacyDataDir(dir, [['org:o1', 'anthropic', 'sk-ant-legacy-1111']]);
    const env = { NEWSFLOW_SECRET_KEY: '', XDG_CONFIG_HOME: config };
    const rotated = await runCli(['secrets', 'rotate', '--data-dir', dir], env);
    expect(rotated.code, rotated.err).toBe(0);
    // a v1 value put in a row by hand (an old backup's row), sealed with the key in use
    const key = Buffer.from(fs.readFileSync(path.join(config, 'newsflow', KEY_FILE), 'utf8').trim(), 'hex');
    const db = await Db.open(path.join(dir, 'service.duckdb'));
    await db.run("INSERT INTO byok_keys (owner, provider, secret, key_hint, updated_at) VALUES ('org:o2', 'google', $1, '...2222', now())", [
      sealV1(key, 'AIza-after-2222'),
    ]);
    db.close();
    const status = await runCli(['secrets', 'status', '--data-dir', dir], env);
    console.log(`$ newsflow secrets status   (a v1 value after the rotation)\n${status.out}${status.err}`);
    expect(status.code).toBe(1);
    expect(status.out).toMatch(
      /^sealed values: 2, 1 open with these keys; 1 in the v1 format written after the rotation of [0-9-]{10} [0-9:]{8} UTC, refused/m,
    );
    const err = status.err.trim().split('\n');
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(
      /^error: 1 sealed value\(s\) do not open: the google BYOK key of org:o2 is sealed in the v1 format \(not bound to its row\), refused since .* store the key again with PUT \/v1\/byok\/google, or remove it with DELETE \/v1\/byok\/google$/,
    );
    const again = await runCli(['secrets', 'rotate', '--data-dir', dir], env);
    console.log(`$ newsflow secrets rotate   (a v1 value after the rotation)\n${again.out}${again.err}`);
    expect(again.code).toBe(1);
    expect(again.err.trim()).toMatch(/^error: rotation failed, nothing changed: the google BYOK key of org:o2 is sealed in the v1 format/);
    expect(again.err.trim().split('\n')).toHaveLength(1);
  });
});

describe('newsflow serve on a data dir restored without its key', () => {
  it('fails with one line naming the key it needs, and exit 1', async () => {
    const { dir } = await sealedDataDir();
    const r = await runCli(['serve', '--data-dir', dir, '--port', '0'], {
      NEWSFLOW_SECRET_KEY: '',
      XDG_CONFIG_HOME: made('newsflow-config-'),
      NEWSFLOW_EMBEDDINGS: 'none',
    });
    console.log(`$ newsflow serve   (restored without the key)\n${r.err}`);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: the store holds sealed BYOK keys this machine has no master key for \(1 under master key [0-9a-f]{8}\): set NEWSFLOW_SECRET_KEY/,
    );
  });
});
