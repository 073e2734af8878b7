/** Administration of a running service (spec/admin.ts): organizations and API keys, by admin token. */
import type { z } from 'zod';
import fs from 'node:fs';
import type { AdminCreateKeyRequest, AdminCreateOrgRequest, AdminForumLoadRequest, AdminRotateRequest, AdminSimulateHitsRequest } from '../../spec/index.js';
import { ERROR_CODES } from '../../spec/index.js';
import { AdminInputError, type KeyRow } from '../auth/keys.js';
import type { Org } from '../auth/principal.js';
import type { GroupHandlers } from '../context.js';
import { HttpError, notFound } from '../errors/index.js';
import { secretsStatus } from '../byok/status.js';
import { rotateSecrets } from '../byok/rotate.js';
import { SecretsError } from '../auth/secrets.js';
import { DistributionStore } from '../store/distribution.js';

const key = (r: KeyRow) => ({
  id: r.id,
  name: r.name,
  key_prefix: r.key_prefix,
  org_id: r.org_id,
  org_name: r.org_name,
  scopes: r.scopes,
  plan: r.plan,
  legacy: r.legacy,
  created_at: new Date(r.created_at).toISOString(),
  revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
});

const org = (o: Org) => ({ id: o.id, name: o.name, domains: o.domains, publisher: o.publisher, plan: o.plan });

/** The field a refusal of the key store is about. */
const fieldOf = (msg: string) =>
  /^no organization|needs an organization key/.test(msg)
    ? 'org'
    : /already exists|^--name/.test(msg)
      ? 'name'
      : /domain name/.test(msg)
        ? 'domains'
        : /scope/.test(msg)
          ? 'scopes'
          : /plan/.test(msg)
            ? 'plan'
            : 'body';

/** The store's refusals (an unknown organization, a taken name, a malformed domain) are the caller's to fix: 422. */
async function input<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AdminInputError) {
      throw new HttpError(422, ERROR_CODES.validation, [{ loc: ['body', fieldOf(e.message)], msg: e.message.replace(/^--/, ''), type: 'value_error' }]);
    }
    throw e;
  }
}

export const adminHandlers: GroupHandlers = {
  admin_list_orgs: async ({ services }) => ({ orgs: (await services.keys.listOrgs()).map(org) }),
  admin_create_org: async ({ services, body }) => {
    const b = body as z.output<typeof AdminCreateOrgRequest>;
    return org(await input(() => services.keys.createOrg(b)));
  },
  admin_list_keys: async ({ services }) => ({ keys: (await services.keys.listKeys()).map(key) }),
  admin_create_key: async ({ services, body }) => {
    const b = body as z.output<typeof AdminCreateKeyRequest>;
    const r = await input(() =>
      services.keys.createKey({ name: b.name, org: b.org ?? undefined, scopes: b.scopes, plan: b.plan ?? undefined, legacy: b.legacy }),
    );
    return { ...key(r.row), key: r.key };
  },
  admin_secrets_status: async ({ services }) => {
    const c = services.config;
    const s = await secretsStatus(services.db, { dataDir: c.dataDir, secretKey: c.secretKey, keyFile: c.secretKeyFile });
    return {
      current: s.current,
      older: s.older,
      key_file: s.keyFile,
      sealed: { total: s.sealed.total, opened: s.sealed.opened, v1: s.sealed.v1, problem: s.sealed.problem ?? null, rotated_at: s.sealed.rotatedAt ?? null },
    };
  },
  admin_secrets_rotate: async ({ services, body }) => {
    const c = services.config;
    const b = body as z.output<typeof AdminRotateRequest>;
    // the service's key from its environment: a new one takes a restart with the new variable
    if (c.secretKey)
      throw new HttpError(
        409,
        ERROR_CODES.conflict,
        'the running service takes its master key from NEWSFLOW_SECRET_KEY: stop it, set the new key, run newsflow secrets rotate --old-key OLD, then start it again',
      );
    try {
      const r = await rotateSecrets(services.db, { dataDir: c.dataDir, keyFile: c.secretKeyFile, ...(b.old_key ? { oldKey: b.old_key } : {}) });
      services.byok.onRotated?.();
      return { rotated: r.rotated, from: r.from, to: r.to, key_file: r.keyFile, removed: r.removed };
    } catch (e) {
      if (e instanceof SecretsError) throw new HttpError(409, ERROR_CODES.conflict, e.message);
      throw e;
    }
  },
  admin_simulate_hits: async ({ services, body }) => {
    const b = body as z.output<typeof AdminSimulateHitsRequest>;
    try {
      return { ...(await new DistributionStore(services.db).simulate({ months: b.months, seed: b.seed, eventsPerDay: b.events_per_day, now: new Date() })) };
    } catch (e) {
      // a store with no articles to spread hits over
      if (!/^the store holds no articles/.test((e as Error).message)) throw e;
      throw new HttpError(409, ERROR_CODES.conflict, (e as Error).message);
    }
  },
  admin_forum_load: async ({ services, body }) => {
    const b = body as z.output<typeof AdminForumLoadRequest>;
    if (!services.forum) throw new HttpError(409, ERROR_CODES.conflict, 'this service runs without forum threads (its store has no forum)');
    if (!fs.existsSync(b.path))
      throw new HttpError(422, ERROR_CODES.validation, [
        { loc: ['body', 'path'], msg: `${b.path.slice(0, 300)}: no such file or directory on the service's machine`, type: 'value_error' },
      ]);
    return { ...(await services.forum.load(b.path)) };
  },
  admin_revoke_key: async ({ services, params }) => {
    if (!(await services.keys.revokeKey((params as { key_id: string }).key_id))) throw notFound(`no key with id ${(params as { key_id: string }).key_id}`);
  },
};
