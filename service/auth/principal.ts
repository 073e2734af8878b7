/** Who is calling: resolved from the bearer key or OAuth token on every request. */
import type { Plan, Scope } from '../../spec/index.js';

export interface Org {
  id: string;
  name: string;
  domains: string[];
  publisher: boolean;
  plan: Plan;
  userId: string;
}

export interface Principal {
  keyId: string;
  keyName: string;
  /** Personal keys act for their own user; organization keys for the organization's service user. */
  userId: string;
  org: Org | null;
  scopes: Scope[];
  plan: Plan;
  legacy: boolean;
  /** Set when the caller authenticated with an OAuth access token. */
  viaOAuth: boolean;
}

/**
 * Who owns what a key makes (BYOK keys, URL indexing jobs and the pages they index): the
 * organization of an organization key, else the key's user.
 */
export const ownerOf = (p: { org: Pick<Org, 'id'> | null; userId: string }) => (p.org ? `org:${p.org.id}` : `user:${p.userId}`);
