/** The seeded corpus store shared by tests and benchmarks (built once per content key, cached in the OS temp dir). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusKey } from '../setup/corpus.js';
import { sharedDir } from './paths.js';
import { buildOnce } from './cache-lock.js';

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
  const t0 = Date.now();
  const services = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent' }));
  const r = await services.news!.seed(path.join(sharedDir, 'data'));
  await services.news!.close();
  await services.db.checkpoint();
  services.db.close();
  fs.writeFileSync(path.join(dir, 'done'), JSON.stringify({ ...r, seconds: (Date.now() - t0) / 1000 }));
  log(`seeded corpus store: ${r.total} articles in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return file;
}
