/**
 * `newsflow start`, the main job: the service (corpus in replay), a Temporal dev server, the
 * worker, the schedules, each pipeline triggered once; or only the pipelines, against
 * NEWSFLOW_API_URL/KEY when both are set.
 */
import path from 'node:path';
import { SCOPES } from '../spec/index.js';
import { serviceConfig } from '../service/config.js';
import type { startService } from '../service/server.js';
import { progress } from './progress.js';
import { startWorker, temporalClient, temporalEndpoint, warehouseDir } from './runtime.js';
import { SCHEDULES, applySchedules } from './schedules.js';
import { preflight, scheduledNeeds } from './preflight.js';
import { atShutdown, stopOnSignals } from './shutdown.js';
export { remoteApi } from './preflight.js';

/** `corpus` is needed unless remoteApi(). */
export async function mainJob(o: { port?: number; dataDir?: string; corpus?: string; replay: number; verbose?: boolean }) {
  const dataDir = serviceConfig({ dataDir: o.dataDir }).dataDir;
  stopOnSignals();
  let apiUrl = process.env.NEWSFLOW_API_URL;
  let apiKey = process.env.NEWSFLOW_API_KEY;
  let svc: Awaited<ReturnType<typeof startService>> | null = null;
  if (!(apiUrl && apiKey)) {
    if (!o.corpus) throw new Error('mainJob: a corpus is needed without NEWSFLOW_API_URL and NEWSFLOW_API_KEY');
    // the service (models, stores) is loaded only when we run it ourselves
    svc = await (await import('../service/server.js')).startService({ port: o.port, dataDir });
    const service = svc;
    atShutdown(() => service.close());
    const keys = svc.services.keys;
    if ((await keys.listKeys()).length === 0) {
      const org = await keys.createOrg({ name: 'demo', domains: ['reuters.com', 'theguardian.com', 'bbc.co.uk'], plan: 'enterprise' });
      const demo = await keys.createKey({ name: 'demo', org: org.name, scopes: [...SCOPES] });
      console.log(`\nDemo organization key (shown once, stored hashed):\n  export NEWSFLOW_API_KEY=${demo.key}\n  export NEWSFLOW_API_URL=${svc.url}\n`);
    }
    // the worker's own key, rotated on every start
    for (const k of await keys.listKeys()) if (k.name === 'newsflow-worker' && !k.revoked_at) await keys.revokeKey(k.id);
    const demoOrg = (await keys.listOrgs())[0];
    apiKey = (await keys.createKey({ name: 'newsflow-worker', org: demoOrg?.name, scopes: [...SCOPES], plan: 'enterprise' })).key;
    apiUrl = svc.url;
    const bar = progress('seed');
    const r = await svc.services.news!.seed(o.corpus, { rebaseDates: true, replay: o.replay, onProgress: (d, t, ph) => bar.update(d, t, ph) });
    bar.stop();
    console.log(`service ${svc.url}: ${r.total} articles, replaying at ${o.replay}x (articles arrive with crawl_date = now)`);
  }
  // every scheduled pipeline must be able to run with this key (our own service: a check of the wiring)
  await preflight(scheduledNeeds(SCHEDULES), { apiUrl, apiKey }).catch(async (e) => {
    await svc?.close();
    throw e;
  });
  const endpoint = await temporalEndpoint({ dataDir, log: (m) => console.error(m) });
  atShutdown(() => endpoint.stop());
  const worker = await startWorker({ endpoint, dataDir, apiUrl, apiKey, verbose: o.verbose });
  atShutdown(() => worker.stop());
  const client = await temporalClient(endpoint);
  const applied = await applySchedules(client);
  for (const d of SCHEDULES) await client.schedule.getHandle(d.id).trigger();
  const wh = path.join(warehouseDir(dataDir), 'warehouse.duckdb');
  console.log(`schedules: ${JSON.stringify(applied)}; each triggered once
Temporal UI: ${endpoint.uiUrl ?? `(external server ${endpoint.address})`}
Temporal:    ${endpoint.address}
Warehouse:   ${wh}
Try:
  npx newsflow sql "SELECT domain_url, count(*) AS articles FROM articles GROUP BY 1 ORDER BY 2 DESC LIMIT 10"
  npx newsflow sql "SELECT category, count(*) FROM article_classifications GROUP BY 1 ORDER BY 2 DESC"
  npx newsflow sql "SELECT load_id, rows_received, rows_inserted, finished_at FROM _loads ORDER BY started_at DESC LIMIT 5"
Ctrl-C stops everything.`);
  await worker.running;
}
