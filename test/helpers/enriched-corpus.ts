/**
 * The enriched corpus of the seeded corpus store (corpus-store.ts), computed on every core: the
 * corpus is cut into the groups NewsService.seed embeds together (its chunks of 1000 articles, cut
 * into the 256 texts embedAll gives MiniLM at once), and threads (enrich-worker.mjs, one MiniLM
 * each) enrich and embed the groups, so the vectors are those of a seed in one thread. The result
 * is the service's own enriched-corpus cache (service/news/corpus-cache.ts), kept in the test
 * cache dir: the seed then only writes the store, and a store rebuilt after a change to the
 * store, search or stories code (corpus-store.ts's key) does not enrich or embed again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { readCorpus } from '../../service/corpus/read.js';
import { CorpusCache } from '../../service/news/corpus-cache.js';
import type { LoadedArticle } from '../../service/article/model.js';
import type { EnrichmentCache } from '../../service/news/seed.js';
import { repoRoot } from './paths.js';

/** NewsSeeder.seed's defaults: chunks of `batchSize` articles (service/news/seed.ts), embedded `EMBED_STEP` texts at a time (service/news/service.ts). */
const SEED_CHUNK = 1000;
const EMBED_STEP = 256;

/** [from, to) of each group, in corpus order. */
export function seedGroups(n: number): [number, number][] {
  const out: [number, number][] = [];
  for (let c = 0; c < n; c += SEED_CHUNK) {
    const end = Math.min(n, c + SEED_CHUNK);
    for (let g = c; g < end; g += EMBED_STEP) out.push([g, Math.min(end, g + EMBED_STEP)]);
  }
  return out;
}

/** The folder of the cache: the code that computes an entry beyond what CorpusCache's own key covers (the embedder, this helper). */
function cacheFolder(): string {
  const h = crypto.createHash('sha1');
  for (const f of ['service/search/minilm-embedder.ts', 'test/helpers/enrich-worker.mjs', 'test/helpers/enriched-corpus.ts'])
    h.update(f).update(fs.readFileSync(path.join(repoRoot, f)));
  return path.join(os.tmpdir(), 'newsflow-test-cache', `enriched-${h.digest('hex').slice(0, 16)}`);
}

/**
 * The enriched-corpus cache of `corpusPath` for `model` (the service's embedder; null: no
 * embeddings), complete: what it lacks is computed first, on `threads` threads.
 */
export async function enrichedCorpus(
  corpusPath: string,
  opts: { model: string | null; threads?: number; log?: (m: string) => void },
): Promise<EnrichmentCache & { computed: number }> {
  const log = opts.log ?? console.log;
  const raws = readCorpus(corpusPath);
  const cache = new CorpusCache(cacheFolder());
  await cache.open(raws, opts.model);
  const groups = seedGroups(raws.length).filter(([from, to]) => raws.slice(from, to).some((r) => !cache.get(r)));
  let computed = 0;
  if (groups.length) {
    const t0 = Date.now();
    const cores = os.availableParallelism();
    const threads = Math.max(1, Math.min(opts.threads ?? cores, groups.length));
    const opThreads = Math.max(1, Math.floor(cores / threads));
    const todo = groups.map((g, i) => ({ group: i, from: g[0], to: g[1] }));
    const total = groups.reduce((n, [from, to]) => n + to - from, 0);
    log(`enriched corpus: ${total} articles to enrich${opts.model ? ` and embed (${opts.model})` : ''} on ${threads} thread(s)`);
    let step = 0;
    const one = () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(new URL('./enrich-worker.mjs', import.meta.url), { workerData: { corpusPath, embed: opts.model !== null, opThreads } });
        let finished = false;
        const next = () => {
          const job = todo.shift();
          if (job) return w.postMessage(job);
          finished = true;
          void w.terminate().then(() => resolve());
        };
        w.on('message', (m: { ready?: true; group?: number; loaded?: LoadedArticle[]; error?: string }) => {
          if (m.error) {
            void w.terminate();
            reject(new Error(`enrich thread: ${m.error}`));
            return;
          }
          if (m.loaded) {
            cache.put(m.loaded);
            computed += m.loaded.length;
            const tenth = Math.floor((10 * computed) / total);
            if (tenth > step) {
              step = tenth;
              log(`enriched corpus: ${computed}/${total} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
            }
          }
          next();
        });
        w.once('error', reject);
        w.once('exit', (code) => finished || reject(new Error(`enrich thread exited ${code} before its work was done`)));
      });
    await Promise.all(Array.from({ length: threads }, one));
    await cache.save();
    log(`enriched corpus: ${computed} articles in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  return {
    computed,
    // opened above, with the corpus the seed reads
    open: async () => undefined,
    get: (r) => cache.get(r),
    put: (loaded) => cache.put(loaded),
    save: () => cache.save(),
  };
}
