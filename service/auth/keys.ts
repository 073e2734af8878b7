/**
 * Organizations, API keys and OAuth tokens. Keys are random 192-bit secrets: only their
 * SHA-256 is stored (a fast hash is enough for secrets of that entropy), so the store
 * never holds a usable key.
 */
import { UserError } from '../../lib/errors.js';
import crypto from 'node:crypto';
import { PLANS, SCOPES, normaliseDomain, type Plan, type Scope } from '../../spec/index.js';
import type { Db } from '../store/db.js';
import type { Org, Principal } from './principal.js';

export const KEY_PREFIX = 'nfk_';
export const TOKEN_PREFIX = 'nft_';
export const OAUTH_TOKEN_TTL_SECONDS = 3600;

export const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const randomSecret = () => crypto.randomBytes(24).toString('base64url');
const shortId = (p: string) => `${p}_${crypto.randomBytes(8).toString('hex')}`;

export class AdminInputError extends UserError {}

export interface KeyRow {
  id: string;
  name: string;
  key_prefix: string;
  org_id: string | null;
  org_name: string | null;
  user_id: string;
  scopes: string[];
  plan: string;
  legacy: boolean;
  created_at: Date;
  revoked_at: Date | null;
}

export interface CreateKeyInput {
  name: string;
  org?: string;
  scopes: string[];
  plan?: string;
  legacy?: boolean;
}

export class KeyStore {
  /** Principal cache by hash; revocation in this process clears it. */
  private cache = new Map<string, { p: Principal | null; until: number }>();
  constructor(private readonly db: Db) {}

