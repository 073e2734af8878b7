/**
 * What `newsflow orgs|keys|secrets|simulate` act on: the running service of the data dir through its admin routes
 * (spec/admin.ts, authorized by the data dir's admin token) when one runs, else the store itself.
 */
import { UserError } from '../../lib/errors.js';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN_FILE, runningService } from './token.js';
import { KeyStore, type CreateKeyInput } from '../auth/keys.js';
import { storeFile } from '../config.js';
import { Db } from '../store/db.js';

export interface AdminOrgView {
  id: string;
  name: string;
  domains: string[];
  publisher: boolean;
  plan: string;
}
export interface AdminKeyView {
  id: string;
  name: string;
  key_prefix: string;
  org_id: string | null;
  org_name: string | null;
  scopes: string[];
  plan: string;
  legacy: boolean;
  created_at: string | Date;
  revoked_at: string | Date | null;
}
export interface AdminSecretsView {
  current: { id: string; kind: string; where: string } | null;
  older: { id: string; kind: string; where: string }[];
  keyFile: string;
  sealed: { total: number; opened: number; v1: number; problem: string | null; rotatedAt: string | null };
}
export interface AdminRotatedView {
  rotated: number;
  from: string;
  to: string;
  keyFile: string | null;
  removed: string[];
}
/** The master keys of the command's own environment: used on the store itself, not by a running service (which has its own). */
export interface LocalKeys {
  secretKey?: string;
  oldKey?: string;
  /** the master key file outside the data dir (the CLI's environment: $XDG_CONFIG_HOME/newsflow/secret.key) */
  keyFile: string;
}

export interface AdminOps {
  /** where the commands act: "the running service at URL" or "the store FILE" */
  readonly via: string;
  createOrg(input: { name: string; domains: string[]; publisher?: boolean; plan: string }): Promise<AdminOrgView>;
  listOrgs(): Promise<AdminOrgView[]>;
  createKey(input: CreateKeyInput): Promise<{ id: string; key: string; row: AdminKeyView }>;
  listKeys(): Promise<AdminKeyView[]>;
  /** false when no key has that id */
  revokeKey(id: string): Promise<boolean>;
  secretsStatus(local: LocalKeys): Promise<AdminSecretsView>;
  rotateSecrets(local: LocalKeys): Promise<AdminRotatedView>;
  simulateHits(input: { months: number; seed: number; eventsPerDay: number }): Promise<Record<string, unknown>>;
  /** `newsflow forum load`: the result of ForumService.load (`path` absolute) */
  forumLoad(path: string): Promise<Record<string, unknown>>;
}

/** A refusal the user can fix (bad input, unknown organization): the CLI prints it. */
export class AdminRefused extends UserError {}

