/**
 * BYOK provider keys (anthropic, google), one per owner (the organization of an organization key,
 * else the user), sealed with the service's master key (auth/secrets.ts) for their row (owner and
 * provider as associated data: a value copied into another row does not open). Only the last 4
 * characters are shown back (`key_hint`).
 *
 * Values sealed before values were bound to their rows (v1, auth/secrets.ts) open until the
 * store's first `newsflow secrets rotate` (a row in `secrets_rotations`), which re-seals each of
 * them as v2. Afterwards a v1 value can only have been written since (a row restored from an old
 * backup, or copied in by hand), and it is refused with one line saying to store that key again.
 */
import type { Db, Params } from '../store/db.js';
import { SecretsError, byokContext, sealedInfo, type Secrets } from '../auth/secrets.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { planAtLeast, route } from '../../spec/index.js';

export type ByokProviderName = 'anthropic' | 'google';
export const BYOK_PROVIDERS: ByokProviderName[] = ['anthropic', 'google'];

export { ownerOf };
/** Whether a key may use its owner's BYOK keys: the plan the /v1/byok routes need (enterprise), in chat too. */
export const byokAllowed = (p: Principal) => planAtLeast(p.plan, route('get_byok_key').plan!);
export const hintOf = (key: string) => `...${key.slice(-4)}`;

type Query = { all: <R>(sql: string, p?: Params) => Promise<R[]> };

/** When the store's first rotation was (UTC, to the second), or null: v1 values are accepted until then. */
async function firstRotation(q: Query): Promise<string | null> {
  const [r] = await q.all<{ at: string | null }>("SELECT strftime(min(rotated_at), '%Y-%m-%d %H:%M:%S') AS at FROM secrets_rotations");
  return r?.at ?? null;
}

/** The refusal of a v1 value met after the store's first rotation: what, where, how to fix. */
export const v1Refused = (owner: string, provider: string, rotatedAt: string) =>
  `the ${provider} BYOK key of ${owner} is sealed in the v1 format (not bound to its row), refused since this store's secrets were rotated at ${rotatedAt} UTC ` +
  `(that rotation re-sealed every v1 value, so this one was written afterwards): store the key again with PUT /v1/byok/${provider}, or remove it with DELETE /v1/byok/${provider}`;

export class ByokStore {
  /** the first rotation's time once seen (it never changes after); null: none seen yet, asked again */
  private rotatedAt: string | null = null;

  /** what the service does after a rotation through its admin route: take the new key (set by server.ts openByok) */
  onRotated: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly secrets: () => Secrets,
  ) {}

  /** When the store's first rotation was (null: none, v1 values still open). Asked of the store until there is one (a rotation runs from the CLI). */
  async firstRotation(): Promise<string | null> {
    this.rotatedAt ??= await firstRotation({ all: <R>(sql: string, p?: Params) => this.db.all<R>(sql, p) });
    return this.rotatedAt;
  }

  /** Open one row's value: a v1 value only before the store's first rotation. */
  private openRow(secrets: Secrets, owner: string, provider: string, sealed: string, rotatedAt: string | null): string {
    if (rotatedAt && sealedInfo(sealed).version === 'v1') throw new SecretsError(v1Refused(owner, provider, rotatedAt));
    return secrets.open(sealed, byokContext(owner, provider), { v1: !rotatedAt });
  }

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
    if (!rows.length) return {};
    const rotatedAt = await this.firstRotation();
    return Object.fromEntries(rows.map((r) => [r.p, this.openRow(this.secrets(), owner, r.p, r.s, rotatedAt)]));
  }

  /**
   * Re-seal every stored key with `to` (opened with `from`), bound to its row (v1 values become
   * v2), and record the rotation (which retires v1: see the file's head); returns how many. One
   * transaction: a value that does not open (a v1 value written after the first rotation among
   * them) fails the whole rotation, and nothing changes.
   */
  async rotate(from: Secrets, to: Secrets): Promise<number> {
    return this.db.tx(async (q) => {
      const rotatedAt = await firstRotation(q);
      const rows = await q.all<{ o: string; p: string; s: string }>('SELECT owner AS o, provider AS p, secret AS s FROM byok_keys ORDER BY owner, provider');
      let v1 = 0;
      for (const r of rows) {
        if (sealedInfo(r.s).version === 'v1') v1++;
        const context = byokContext(r.o, r.p);
        const plain = this.openRow(from, r.o, r.p, r.s, rotatedAt);
        await q.run('UPDATE byok_keys SET secret = $1 WHERE owner = $2 AND provider = $3', [to.seal(plain, context), r.o, r.p]);
      }
      await q.run(`INSERT INTO secrets_rotations (rotated_at, from_key, to_key, resealed, v1_resealed) VALUES (now() AT TIME ZONE 'UTC', $1, $2, $3, $4)`, [
        from.id,
        to.id,
        rows.length,
        v1,
      ]);
      return rows.length;
    });
  }

  /**
   * What the stored values are and whether `secrets` opens them: counts by key id and version, how
   * many open, and the first reason one does not.
   */
  async audit(
    secrets: Secrets | null,
  ): Promise<{ total: number; opened: number; v1: number; rotatedAt: string | null; byKey: Record<string, number>; problem: string | null }> {
    const rows = await this.db.all<{ o: string; p: string; s: string }>(
      'SELECT owner AS o, provider AS p, secret AS s FROM byok_keys ORDER BY owner, provider',
    );
    const rotatedAt = await this.firstRotation();
    const out = { total: rows.length, opened: 0, v1: 0, rotatedAt, byKey: {} as Record<string, number>, problem: null as string | null };
    for (const r of rows) {
      const info = sealedInfo(r.s);
      out.byKey[info.keyId] = (out.byKey[info.keyId] ?? 0) + 1;
      if (info.version === 'v1') out.v1++;
      try {
        if (!secrets) throw new SecretsError(`no master key to open a secret sealed by master key ${info.keyId}`);
        this.openRow(secrets, r.o, r.p, r.s, rotatedAt);
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
