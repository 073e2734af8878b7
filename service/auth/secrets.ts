/**
 * Secrets at rest (BYOK provider keys): AES-256-GCM under a 32-byte master key taken from
 * NEWSFLOW_SECRET_KEY (64 hex characters or base64), else from `secret.key` in the data dir,
 * created with mode 0600 on first use. A sealed value is `v1:<key id>:<base64 iv|tag|ciphertext>`;
 * the key id (8 hex of the master key's sha256) says which master key sealed it, so rotation
 * can open values sealed by an older key.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const KEY_FILE = 'secret.key';

export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  const k = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (k.length !== 32) throw new Error('a master key must be 32 bytes: 64 hex characters or base64 of 32 bytes');
  return k;
}

export const keyId = (k: Buffer) => crypto.createHash('sha256').update(k).digest('hex').slice(0, 8);

/** The key file's key, created (0600) when missing and `create` is set. */
export function fileKey(dataDir: string, create: boolean): Buffer | null {
  const file = path.join(dataDir, KEY_FILE);
  if (fs.existsSync(file)) return parseMasterKey(fs.readFileSync(file, 'utf8'));
  if (!create) return null;
  fs.mkdirSync(dataDir, { recursive: true });
  const k = crypto.randomBytes(32);
  fs.writeFileSync(file, `${k.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return k;
}

/** A rotation's new key, written before the store is re-sealed and renamed to the key file after. */
export const NEXT_KEY_FILE = `${KEY_FILE}.next`;
function nextKey(dataDir: string): Buffer | null {
  const f = path.join(dataDir, NEXT_KEY_FILE);
  return fs.existsSync(f) ? parseMasterKey(fs.readFileSync(f, 'utf8')) : null;
}

export class Secrets {
  private readonly byId: Map<string, Buffer>;
  /** `current` seals; `older` only open (rotation). */
  constructor(
    readonly current: Buffer,
    older: Buffer[] = [],
  ) {
    this.byId = new Map([current, ...older].map((k) => [keyId(k), k]));
  }

  /** The master key of a service: NEWSFLOW_SECRET_KEY, else the data dir's key file (created on first use). */
  static forService(opts: { secretKey?: string; dataDir: string }): Secrets {
    const next = nextKey(opts.dataDir);
    if (opts.secretKey) {
      const older = fileKey(opts.dataDir, false);
      return new Secrets(
        parseMasterKey(opts.secretKey),
        [older, next].filter((k): k is Buffer => !!k),
      );
    }
    return new Secrets(fileKey(opts.dataDir, true)!, next ? [next] : []);
  }

  get id(): string {
    return keyId(this.current);
  }

  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.current, iv);
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `v1:${this.id}:${Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64')}`;
  }

  open(sealed: string): string {
    const [v, kid, b64] = sealed.split(':');
    const k = kid ? this.byId.get(kid) : undefined;
    if (v !== 'v1' || !k || !b64) throw new Error(`cannot open a secret sealed by master key ${kid ?? '?'} (not the current or a known older key)`);
    const raw = Buffer.from(b64, 'base64');
    const d = crypto.createDecipheriv('aes-256-gcm', k, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  }
}
