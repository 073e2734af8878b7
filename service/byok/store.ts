/**
 * BYOK provider keys (anthropic, google), one per owner (the organization of an organization key,
 * else the user), sealed with the service's master key (auth/secrets.ts) for their row (owner and
 * provider as associated data: a value copied into another row does not open). Only the last 4
 * characters are shown back (`key_hint`).
 */
import type { Db } from '../store/db.js';
import { SecretsError, byokContext, sealedInfo, type Secrets } from '../auth/secrets.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { planAtLeast, route } from '../../spec/index.js';

export type ByokProviderName = 'anthropic' | 'google';
export const BYOK_PROVIDERS: ByokProviderName[] = ['anthropic', 'google'];

export { ownerOf };
/** Whether a key may use its owner's BYOK keys: the plan the /v1/byok routes need (enterprise), in chat too. */
export const byokAllowed = (p: Principal) => planAtLeast(p.plan, route('get_byok_key').plan!);
export const hintOf = (key: string) => `...${key.slice(-4)}`;

export class ByokStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: () => Secrets,
  ) {}

  async hint(owner: string, provider: ByokProviderName): Promise<string | null> {
    const r = await this.db.one<{ h: string }>('SELECT key_hint AS h FROM byok_keys WHERE owner = $1 AND provider = $2', [owner, provider]);
    return r?.h ?? null;
  }

  async put(owner: string, provider: ByokProviderName, key: string): Promise<string> {
    const hint = hintOf(key);
    await this.db.run(
      `INSERT INTO byok_keys (owner, provider, secret, key_hint, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (owner, provider) DO UPDATE SET secret = excluded.secret, key_hint = excluded.key_hint, updated_at = now()`,
      [owner, provider, this.secrets().seal(key, byokContext(owner, provider)), hint],
    );
    return hint;
  }

  async delete(owner: string, provider: ByokProviderName): Promise<boolean> {
    const had = await this.hint(owner, provider);
    if (had === null) return false;
    await this.db.run('DELETE FROM byok_keys WHERE owner = $1 AND provider = $2', [owner, provider]);
    return true;
  }

  /** The owner's plaintext keys (to call a provider). */
  async keys(owner: string): Promise<Partial<Record<ByokProviderName, string>>> {
    const rows = await this.db.all<{ p: ByokProviderName; s: string }>('SELECT provider AS p, secret AS s FROM byok_keys WHERE owner = $1', [owner]);
    return Object.fromEntries(rows.map((r) => [r.p, this.secrets().open(r.s, byokContext(owner, r.p))]));
  }

  /** Re-seal every stored key with `to` (opened with `from`), bound to its row; returns how many. One transaction. */
  async rotate(from: Secrets, to: Secrets): Promise<number> {
    return this.db.tx(async (q) => {
      const rows = await q.all<{ o: string; p: string; s: string }>('SELECT owner AS o, provider AS p, secret AS s FROM byok_keys');
      for (const r of rows) {
        const context = byokContext(r.o, r.p);
        await q.run('UPDATE byok_keys SET secret = $1 WHERE owner = $2 AND provider = $3', [to.seal(from.open(r.s, context), context), r.o, r.p]);
      }
      return rows.length;
    });
  }

  /**
   * What the stored values are and whether `secrets` opens them: counts by key id and version, how
   * many open, and the first reason one does not.
   */
  async audit(secrets: Secrets | null): Promise<{ total: number; opened: number; v1: number; byKey: Record<string, number>; problem: string | null }> {
    const rows = await this.db.all<{ o: string; p: string; s: string }>(
      'SELECT owner AS o, provider AS p, secret AS s FROM byok_keys ORDER BY owner, provider',
    );
    const out = { total: rows.length, opened: 0, v1: 0, byKey: {} as Record<string, number>, problem: null as string | null };
    for (const r of rows) {
      const info = sealedInfo(r.s);
      out.byKey[info.keyId] = (out.byKey[info.keyId] ?? 0) + 1;
      if (info.version === 'v1') out.v1++;
      try {
        if (!secrets) throw new SecretsError(`no master key to open a secret sealed by master key ${info.keyId}`);
        secrets.open(r.s, byokContext(r.o, r.p));
        out.opened++;
      } catch (e) {
        out.problem ??= (e as Error).message;
      }
    }
    return out;
  }

  /**
   * Start-up check: every stored value was sealed by a key this service has. Throws one line
   * (SecretsError) when not — a data dir restored without its key — instead of failing on the first
   * BYOK request. Opens nothing.
   */
  async checkKeys(secrets: Secrets | null, where: string): Promise<void> {
    const rows = await this.db.all<{ s: string }>('SELECT secret AS s FROM byok_keys');
    const missing = new Map<string, number>();
    for (const r of rows) {
      const kid = sealedInfo(r.s).keyId;
      if (!secrets?.has(kid)) missing.set(kid, (missing.get(kid) ?? 0) + 1);
    }
    if (missing.size === 0) return;
    const list = [...missing].map(([k, n]) => `${n} under master key ${k}`).join(', ');
    throw new SecretsError(
      `the store holds sealed BYOK keys this machine has no master key for (${list}): set NEWSFLOW_SECRET_KEY to that key, or put its key file at ${where}`,
    );
  }
}
