/**
 * Secrets at rest (BYOK provider keys): AES-256-GCM under a 32-byte master key.
 *
 * Where the master key comes from, first found wins:
 * 1. NEWSFLOW_SECRET_KEY (64 hex characters or base64 of 32 bytes);
 * 2. the key file outside the data dir: `$XDG_CONFIG_HOME/newsflow/secret.key`, else
 *    `~/.config/newsflow/secret.key` (`defaultKeyFile`), created (mode 0600, its folder 0700) the
 *    first time a secret is sealed, so a copy of the data dir alone opens nothing;
 * 3. `secret.key` in the data dir, where earlier versions kept it: still read (the service warns
 *    on start that it sits beside the data); `newsflow secrets rotate` moves the secrets to a new
 *    key in the key file of 2 and removes it.
 * Every other key found there (and a rotation's `.next` file) opens values only (rotation).
 *
 * A sealed value is `v2:<key id>:<base64 iv|tag|ciphertext>`, sealed with associated data that
 * names its row (BYOK: owner and provider, `byokContext`): a value copied into another row does
 * not open. Values sealed before (`v1:`, no associated data) open only when the caller allows it
 * (`open`'s `v1`): the BYOK store allows them until the store's first `secrets rotate`, which
 * re-seals them as v2, and refuses them afterwards (service/byok/store.ts). The key id (8 hex of
 * the master key's sha256) says which key sealed it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const KEY_FILE = 'secret.key';
/** A rotation's new key, written beside the key file before the store is re-sealed, renamed to it after. */
export const NEXT_SUFFIX = '.next';

/** A secret that cannot be opened or a key that cannot be had: the message is one line for the operator. */
export class SecretsError extends Error {
  override readonly name = 'SecretsError';
}

export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  const k = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (k.length !== 32) throw new Error('a master key must be 32 bytes: 64 hex characters or base64 of 32 bytes');
  return k;
}

export const keyId = (k: Buffer) => crypto.createHash('sha256').update(k).digest('hex').slice(0, 8);

/** The key file outside the data dir (lib/secret-key-file.ts), of the environment service/config.ts gives. */
export { defaultKeyFile } from '../../lib/secret-key-file.js';

/** Where earlier versions kept the key: in the data dir, beside the store. */
export const dataDirKeyFile = (dataDir: string) => path.join(dataDir, KEY_FILE);

