/** Keys are stored hashed: the plaintext appears in no byte of the store files. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { KeyStore, sha256 } from '../../../service/auth/keys.js';
import { tempDir } from '../../helpers/service.js';

function storeBytes(dir: string): Buffer {
  return Buffer.concat(fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f))));
}

describe('keys at rest', () => {
  it('never writes a key in plaintext, before or after a checkpoint', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'service.duckdb');
    const db = await Db.open(file);
    const keys = new KeyStore(db);
    await keys.createOrg({ name: 'acme', domains: ['acme.com'] });
    // A control value stored as-is: proves the byte search can find what is stored.
    const marker = `marker-${Date.now()}-visible-name`;
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await keys.createKey({ name: `${marker}-${i}`, org: 'acme', scopes: ['news', 'distribution'] }));
    const tokens = [];
    for (const c of created.slice(0, 2)) {
      const t = await keys.issueToken(c.id, c.key, ['news']);
      if (t.ok) tokens.push(t.token);
    }
    expect(tokens.length).toBe(2);
    for (const phase of ['wal', 'checkpointed'] as const) {
      if (phase === 'checkpointed') await db.checkpoint();
      const bytes = storeBytes(dir);
      expect(bytes.includes(Buffer.from(marker)), `${phase}: control marker`).toBe(true);
      for (const { key } of created) {
        expect(bytes.includes(Buffer.from(key)), `${phase}: key`).toBe(false);
        expect(bytes.includes(Buffer.from(key.slice(8))), `${phase}: key secret part`).toBe(false);
      }
      for (const t of tokens) expect(bytes.includes(Buffer.from(t)), `${phase}: oauth token`).toBe(false);
    }
    // ...while the hash is what lets the key in
    expect((await keys.resolve(created[0]!.key))?.keyId).toBe(created[0]!.id);
    const rows = await db.all<{ key_hash: string }>('SELECT key_hash FROM api_keys ORDER BY created_at');
    expect(rows.map((r) => r.key_hash)).toContain(sha256(created[0]!.key));
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
