/**
 * The service's one public door: what the command line (pipelines/) uses of the service to start,
 * seed and administer it. Nothing outside service/ imports its other files (tests excepted).
 *
 * The light parts (configuration, errors, the store, admin) are exported as they are. The parts
 * that load Fastify, the models, the indexes or the parsers (seconds) are functions that import
 * them when first called, so `newsflow --help` and the commands that never need them stay quick.
 */
import type { Db } from './store/db.js';
import type * as Server from './server.js';
import type { ForumService } from './forum/service.js';
import type { LoadProblem } from './wiki/load.js';
import type { CorpusCache } from './news/corpus-cache.js';

export { ServiceConfigError, serviceConfig, storeFile, parseRetention, type ServiceConfig } from './config.js';
export { Db, StoreLockedError } from './store/db.js';
export { AdminInputError, type CreateKeyInput } from './auth/keys.js';
export { CorpusError } from './corpus/read.js';
export { AdminRefused, withAdmin, type AdminKeyView, type AdminOps, type AdminOrgView, type StoreOps } from './admin/ops.js';
export { loadWikiStore, WikiLoadError } from './wiki/load-store.js';
export type { RunningService } from './server.js';
export type { SeedResult } from './news/seed.js';
export type { Services } from './context.js';
export type { CorpusCache } from './news/corpus-cache.js';

/** Start the HTTP service (stores, models, indexes) on its port. */
export async function startService(...args: Parameters<typeof Server.startService>): ReturnType<typeof Server.startService> {
  return (await import('./server.js')).startService(...args);
}

/** The services of a configuration without the HTTP server (e.g. to seed the store). */
export async function openServices(...args: Parameters<typeof Server.openServices>): ReturnType<typeof Server.openServices> {
  return (await import('./server.js')).openServices(...args);
}

/** The forum store on `db` (forum load). */
export async function openForumStore(db: Db, opts: Parameters<typeof ForumService.open>[1]): Promise<ForumService> {
  return (await import('./forum/service.js')).ForumService.open(db, opts);
}

/** A wiki load's problem as one line (file, page, what). */
export async function describeWikiProblems(problems: LoadProblem[]): Promise<string[]> {
  const { describeProblem } = await import('./wiki/load.js');
  return problems.map(describeProblem);
}

/** Re-seal every stored secret under a new master key (`newsflow secrets rotate`). */
export async function rotateSecrets(
  ...args: Parameters<typeof import('./byok/rotate.js').rotateSecrets>
): ReturnType<typeof import('./byok/rotate.js').rotateSecrets> {
  return (await import('./byok/rotate.js')).rotateSecrets(...args);
}

/** Where the master key of sealed secrets comes from and how many stored values it opens (`newsflow secrets status`). */
export async function secretsStatus(
  ...args: Parameters<typeof import('./byok/status.js').secretsStatus>
): ReturnType<typeof import('./byok/status.js').secretsStatus> {
  return (await import('./byok/status.js')).secretsStatus(...args);
}

/** Write a synthetic hit history into the store (`newsflow simulate hits`). */
export async function simulateHits(db: Db, opts: Parameters<import('./store/distribution.js').DistributionStore['simulate']>[0]) {
  const { DistributionStore } = await import('./store/distribution.js');
  return new DistributionStore(db).simulate(opts);
}

/**
 * What this service puts in its OpenAPI document besides spec/ (buildOpenApi's options): the
 * operations of the interface it does not implement (the document marks them), the webhook hosts
 * it refuses.
 */
export async function openApiOptions(): Promise<{ notImplemented: string[]; refusedHosts: { hosts: string[]; names: string[] } }> {
  return { notImplemented: (await import('./routes/index.js')).NOT_IMPLEMENTED, refusedHosts: (await import('./alerts/webhooks.js')).webhookRefusedHosts() };
}

/** The enriched-corpus cache of `newsflow start` (news/corpus-cache.ts). */
export async function corpusCache(): Promise<CorpusCache> {
  return new (await import('./news/corpus-cache.js')).CorpusCache();
}

/** The store operations of `newsflow secrets` and `simulate` when no service runs on the data dir (withAdmin's third argument). */
export const storeOps: import('./admin/ops.js').StoreOps = (db, dataDir) => ({
  secretsStatus: async (local) => {
    const st = await secretsStatus(db, { dataDir, secretKey: local.secretKey, keyFile: local.keyFile });
    return { ...st, sealed: { ...st.sealed, problem: st.sealed.problem ?? null, rotatedAt: st.sealed.rotatedAt ?? null } };
  },
  rotateSecrets: (local) => rotateSecrets(db, { dataDir, ...local }),
  simulateHits: async (i) => ({ ...(await simulateHits(db, { ...i, now: new Date() })) }),
  forumLoad: async (p) => ({ ...(await (await openForumStore(db, { embedder: null, index: false })).load(p)) }),
});
