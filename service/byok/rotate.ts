/**
 * `newsflow secrets rotate`: re-seal every stored secret under a new master key, each bound to its
 * row (v2, auth/secrets.ts; values sealed before as v1 become v2).
 * - With NEWSFLOW_SECRET_KEY set, that key is the new one; the old ones are `oldKey`
 *   (NEWSFLOW_SECRET_KEY_OLD) and every key file found (moving from a key file to the variable).
 * - Without it, a new key file is made outside the data dir (`keyFile`, default
 *   `$XDG_CONFIG_HOME/newsflow/secret.key`): written to `secret.key.next` (0600, fsynced) first,
 *   the store is re-sealed in one transaction, then the file replaces `secret.key` (the folder
 *   fsynced). A crash in between leaves both keys on disk, and the service opens values sealed by
 *   either; the next rotation finishes that one (it re-seals under the `.next` key it finds and
 *   never overwrites it), so no run, crashed or failed, can lose a key a value is sealed with.
 * - A key file left in the data dir by earlier versions (and its `.next`) is removed once the
 *   store no longer needs it: this is how the key moves out of the data dir.
 *
 * The key file is one per account: other data dirs whose values it sealed need NEWSFLOW_SECRET_KEY_OLD
 * (the old key) for their own rotation.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import { NEXT_SUFFIX, Secrets, dataDirKeyFile, findKeys, keyId, parseMasterKey, syncDir, writeKeyFile } from '../auth/secrets.js';
import { ByokStore } from './store.js';

export async function rotateSecrets(
  db: Db,
  opts: { dataDir: string; secretKey?: string; oldKey?: string; keyFile: string },
): Promise<{ rotated: number; from: string; to: string; keyFile: string | null; removed: string[] }> {
  const keyFile = opts.keyFile;
  const next = keyFile + NEXT_SUFFIX;
  // every key that may open a stored value (the variable's own among them when it did not change)
  const found = findKeys({ dataDir: opts.dataDir, keyFile, secretKey: opts.secretKey });
  const older = [...(opts.oldKey ? [parseMasterKey(opts.oldKey)] : []), ...found.filter((k) => k.kind !== 'env').map((k) => k.key)];
  let to: Buffer;
  if (opts.secretKey) {
    to = parseMasterKey(opts.secretKey);
  } else if (fs.existsSync(next)) {
    // an earlier rotation stopped between its transaction and the rename: finish it
    to = parseMasterKey(fs.readFileSync(next, 'utf8'));
  } else {
    to = crypto.randomBytes(32);
    writeKeyFile(next, to);
  }
  const from = new Secrets(older[0] ?? to, [...older.slice(1), to]);
  const rotated = await new ByokStore(db, () => from).rotate(from, new Secrets(to));
  if (!opts.secretKey) {
    fs.renameSync(next, keyFile);
    fs.chmodSync(keyFile, 0o600);
    syncDir(path.dirname(keyFile));
  }
  // the store opens with the new key alone now: the data dir's own key files go
  const removed: string[] = [];
  const beside = dataDirKeyFile(opts.dataDir);
  for (const f of [beside, beside + NEXT_SUFFIX]) {
    if (path.resolve(f) !== path.resolve(keyFile) && fs.existsSync(f)) {
      fs.rmSync(f);
      removed.push(f);
    }
  }
  if (removed.length) syncDir(opts.dataDir);
  return { rotated, from: older[0] ? keyId(older[0]) : '-', to: keyId(to), keyFile: opts.secretKey ? null : keyFile, removed };
}