  async createOrg(input: { name: string; domains: string[]; publisher?: boolean; plan?: string }): Promise<Org> {
    const name = input.name.trim();
    if (!name) throw new AdminInputError('--name is required: give the organization a name');
    const domains = [...new Set(input.domains.map(normaliseDomain).filter(Boolean))];
    for (const d of domains) {
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d)) throw new AdminInputError(`"${d}" is not a domain name (expected e.g. example.com)`);
    }
    const plan = (input.plan ?? 'enterprise') as Plan;
    if (!PLANS.includes(plan)) throw new AdminInputError(`unknown plan "${input.plan}"; use one of ${PLANS.join(', ')}`);
    if (await this.db.one('SELECT id FROM orgs WHERE name = $1', [name])) {
      throw new AdminInputError(`an organization named "${name}" already exists`);
    }
    const org: Org = { id: shortId('org'), name, domains, publisher: !!input.publisher, plan, userId: crypto.randomUUID() };
    await this.db.run(`INSERT INTO orgs (id, name, domains, publisher, plan, user_id) VALUES ($1, $2, string_split($3, ','), $4, $5, $6)`, [
      org.id,
      org.name,
      domains.join(','),
      org.publisher,
      org.plan,
      org.userId,
    ]);
    if (domains.length === 0) await this.db.run(`UPDATE orgs SET domains = []::VARCHAR[] WHERE id = $1`, [org.id]);
    return org;
  }

  async listOrgs(): Promise<Org[]> {
    const rows = await this.db.all<{ id: string; name: string; domains: string[]; publisher: boolean; plan: Plan; user_id: string }>(
      'SELECT * FROM orgs ORDER BY created_at, name',
    );
    return rows.map((r) => ({ id: r.id, name: r.name, domains: r.domains, publisher: r.publisher, plan: r.plan, userId: r.user_id }));
  }

  async findOrg(nameOrId: string): Promise<Org | undefined> {
    return (await this.listOrgs()).find((o) => o.name === nameOrId || o.id === nameOrId);
  }

  /** Creates a key and returns its plaintext: the only time it exists outside the caller's hands. */
  async createKey(input: CreateKeyInput): Promise<{ id: string; key: string; row: KeyRow }> {
    const name = input.name.trim();
    if (!name) throw new AdminInputError('--name is required');
    const unknown = input.scopes.filter((s) => !SCOPES.includes(s as Scope));
    if (unknown.length) throw new AdminInputError(`unknown scope(s) ${unknown.join(', ')}; use any of ${SCOPES.join(', ')}`);
    if (input.scopes.length === 0) throw new AdminInputError(`--scopes is required; use any of ${SCOPES.join(', ')}`);
    let org: Org | undefined;
    if (input.org) {
      org = await this.findOrg(input.org);
      if (!org) throw new AdminInputError(`no organization "${input.org}"; create it with: newsflow orgs create --name ${input.org} --domains ...`);
    }
    const plan = (input.plan ?? org?.plan ?? 'free') as Plan;
    if (!PLANS.includes(plan)) throw new AdminInputError(`unknown plan "${input.plan}"; use one of ${PLANS.join(', ')}`);
    let scopes = [...new Set(input.scopes)];
    // A legacy key predates the distribution scope: it never carries it.
    if (input.legacy) scopes = scopes.filter((s) => s !== 'distribution');
    if (scopes.length === 0) throw new AdminInputError('a legacy key never carries the distribution scope: give at least one other scope');
    if (!org && scopes.includes('distribution')) {
      throw new AdminInputError('the distribution scope needs an organization key: add --org ORG');
    }
    const secret = randomSecret();
    const key = `${KEY_PREFIX}${secret}`;
    const id = shortId('key');
    await this.db.run(
      `INSERT INTO api_keys (id, name, key_hash, key_prefix, org_id, user_id, scopes, plan, legacy)
       VALUES ($1, $2, $3, $4, $5, $6, string_split($7, ','), $8, $9)`,
      [id, name, sha256(key), key.slice(0, KEY_PREFIX.length + 4), org?.id ?? null, org?.userId ?? crypto.randomUUID(), scopes.join(','), plan, !!input.legacy],
    );
    const row = (await this.listKeys()).find((k) => k.id === id)!;
    return { id, key, row };
  }

  async listKeys(): Promise<KeyRow[]> {
    return this.db.all<KeyRow>(
      `SELECT k.id, k.name, k.key_prefix, k.org_id, o.name AS org_name, k.user_id, k.scopes, k.plan, k.legacy, k.created_at, k.revoked_at
       FROM api_keys k LEFT JOIN orgs o ON o.id = k.org_id ORDER BY k.created_at, k.id`,
    );
  }

  async revokeKey(id: string): Promise<boolean> {
    const row = await this.db.one<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE id = $1', [id]);
    if (!row) return false;
    if (!row.revoked_at) await this.db.run('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    await this.db.run('DELETE FROM oauth_tokens WHERE key_id = $1', [id]);
    this.cache.clear();
    return true;
  }

  /** Resolve a bearer credential (API key or OAuth access token) to a principal, or null. */
  async resolve(credential: string): Promise<Principal | null> {
    const hash = sha256(credential);
    const hit = this.cache.get(hash);
    const now = Date.now();
    if (hit && hit.until > now) return hit.p;
    let p: Principal | null = null;
    if (credential.startsWith(TOKEN_PREFIX)) {
      const t = await this.db.one<{ key_id: string; scopes: string[]; expires_at: Date }>(
        'SELECT key_id, scopes, expires_at FROM oauth_tokens WHERE token_hash = $1',
        [hash],
      );
      if (t && t.expires_at.getTime() > now) {
        const base = await this.principalByKey('id', t.key_id);
        if (base) p = { ...base, scopes: base.scopes.filter((s) => t.scopes.includes(s)), viaOAuth: true };
      }
    } else {
      p = await this.principalByKey('key_hash', hash);
    }
    this.cache.set(hash, { p, until: now + 5000 });
    return p;
  }

  private async principalByKey(col: 'id' | 'key_hash', v: string): Promise<Principal | null> {
    const k = await this.db.one<{
      id: string;
      name: string;
      org_id: string | null;
      user_id: string;
      scopes: string[];
      plan: Plan;
      legacy: boolean;
      revoked_at: Date | null;
    }>(`SELECT id, name, org_id, user_id, scopes, plan, legacy, revoked_at FROM api_keys WHERE ${col} = $1`, [v]);
    if (!k || k.revoked_at) return null;
    const org = k.org_id ? ((await this.listOrgs()).find((o) => o.id === k.org_id) ?? null) : null;
    return { keyId: k.id, keyName: k.name, userId: k.user_id, org, scopes: k.scopes as Scope[], plan: k.plan, legacy: k.legacy, viaOAuth: false };
  }

  /** OAuth2 client credentials: client_id = key id, client_secret = the key. */
  async issueToken(
    clientId: string,
    clientSecret: string,
    requested: string[] | undefined,
  ): Promise<{ ok: true; token: string; scopes: string[]; expiresIn: number } | { ok: false; error: 'invalid_client' | 'invalid_scope'; detail: string }> {
    const p = await this.principalByKey('key_hash', sha256(clientSecret));
    if (!p || p.keyId !== clientId) return { ok: false, error: 'invalid_client', detail: 'unknown client or wrong secret' };
    // offline/openid (added by the Python SDK), analytics and internal are accepted and ignored
    const wanted = (requested ?? p.scopes).filter((s) => !['offline', 'openid', 'analytics', 'internal'].includes(s));
    const missing = wanted.filter((s) => !p.scopes.includes(s as Scope));
    if (missing.length) return { ok: false, error: 'invalid_scope', detail: `client is not allowed scope(s): ${missing.join(', ')}` };
    const scopes = wanted.length ? wanted : [...p.scopes];
    const token = `${TOKEN_PREFIX}${randomSecret()}`;
    await this.db.run(`INSERT INTO oauth_tokens (token_hash, key_id, scopes, expires_at) VALUES ($1, $2, string_split($3, ','), now() + to_seconds($4))`, [
      sha256(token),
      p.keyId,
      scopes.join(','),
      OAUTH_TOKEN_TTL_SECONDS,
    ]);
    await this.db.run('DELETE FROM oauth_tokens WHERE expires_at < now()');
    return { ok: true, token, scopes, expiresIn: OAUTH_TOKEN_TTL_SECONDS };
  }
}