class HttpAdmin implements AdminOps {
  readonly via: string;
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {
    this.via = `the running service at ${url}`;
  }
  private async call<T>(method: string, p: string, body?: unknown, timeoutMs = 30_000): Promise<{ status: number; json: T }> {
    const res = await fetch(`${this.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const json = (text ? JSON.parse(text) : null) as T;
    if (res.status >= 400 && res.status !== 404) {
      const detail = (json as { detail?: unknown })?.detail;
      const msg = Array.isArray(detail)
        ? detail.map((d: { loc?: string[]; msg?: string }) => `${(d.loc ?? []).slice(1).join('.')}: ${d.msg}`).join('; ')
        : String(detail ?? res.statusText);
      throw new AdminRefused(res.status === 422 ? msg : `the service at ${this.url} answered ${res.status}: ${msg}`);
    }
    return { status: res.status, json };
  }
  async createOrg(input: { name: string; domains: string[]; publisher?: boolean; plan: string }) {
    return (
      await this.call<AdminOrgView>('POST', '/v1/admin/orgs', { name: input.name, domains: input.domains, publisher: !!input.publisher, plan: input.plan })
    ).json;
  }
  async listOrgs() {
    return (await this.call<{ orgs: AdminOrgView[] }>('GET', '/v1/admin/orgs')).json.orgs;
  }
  async createKey(input: CreateKeyInput) {
    const { json } = await this.call<AdminKeyView & { key: string }>('POST', '/v1/admin/keys', {
      name: input.name,
      org: input.org ?? null,
      scopes: input.scopes,
      plan: input.plan ?? null,
      legacy: !!input.legacy,
    });
    const { key, ...row } = json;
    return { id: row.id, key, row };
  }
  async listKeys() {
    return (await this.call<{ keys: AdminKeyView[] }>('GET', '/v1/admin/keys')).json.keys;
  }
  async revokeKey(id: string) {
    return (await this.call('DELETE', `/v1/admin/keys/${encodeURIComponent(id)}`)).status === 204;
  }
  async secretsStatus() {
    const { json } = await this.call<
      Omit<AdminSecretsView, 'keyFile' | 'sealed'> & { key_file: string; sealed: Omit<AdminSecretsView['sealed'], 'rotatedAt'> & { rotated_at: string | null } }
    >('GET', '/v1/admin/secrets');
    const { key_file, sealed, ...rest } = json;
    const { rotated_at, ...counts } = sealed;
    return { ...rest, keyFile: key_file, sealed: { ...counts, rotatedAt: rotated_at } };
  }
  async rotateSecrets(local: LocalKeys) {
    const { json } = await this.call<Omit<AdminRotatedView, 'keyFile'> & { key_file: string | null }>('POST', '/v1/admin/secrets/rotate', {
      old_key: local.oldKey ?? null,
    });
    const { key_file, ...rest } = json;
    return { ...rest, keyFile: key_file };
  }
  async forumLoad(p: string) {
    // a large dump takes minutes: the service reads, enriches and indexes it in this request
    return (await this.call<Record<string, unknown>>('POST', '/v1/admin/forum/load', { path: p }, 60 * 60_000)).json;
  }
  async simulateHits(input: { months: number; seed: number; eventsPerDay: number }) {
    return (
      await this.call<Record<string, unknown>>('POST', '/v1/admin/simulate/hits', {
        months: input.months,
        seed: input.seed,
        events_per_day: input.eventsPerDay,
      })
    ).json;
  }
}

/** The operations on the store itself that are not the key store's (secrets, simulate): given by the caller (service/index.ts). */
export type StoreOps = (db: Db, dataDir: string) => Pick<AdminOps, 'secretsStatus' | 'rotateSecrets' | 'simulateHits' | 'forumLoad'>;

const noStoreOps: StoreOps = () => {
  const no = () => Promise.reject(new Error('withAdmin: no store operations given for this command'));
  return { secretsStatus: no, rotateSecrets: no, simulateHits: no, forumLoad: no };
};

/** Run `fn` against the running service of the data dir, else against its store (opened for `fn`). */
export async function withAdmin<T>(dataDir: string, fn: (ops: AdminOps) => Promise<T>, storeOps: StoreOps = noStoreOps): Promise<T> {
  const svc = runningService(dataDir);
  const tokenFile = path.join(dataDir, ADMIN_TOKEN_FILE);
  if (svc && fs.existsSync(tokenFile)) {
    const ops = new HttpAdmin(svc.url, fs.readFileSync(tokenFile, 'utf8').trim());
    try {
      return await fn(ops);
    } catch (e) {
      // a record left by a service that died without removing it: the store is free then
      const code = (e as { cause?: { code?: string } }).cause?.code;
      if (code !== 'ECONNREFUSED') throw e;
    }
  }
  const db = await Db.open(storeFile(dataDir));
  try {
    const keys = new KeyStore(db);
    return await fn({
      via: `the store ${storeFile(dataDir)}`,
      createOrg: (i) => keys.createOrg(i),
      listOrgs: () => keys.listOrgs(),
      createKey: (i) => keys.createKey(i),
      listKeys: () => keys.listKeys(),
      revokeKey: (id) => keys.revokeKey(id),
      ...storeOps(db, dataDir),
    });
  } finally {
    db.close();
  }
}
