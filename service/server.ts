/** Start the service: open the store, build the app, listen. */
import path from 'node:path';
import { AdminAuth, publishService } from './admin/token.js';
import type { FastifyInstance } from 'fastify';
import { Db } from './store/db.js';
import { KeyStore } from './auth/keys.js';
import { RateLimiter } from './limits.js';
import { ServiceConfigError, serviceConfig, storeFile, type EmbedSettings, type ServiceConfig } from './config.js';
import { useReaderSettings } from './indexing/reader-pool.js';
import { buildApp, type AppOptions } from './app.js';
import type { Services } from './context.js';
import { NewsService } from './news/service.js';
import { NewsSeeder } from './news/seed.js';
import { StoryService } from './stories/service.js';
import { ModelLayer } from './llm/index.js';
import { countTokens } from './llm/tokens.js';
import { rememberingQueries } from './llm/query-vectors.js';
import { ByokStore } from './byok/store.js';
import { Secrets, SecretsError, dataDirKeyFile, findKeys, parseMasterKey } from './auth/secrets.js';
import { ThreadStore } from './chat/threads.js';
import { GraphService } from './graph/service.js';
import { Charts } from './charts/index.js';
import { indexCounts } from './counts/index-counts.js';
import { ForumService } from './forum/service.js';
import { HttpEmbedder, type Embedder } from './search/embedder.js';
import { LocalEmbedder } from './search/local-embedder.js';
import { MiniLmEmbedder, miniLmPresent } from './search/minilm-embedder.js';
import { ThreadEmbedder } from './search/thread-embedder.js';
import { WebSearchService, webConfig } from './websearch/service.js';
import { WikiService } from './wiki/service.js';

