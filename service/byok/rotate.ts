/**
 * `newsflow secrets rotate`: re-seal every stored secret under a new master key.
 * - With NEWSFLOW_SECRET_KEY set, that key is the new one; the old one is `oldKey`
 *   (NEWSFLOW_SECRET_KEY_OLD) or the data dir's key file (moving from a key file to the variable).
 * - Without it, a new key file is made: written to `secret.key.next` (0600, fsynced) first, the
 *   store is re-sealed in one transaction, then the file replaces `secret.key` (the folder
 *   fsynced). A crash in between leaves both keys on disk, and the service opens values sealed by
 *   either; the next rotation finishes that one (it re-seals under the `.next` key it finds and
 *   never overwrites it), so no run, crashed or failed, can lose a key a value is sealed with.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import { KEY_FILE, NEXT_KEY_FILE, Secrets, fileKey, keyId, parseMasterKey } from '../auth/secrets.js';
import { ByokStore } from './store.js';

export async function rotateSecrets(
  db: Db,
  opts: { dataDir: string; secretKey?: string; oldKey?: string },
): Promise<{ rotated: number; from: string; to: string }> {
  const file = path.join(opts.dataDir, KEY_FILE);
  const next = path.join(opts.dataDir, NEXT_KEY_FILE);
  const older = [
    opts.oldKey ? parseMasterKey(opts.oldKey) : null,
    fileKey(opts.dataDir, false),
    fs.existsSync(next) ? parseMasterKey(fs.readFileSync(next, 'utf8')) : null,
  ].filter((k): k is Buffer => !!k);
  let to: Buffer;
  if (opts.secretKey) {
    to = parseMasterKey(opts.secretKey);
  } else if (fs.existsSync(next)) {
    // an earlier rotation stopped between its transaction and the rename: finish it
    to = parseMasterKey(fs.readFileSync(next, 'utf8'));
  } else {
    to = crypto.randomBytes(32);
    fs.mkdirSync(opts.dataDir, { recursive: true });
    writeDurably(next, `${to.toString('hex')}\n`);
  }
  const from = new Secrets(older[0] ?? to, [...older.slice(1), to]);
  const rotated = await new ByokStore(db, () => from).rotate(from, new Secrets(to));
  if (!opts.secretKey) {
    fs.renameSync(next, file);
    fs.chmodSync(file, 0o600);
    syncDir(opts.dataDir);
  }
  return { rotated, from: older[0] ? keyId(older[0]) : '-', to: keyId(to) };
}

/** A new file (0600) whose content is on disk, and its name in the folder, before this returns. */
function writeDurably(file: string, text: string): void {
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncDir(path.dirname(file));
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
