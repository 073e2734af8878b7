/** `newsflow secrets rotate`: every stored BYOK key re-sealed under a new master key, still readable after. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';
import { Db } from '../../../service/store/db.js';
import { ByokStore } from '../../../service/byok/store.js';
import { KEY_FILE, Secrets } from '../../../service/auth/secrets.js';

describe('newsflow secrets rotate', () => {
  it('re-seals every key under a new key file; the keys open with it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'service.duckdb');
    let db = await Db.open(file);
    await new ByokStore(db, () => Secrets.forService({ dataDir: dir })).put('org:o1', 'anthropic', 'sk-ant-cli-rotate-1111');
    db.close();
    const before = fs.readFileSync(path.join(dir, KEY_FILE), 'utf8');
    const r = await runCli(['secrets', 'rotate', '--data-dir', dir], { NEWSFLOW_SECRET_KEY: '' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/re-sealed 1 secret\(s\): master key [0-9a-f]{8} -> [0-9a-f]{8}/);
    expect(fs.readFileSync(path.join(dir, KEY_FILE), 'utf8')).not.toBe(before);
    db = await Db.open(file);
    expect(await new ByokStore(db, () => Secrets.forService({ dataDir: dir })).keys('org:o1')).toEqual({ anthropic: 'sk-ant-cli-rotate-1111' });
    // the old key alone no longer opens it
    const row = await db.one<{ secret: string }>('SELECT secret FROM byok_keys');
    expect(() => new Secrets(Buffer.from(before.trim(), 'hex')).open(row!.secret)).toThrow(/cannot open/);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