export interface RunningService {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

export async function makeEmbedder(config: ServiceConfig): Promise<Embedder | null> {
  if (config.embeddings === 'none') return null;
  const dir = config.embeddingsModelDir;
  if (config.embeddings === 'local') {
    if (miniLmPresent(dir)) return miniLm(config.embedThreads, dir);
    process.emitWarning(
      'MiniLM model files or onnxruntime-node not found (run scripts/fetch-model.sh and scripts/fetch-onnxruntime.sh); using the npm USE-lite model',
    );
    return LocalEmbedder.load(dir);
  }
  if (config.embeddings === 'use-lite') return LocalEmbedder.load(dir);
  return new HttpEmbedder(config.embeddings, config.embeddingsModel, config.embeddingsKey, { relevantCosine: config.embeddingsRelevantCosine });
}

/**
 * MiniLM in this thread; with NEWSFLOW_EMBED_THREAD=1 in its embedding thread
 * (search/thread-embedder.ts: off the event loop, concurrent queries batched), falling back to
 * this thread when no thread starts. Opt-in until bench/mix.ts shows it a clear win (docs/service.md,
 * "Search": bench/mix-threads.ts measured it level with the service's thread, at 1 or 2 onnxruntime threads).
 */
async function miniLm({ thread, opThreads: threads }: EmbedSettings, modelDir: string | undefined): Promise<Embedder> {
  if (!thread) return inThread(threads ?? 1, modelDir);
  try {
    return await ThreadEmbedder.start({ threads: threads ?? 2, modelDir });
  } catch (e) {
    process.emitWarning(`MiniLM embedding thread: ${(e as Error).message}; embedding in the service's thread`);
    return inThread(threads ?? 1, modelDir);
  }
}

/**
 * MiniLM for the service: one-text calls (queries) in this thread on a session with `queryThreads`
 * intra-op threads, batches (corpus, ingest and backfill embedding) in the embedding thread
 * (search/thread-embedder.ts) with 2. A batch on this thread held the event loop for its whole
 * session run: while a first start embedded the corpus in the background, a `GET /healthz` waited
 * up to 23 s (probed every 0.3 s on 2 cores; the CPU profile's longest busy runs were onnxruntime's
 * `run` and the entity tagger), and a worker's preflight with its 5 s timeout found the API
 * unreachable. A query stays here: on 2 cores under concurrent queries one thread won
 * (bench/mix-threads.ts: x1.4-1.7 req/s over 2 in each of four pairs over two runs). When no
 * embedding thread starts, batches run in this thread too.
 */
export async function inThread(queryThreads: number, modelDir?: string): Promise<Embedder> {
  const batches: Embedder = await ThreadEmbedder.start({ threads: 2, modelDir }).catch((e: Error) => {
    process.emitWarning(`MiniLM embedding thread: ${e.message}; batches embedded in the service's thread`);
    return MiniLmEmbedder.load(modelDir, 2);
  });
  const queries = await MiniLmEmbedder.load(modelDir, queryThreads);
  return {
    model: queries.model,
    dim: queries.dim,
    relevantCosine: queries.relevantCosine,
    queryKey: queries.queryKey,
    embed: (texts) => (texts.length === 1 ? queries : batches).embed(texts),
  };
}

let sharedEmbedder: Promise<Embedder | null> | null = null;
/** One model per process: loading it twice only costs memory. */
function embedderFor(config: ServiceConfig): Promise<Embedder | null> {
  if (config.embeddings !== 'local') return makeEmbedder(config);
  sharedEmbedder ??= makeEmbedder(config);
  return sharedEmbedder;
}

/** Data dirs whose key file beside the data was warned about (once per process). */
const warnedKeyBeside = new Set<string>();

/**
 * BYOK keys and their master key (auth/secrets.ts). At start: a key file in the data dir is warned
 * about once; a store holding values sealed by a key this machine does not have (a data dir
 * restored without its key) stops the start with one line. A new key file is made only when a
 * secret is first sealed.
 */
async function openByok(store: Db, config: ServiceConfig): Promise<ByokStore> {
  const opts = { secretKey: config.secretKey, dataDir: config.dataDir, keyFile: config.secretKeyFile };
  let secrets: Secrets | null;
  try {
    secrets = Secrets.forService({ ...opts, create: false });
    const byok = new ByokStore(store, () => (secrets ??= Secrets.forService(opts)));
    // a rotation through the admin route wrote a new key file: seal and open with it from now on
    byok.onRotated = () => {
      secrets = Secrets.forService({ ...opts, create: false });
    };
    await byok.checkKeys(secrets, config.secretKeyFile);
    const beside = findKeys(opts).find((k) => k.kind === 'data-dir');
    if (beside && !warnedKeyBeside.has(beside.where)) {
      warnedKeyBeside.add(beside.where);
      process.emitWarning(
        `the master key of secrets at rest is in the data dir (${dataDirKeyFile(config.dataDir)}), beside the data it opens: ` +
          `move it out with \`newsflow secrets rotate\` (a new key in ${config.secretKeyFile}), or set NEWSFLOW_SECRET_KEY`,
      );
    }
    return byok;
  } catch (e) {
    if (e instanceof SecretsError) throw new ServiceConfigError(e.message);
    throw e;
  }
}

/**
 * Open the store and every service. `background`: the news index loads after this returns
 * (NewsService.open), `services.news.ready` false until it has (what /readyz reports).
 */
export async function openServices(config: ServiceConfig, db?: Db, opts: { clock?: () => number; background?: boolean } = {}): Promise<Services> {
  // the embedding settings (config.embedThreads, config.queryCache) were checked by serviceConfig, before any model loads
  // a malformed NEWSFLOW_SECRET_KEY is a start-up error, not a 500 on the first BYOK request
  if (config.secretKey) {
    try {
      parseMasterKey(config.secretKey);
    } catch (e) {
      throw new ServiceConfigError(`NEWSFLOW_SECRET_KEY is not a master key: ${(e as Error).message}`);
    }
  }
  useReaderSettings(config.pageReaders);
  const store = db ?? (await Db.open(storeFile(config.dataDir)));
  // before any model or index loads: a data dir restored without its master key stops here, in one line
  const byok = await openByok(store, config).catch((e: unknown) => {
    if (!db) store.close();
    throw e;
  });
  const loaded = await embedderFor(config);
  const embedder = loaded ? rememberingQueries(loaded, config.queryCache) : null;
  countTokens('load the tokenizer now, not on the first chat');
  const news = await NewsService.open(store, {
    embedder,
    clock: opts.clock,
    background: opts.background,
    retentionDays: config.retentionDays,
    archiveDir: config.archive ? path.join(config.dataDir, 'archive', 'news') : null,
  });
  // stories cluster articles as they become searchable (a seed, a replay release, added pages),
  // restored once the index is loaded (behind a listening service with `background`)
  const stories = new StoryService(store, news.index, news.clock);
  news.alsoLoad(() => stories.open());
  news.onIndexed((o) => stories.ingest(o));
  if (!opts.background) await news.loaded;
  const web = await WebSearchService.open(store, news, { config: webConfig(config.webVars, config.fetchPolicy) });
  const wiki = await WikiService.open(store, { embedder });
  const forum = await ForumService.open(store, { embedder, clock: opts.clock });
  return {
    db: store,
    keys: new KeyStore(store),
    limiter: new RateLimiter(config.limits),
    config,
    news,
    seeder: new NewsSeeder(news),
    stories,
    charts: new Charts(news, indexCounts),
    llm: new ModelLayer(config, embedder),
    byok,
    threads: new ThreadStore(store),
    web,
    forum,
    wiki,
    admin: AdminAuth.forDataDir(config.dataDir),
    graph: new GraphService(news, { buildTimeoutMs: config.graphBuildTimeoutMs }),
  };
}

export async function startService(
  opts: Partial<ServiceConfig> & { limitsText?: string; services?: Services; background?: boolean } & AppOptions = {},
): Promise<RunningService> {
  const config = opts.services?.config ?? serviceConfig(opts);
  const services = opts.services ?? (await openServices(config, undefined, { background: opts.background }));
  const app = await buildApp(services, opts);
  // closing: not ready any more, so a balancer sends no new requests while the service drains
  const draining = () => services.readiness?.add('shutdown', () => ({ ready: false, detail: 'the service is shutting down' }));
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('[::1]', '127.0.0.1');
  // without NEWSFLOW_PUBLIC_URL the URLs handed out start with the listen address (port 0 is known only now)
  config.publicUrl ??= url;
  // the `orgs|keys` commands find the running service here (and its admin token beside it)
  const unpublish = publishService(config.dataDir, url);
  let closed = false;
  return {
    app,
    services,
    url,
    async close() {
      if (closed) return;
      closed = true;
      draining();
      unpublish();
      await app.close();
      await services.web?.close();
      await services.news?.close();
      await services.wiki?.close();
      if (!opts.services) services.db.close();
    },
  };
}
