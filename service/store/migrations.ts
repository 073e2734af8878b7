/** Schema of the service store, in order. A migration never changes once released. */
export interface Migration {
  version: number;
  name: string;
  sql: string[];
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'organizations, api keys, oauth tokens',
    sql: [
      `CREATE TABLE orgs (
         id VARCHAR PRIMARY KEY,
         name VARCHAR NOT NULL UNIQUE,
         domains VARCHAR[] NOT NULL,
         publisher BOOLEAN NOT NULL,
         plan VARCHAR NOT NULL,
         user_id VARCHAR NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT now())`,
      // key_hash = sha256 of the key; the plaintext is shown once and never stored
      `CREATE TABLE api_keys (
         id VARCHAR PRIMARY KEY,
         name VARCHAR NOT NULL,
         key_hash VARCHAR NOT NULL UNIQUE,
         key_prefix VARCHAR NOT NULL,
         org_id VARCHAR,
         user_id VARCHAR NOT NULL,
         scopes VARCHAR[] NOT NULL,
         plan VARCHAR NOT NULL,
         legacy BOOLEAN NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT now(),
         revoked_at TIMESTAMP)`,
      `CREATE TABLE oauth_tokens (
         token_hash VARCHAR PRIMARY KEY,
         key_id VARCHAR NOT NULL,
         scopes VARCHAR[] NOT NULL,
         expires_at TIMESTAMP NOT NULL)`,
    ],
  },
];