const readKey = (file: string): Buffer | null => {
  if (!fs.existsSync(file)) return null;
  try {
    return parseMasterKey(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new SecretsError(`the master key file ${file} is not a master key: ${(e as Error).message}`);
  }
};

/** A key and where it came from (for `secrets status` and messages). */
export interface KeySource {
  key: Buffer;
  id: string;
  /** `env` NEWSFLOW_SECRET_KEY, `file` the key file, `data-dir` the data dir's key file, `next` a rotation's new key file, `given` an explicit old key */
  kind: 'env' | 'file' | 'data-dir' | 'next' | 'given';
  /** the variable or the file */
  where: string;
}

export interface KeyOptions {
  /** NEWSFLOW_SECRET_KEY */
  secretKey?: string;
  dataDir: string;
  /** the key file outside the data dir (ServiceConfig.secretKeyFile: `defaultKeyFile` of the environment) */
  keyFile: string;
}

/** Every key there is for a data dir, the sealing one first (none: empty). */
export function findKeys(opts: KeyOptions): KeySource[] {
  const keyFile = opts.keyFile;
  const legacy = dataDirKeyFile(opts.dataDir);
  const found: KeySource[] = [];
  const add = (key: Buffer | null, kind: KeySource['kind'], where: string) => {
    if (key && !found.some((f) => f.key.equals(key))) found.push({ key, id: keyId(key), kind, where });
  };
  if (opts.secretKey) add(parseMasterKey(opts.secretKey), 'env', 'NEWSFLOW_SECRET_KEY');
  add(readKey(keyFile), 'file', keyFile);
  add(readKey(legacy), 'data-dir', legacy);
  add(readKey(keyFile + NEXT_SUFFIX), 'next', keyFile + NEXT_SUFFIX);
  add(readKey(legacy + NEXT_SUFFIX), 'next', legacy + NEXT_SUFFIX);
  return found;
}

/** Write a new key file (0600, its folder 0700) durably: content and name on disk before this returns. */
export function writeKeyFile(file: string, key: Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.writeSync(fd, `${key.toString('hex')}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncDir(path.dirname(file));
}

export function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The associated data of a BYOK key's sealed value: its owner and provider. */
export const byokContext = (owner: string, provider: string) => `byok\u0000${owner}\u0000${provider}`;

const VERSION = 'v2';
/** GCM tag bytes, sealed and required */
const TAG_BYTES = 16;

export class Secrets {
  private readonly byId: Map<string, Buffer>;
  /** `current` seals; `older` only open (rotation). */
  constructor(
    readonly current: Buffer,
    older: Buffer[] = [],
  ) {
    this.byId = new Map([current, ...older].map((k) => [keyId(k), k]));
  }

  /**
   * The keys of a service (see the file's head): the first found seals; without any, a new key
   * file is made (`keyFile`) when `create`, else null.
   */
  static forService(opts: KeyOptions & { create: false }): Secrets | null;
  static forService(opts: KeyOptions & { create?: true }): Secrets;
  static forService(opts: KeyOptions & { create?: boolean }): Secrets | null {
    const keys = findKeys(opts);
    if (keys.length)
      return new Secrets(
        keys[0]!.key,
        keys.slice(1).map((k) => k.key),
      );
    if (opts.create === false) return null;
    const key = crypto.randomBytes(32);
    writeKeyFile(opts.keyFile, key);
    return new Secrets(key);
  }

  get id(): string {
    return keyId(this.current);
  }

  /** Whether a value sealed by the key `id` opens here. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Seal `plain` for the row `context` names (BYOK: `byokContext(owner, provider)`). */
  seal(plain: string, context: string): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.current, iv, { authTagLength: TAG_BYTES });
    c.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `${VERSION}:${this.id}:${Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64')}`;
  }

  /**
   * Open a value sealed for the row `context` names. A v1 value (sealed before values were bound
   * to their rows, so it opens whatever the row) opens only with `v1: true`. Throws SecretsError:
   * a v1 value not allowed, an unknown key, or a value that is not this row's (copied from another
   * row, or altered).
   */
  open(sealed: string, context: string, opts: { v1?: boolean } = {}): string {
    const [v, kid, b64] = sealed.split(':');
    if ((v !== 'v1' && v !== VERSION) || !kid || !b64) throw new SecretsError('a sealed value is malformed (not v1:<key id>:<data> or v2:<key id>:<data>)');
    if (v === 'v1' && !opts.v1)
      throw new SecretsError(`a secret sealed by master key ${kid} is in the v1 format (not bound to its row), which is not accepted here`);
    const k = this.byId.get(kid);
    if (!k) throw new SecretsError(`cannot open a secret sealed by master key ${kid}: not the current key (${this.id}) or a known older key`);
    const raw = Buffer.from(b64, 'base64');
    if (raw.length < 12 + TAG_BYTES) throw new SecretsError(`a secret sealed by master key ${kid} is too short to hold its iv and tag`);
    // the tag's length fixed (16 bytes): without it GCM takes a shorter tag, and a forger needs far fewer tries
    const d = crypto.createDecipheriv('aes-256-gcm', k, raw.subarray(0, 12), { authTagLength: TAG_BYTES });
    if (v === VERSION) d.setAAD(Buffer.from(context, 'utf8'));
    d.setAuthTag(raw.subarray(12, 12 + TAG_BYTES));
    try {
      return Buffer.concat([d.update(raw.subarray(12 + TAG_BYTES)), d.final()]).toString('utf8');
    } catch {
      throw new SecretsError(`a secret sealed by master key ${kid} does not open for its row: it was sealed for another row, or altered`);
    }
  }
}

/** The key id and version of a sealed value (`v1` | `v2`), without opening it. */
export function sealedInfo(sealed: string): { version: string; keyId: string } {
  const [version = '', kid = ''] = sealed.split(':');
  return { version, keyId: kid };
}
