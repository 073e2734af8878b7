/**
 * A data dir as earlier versions left it: the master key in `secret.key` beside the store, and BYOK
 * keys sealed in the v1 format (`v1:<key id>:<base64 iv|tag|ciphertext>`, AES-256-GCM without
 * associated data). Written here byte for byte as those versions wrote them, to prove they still open.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Db } from '../../service/store/db.js';
import { KEY_FILE, keyId } from '../../service/auth/secrets.js';

export function sealV1(key: Buffer, plain: string): string {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `v1:${keyId(key)}:${Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64')}`;
}

/** Write the key file and the rows [owner, provider, plaintext]; returns the key. */
export async function legacyDataDir(dir: string, rows: [string, string, string][]): Promise<Buffer> {
  const key = crypto.randomBytes(32);
  fs.writeFileSync(path.join(dir, KEY_FILE), `${key.toString('hex')}\n`, { mode: 0o600 });
  const db = await Db.open(path.join(dir, 'service.duckdb'));
  for (const [owner, provider, plain] of rows)
    await db.run('INSERT INTO byok_keys (owner, provider, secret, key_hint, updated_at) VALUES ($1, $2, $3, $4, now())', [
      owner,
      provider,
      sealV1(key, plain),
      `...${plain.slice(-4)}`,
    ]);
  db.close();
  return key;
}
