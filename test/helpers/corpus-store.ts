/**
 * The seeded corpus store shared by tests and benchmarks: one service store seeded from the real
 * shared corpus, built on first use (not in a global setup, so a run whose files do not need it
 * never pays for it) and cached in the OS temp dir under a key of everything that shapes it
 * (corpus files, enrichment, store schema and search code), so a second run starts in seconds.
 * Test files copy it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { repoRoot, sharedDir } from './paths.js';
import { buildOnce } from './cache-lock.js';

/** The embedder whose enrichment enriched-corpus.ts computes on every core (service/search/minilm-embedder.ts). */
const MINILM = 'all-MiniLM-L6-v2-int8';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

export function corpusKey(): string {
  const h = crypto.createHash('sha1');
  const data = path.join(sharedDir, 'data', 'news');
  for (const f of filesUnder(data).sort()) h.update(`${path.relative(data, f)}:${fs.statSync(f).size}`);
  for (const dir of [
    'service/enrich',
    'service/corpus',
    'service/text',
    'service/article',
    'service/store',
    'service/search',
    'service/news',
    'service/stories',
  ]) {
    for (const f of filesUnder(path.join(repoRoot, dir)).sort()) {
      // migrations are append-only and the store applies pending ones when a copy is opened,
      // so adding one does not make the seeded store stale
      if (path.relative(repoRoot, f) === path.join('service', 'store', 'migrations.ts')) continue;
      h.update(fs.readFileSync(f));
    }
  }
  return h.digest('hex').slice(0, 16);
}

export async function seededCorpusStore(log = console.log): Promise<string> {
  const dir = path.join(os.tmpdir(), 'newsflow-test-cache', corpusKey());
  const file = path.join(dir, 'service.duckdb');
  if (fs.existsSync(path.join(dir, 'done'))) return file;
  // one seeder per key (two vitest projects, or two runs, may ask at once): the others wait for it
  await buildOnce(dir, () => seed(dir, file, log).then(() => undefined));
  return file;
}

async function seed(dir: string, file: string, log: (m: string) => void): Promise<string> {
  fs.rmSync(dir, { recursive: true, force: true });
  const { serviceConfig } = await import('../../service/config.js');
  const { openServices } = await import('../../service/server.js');
  const { enrichedCorpus } = await import('./enriched-corpus.js');
  const t0 = Date.now();
  const services = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent' }));
  const corpus = path.join(sharedDir, 'data');
  // MiniLM (the service's embedder here) on every core; another embedder: the seed's own way, in one thread
  const model = services.news!.embedder?.model ?? null;
  const cache = model === null || model === MINILM ? await enrichedCorpus(corpus, { model, log }) : undefined;
  const t1 = Date.now();
  let tenth = 0;
  const r = await services.seeder!.seed(corpus, {
    cache,
    onProgress: (done, total, phase) => {
      if (phase !== 'store' || Math.floor((10 * done) / total) <= tenth) return;
      tenth = Math.floor((10 * done) / total);
      log(`seeded corpus store: ${done}/${total} stored in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
    },
  });
  await services.news!.close();
  await services.db.checkpoint();
  services.db.close();
  const seconds = (Date.now() - t0) / 1000;
  fs.writeFileSync(path.join(dir, 'done'), JSON.stringify({ ...r, seconds, enrichSeconds: (t1 - t0) / 1000 }));
  log(
    `seeded corpus store: ${r.total} articles in ${seconds.toFixed(0)} s (enrichment ${((t1 - t0) / 1000).toFixed(0)} s, ${cache?.computed ?? r.enriched} computed)`,
  );
  return file;
}
