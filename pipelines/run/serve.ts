/** The service run from the command line: `newsflow serve` (until a signal) and `newsflow seed` (load a corpus, then exit). */
import { SCOPES } from '../../spec/index.js';
import { openServices, parseRetention, serviceConfig, startService } from '../../service/index.js';
import { progress } from './progress.js';

/** Load a news corpus into the store of the data dir, with a progress bar; the seed's counts. */
export async function seedStore(o: { corpus: string; rebaseDates?: boolean; dataDir?: string }) {
  const services = await openServices(serviceConfig({ dataDir: o.dataDir }));
  try {
    const bar = progress('seed');
    const r = await services.seeder!.seed(o.corpus, { rebaseDates: o.rebaseDates, onProgress: (d, t, ph) => bar.update(d, t, ph) });
    bar.stop();
    return r;
  } finally {
    await services.web?.close();
    await services.news?.close();
    services.db.close();
  }
}

/** Start the service (seeded or replaying when asked) and stop it cleanly on SIGINT/SIGTERM. */
export async function serve(o: {
  port?: number;
  host?: string;
  dataDir?: string;
  limitsText?: string;
  demoKey?: boolean;
  seed?: string;
  rebaseDates?: boolean;
  replay?: number;
  /** how long an article stays searchable: `<n>d` or keep-all (undefined: $NEWSFLOW_RETENTION) */
  retention?: string;
  archive?: boolean;
}) {
  const t0 = Date.now();
  // the news index loads behind the listening service (searches answer 503 until it has)
  const svc = await startService({
    port: o.port,
    host: o.host,
    dataDir: o.dataDir,
    limitsText: o.limitsText,
    background: true,
    // a malformed --retention stops the start in one line (a ServiceConfigError is a UserError)
    retentionDays: o.retention === undefined ? undefined : parseRetention(o.retention, '--retention'),
    archive: o.archive,
  });
  const log = svc.app.log;
  const news = svc.services.news!;
  if (!news.ready) {
    console.log(
      `newsflow service answering on ${svc.url} after ${((Date.now() - t0) / 1000).toFixed(1)} s; loading the news index (GET /v1/news/search answers 503 until it is ready)`,
    );
    void news.loaded.then(
      () => console.log(`newsflow service ready: ${news.index.size} articles indexed, ${((Date.now() - t0) / 1000).toFixed(1)} s after start`),
      (e: unknown) => log.error({ err: e }, 'the news index did not load'),
    );
  }
  if (o.seed) {
    const bar = progress('seed');
    const r = await svc.services.seeder!.seed(o.seed, { rebaseDates: o.rebaseDates, replay: o.replay, onProgress: (d, t, ph) => bar.update(d, t, ph) });
    bar.stop();
    log.info({ ...r, replay: o.replay ?? null }, 'corpus loaded');
  } else if (o.replay) {
    svc.services.seeder!.startReplay(o.replay);
  }
  if (o.demoKey && (await svc.services.keys.listKeys()).length === 0) {
    const org = await svc.services.keys.createOrg({ name: 'demo', domains: ['bbc.co.uk', 'reuters.com', 'apnews.com'], plan: 'enterprise' });
    const { key } = await svc.services.keys.createKey({ name: 'demo', org: org.name, scopes: [...SCOPES] });
    console.log(`\nDemo organization key (shown once, stored hashed):\n\n  export NEWSFLOW_API_KEY=${key}\n  export NEWSFLOW_API_URL=${svc.url}\n`);
  }
  const kept = news.retentionDays === null ? 'keep-all' : `${news.retentionDays}d${news.archiveDir ? ', then archived' : ''}`;
  console.log(
    `newsflow service listening on ${svc.url}  (docs: ${svc.url}/docs, OpenAPI: ${svc.url}/openapi.json, data: ${svc.services.config.dataDir}, retention: ${kept})`,
  );
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await svc.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
