/**
 * `newsflow secrets rotate`: re-seal every stored secret under a new master key.
 * - With NEWSFLOW_SECRET_KEY set, that key is the new one; the old one is `oldKey`
 *   (NEWSFLOW_SECRET_KEY_OLD) or the data dir's key file (moving from a key file to the variable).
 * - Without it, a new key file is made: written to `secret.key.next` (0600) first, the store is
 *   re-sealed in one transaction, then the file replaces `secret.key`. A crash in between leaves
 *   both keys on disk, and the service opens values sealed by either.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import { KEY_FILE, NEXT_KEY_FILE, Secrets, fileKey, keyId, parseMasterKey } from '../auth/secrets.js';
import { ByokStore } from './store.js';

export async function rotateSecrets(db: Db, opts: { dataDir: string; secretKey?: string; oldKey?: string }): Promise<{ rotated: number; from: string; to: string }> {
  const file = path.join(opts.dataDir, KEY_FILE);
  const next = path.join(opts.dataDir, NEXT_KEY_FILE);
  const older = [opts.oldKey ? parseMasterKey(opts.oldKey) : null, fileKey(opts.dataDir, false), fs.existsSync(next) ? parseMasterKey(fs.readFileSync(next, 'utf8')) : null]
    .filter((k): k is Buffer => !!k);
  let to: Buffer;
  if (opts.secretKey) {
    to = parseMasterKey(opts.secretKey);
  } else {
    to = crypto.randomBytes(32);
    fs.mkdirSync(opts.dataDir, { recursive: true });
    fs.writeFileSync(next, `${to.toString('hex')}\n`, { mode: 0o600 });
  }
  const from = new Secrets(older[0] ?? to, [...older.slice(1), to]);
  const rotated = await new ByokStore(db, () => from).rotate(from, new Secrets(to));
  if (!opts.secretKey) {
    fs.renameSync(next, file);
    fs.chmodSync(file, 0o600);
  }
  return { rotated, from: older[0] ? keyId(older[0]) : '-', to: keyId(to) };
}
