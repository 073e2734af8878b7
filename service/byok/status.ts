/**
 * `newsflow secrets status`: where the master key comes from (auth/secrets.ts), which other keys
 * are found, and how many of the stored sealed values they open.
 */
import type { Db } from '../store/db.js';
import { Secrets, findKeys, type KeySource } from '../auth/secrets.js';
import { ByokStore } from './store.js';

export interface SecretsStatus {
  /** the key that seals (null: none yet; the first sealed secret makes `keyFile`) */
  current: Omit<KeySource, 'key'> | null;
  /** other keys found, which only open */
  older: Omit<KeySource, 'key'>[];
  /** where a new key file is made */
  keyFile: string;
  sealed: Awaited<ReturnType<ByokStore['audit']>>;
}

export async function secretsStatus(db: Db, opts: { dataDir: string; secretKey?: string; keyFile: string }): Promise<SecretsStatus> {
  const keyFile = opts.keyFile;
  const keys = findKeys({ ...opts, keyFile });
  const secrets = keys.length
    ? new Secrets(
        keys[0]!.key,
        keys.slice(1).map((k) => k.key),
      )
    : null;
  const bare = (k: KeySource): Omit<KeySource, 'key'> => ({ id: k.id, kind: k.kind, where: k.where });
  return {
    current: keys[0] ? bare(keys[0]) : null,
    older: keys.slice(1).map(bare),
    keyFile,
    sealed: await new ByokStore(db, () => secrets!).audit(secrets),
  };
}
