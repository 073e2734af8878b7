/**
 * The admin token of a data dir, and the record of the service running on it.
 *
 * - `admin.token` (mode 0600): a random 256-bit token, made when a service first opens the data
 *   dir. It authorizes the admin routes (spec/admin.ts), which refuse every API key. Whoever can
 *   read the data dir can administer the service anyway (the store is in it); the token lets the
 *   `orgs|keys` commands do so while the service holds the store. The service keeps only its hash.
 * - `service.json`: where the service on this data dir listens (url, pid), written at listen and
 *   removed at close; the CLI reads it to reach the running service.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin.token';
export const SERVICE_FILE = 'service.json';

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest();

/** The token of the data dir, made (mode 0600) when missing; a looser mode is tightened. */
export function adminToken(dataDir: string): string {
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    try {
      fs.writeSync(fd, `${crypto.randomBytes(32).toString('base64url')}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token.length < 32) throw new Error(`${file} does not hold an admin token; delete it and start the service again`);
  return token;
}

/** Checks a presented token against the data dir's, in constant time; holds only the hash. */
export class AdminAuth {
  private readonly hash: Buffer;
  constructor(token: string) {
    this.hash = sha256(token);
  }
  static forDataDir(dataDir: string): AdminAuth {
    return new AdminAuth(adminToken(dataDir));
  }
  check(presented: string): boolean {
    return crypto.timingSafeEqual(sha256(presented), this.hash);
  }
}

export interface ServiceRecord {
  url: string;
  pid: number;
  started_at: string;
}

export function publishService(dataDir: string, url: string): () => void {
  const file = path.join(dataDir, SERVICE_FILE);
  const rec: ServiceRecord = { url, pid: process.pid, started_at: new Date().toISOString() };
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(rec), { mode: 0o600 });
  fs.renameSync(tmp, file);
  return () => {
    // remove it only while it is still ours (another service may have started on the dir since)
    try {
      if ((JSON.parse(fs.readFileSync(file, 'utf8')) as ServiceRecord).pid === process.pid) fs.rmSync(file, { force: true });
    } catch {
      /* already gone */
    }
  };
}

/** The service recorded on the data dir when its process is alive; null otherwise. */
export function runningService(dataDir: string): ServiceRecord | null {
  let rec: ServiceRecord;
  try {
    rec = JSON.parse(fs.readFileSync(path.join(dataDir, SERVICE_FILE), 'utf8')) as ServiceRecord;
  } catch {
    return null;
  }
  if (typeof rec?.url !== 'string' || !Number.isInteger(rec.pid)) return null;
  try {
    process.kill(rec.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return null;
  }
  return rec;
}
