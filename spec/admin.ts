/**
 * Administration of a running service (an extension of newsflow, not of the interface): the
 * `newsflow orgs|keys` commands reach the store through these routes while `newsflow serve` holds
 * it. Authorized by the admin token kept in the data dir (`admin.token`, mode 0600), never by an
 * API key: an ordinary key is 403, a wrong token 401.
 */
import { z } from 'zod';
import { DateTime, record } from './common.js';
import { PLANS, SCOPES } from './enums.js';

export const AdminOrg = record({
  id: z.string(),
  name: z.string(),
  domains: z.array(z.string()),
  publisher: z.boolean(),
  plan: z.enum(PLANS),
});
export const AdminOrgsResponse = record({ orgs: z.array(AdminOrg) });
export const AdminCreateOrgRequest = z.strictObject({
  name: z.string().trim().min(1).max(200),
  domains: z.array(z.string().min(1).max(253)).max(1000).default([]),
  publisher: z.boolean().default(false),
  plan: z.enum(PLANS).default('enterprise'),
});

export const AdminKey = record({
  id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  org_id: z.string().nullable(),
  org_name: z.string().nullable(),
  scopes: z.array(z.string()),
  plan: z.string(),
  legacy: z.boolean(),
  created_at: DateTime,
  revoked_at: DateTime.nullable(),
});
export const AdminKeysResponse = record({ keys: z.array(AdminKey) });
export const AdminCreateKeyRequest = z.strictObject({
  name: z.string().trim().min(1).max(200),
  /** organization name or id; absent or null: a personal key */
  org: z.string().min(1).max(200).nullable().optional(),
  scopes: z.array(z.enum(SCOPES)).min(1),
  plan: z.enum(PLANS).nullable().optional(),
  legacy: z.boolean().default(false),
});
/** The key itself is in this answer only: the store keeps its hash. */
export const AdminCreatedKey = AdminKey.extend({ key: z.string() });
export const AdminKeyPath = z.object({ key_id: z.string().min(1).max(100) });

/** Where a key came from: the variable, a key file, or the data dir (never the key itself). */
export const AdminKeySource = record({ id: z.string(), kind: z.string(), where: z.string() });
/** `newsflow secrets status` of a running service: the keys it has, and how many stored sealed values they open. */
export const AdminSecretsStatus = record({
  current: AdminKeySource.nullable(),
  older: z.array(AdminKeySource),
  key_file: z.string(),
  sealed: record({
    total: z.number().int(),
    opened: z.number().int(),
    v1: z.number().int(),
    problem: z.string().nullable(),
    /** the store's first rotation (after it, v1 values are refused) */
    rotated_at: z.string().nullable(),
  }),
});
export const AdminRotateRequest = z.strictObject({
  /** the previous master key (64 hex characters or base64), when NEWSFLOW_SECRET_KEY changed */
  old_key: z.string().min(1).max(200).nullable().optional(),
});
export const AdminRotated = record({
  rotated: z.number().int(),
  from: z.string(),
  to: z.string(),
  key_file: z.string().nullable(),
  removed: z.array(z.string()),
});
export const AdminSimulateHitsRequest = z.strictObject({
  months: z.number().int().min(1).max(120).default(6),
  seed: z.number().int().default(1),
  events_per_day: z.number().int().min(1).max(1_000_000).default(2000),
});
export const AdminSimulated = z.looseObject({});
export const AdminForumLoadRequest = z.strictObject({
  /** a file or folder on the service's machine (Pushshift NDJSON, .zst, or the shared reddit-post-comment folder) */
  path: z.string().min(1).max(4096),
});
export const AdminForumLoaded = z.looseObject({});
