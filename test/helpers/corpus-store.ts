/** The seeded corpus store shared by tests and benchmarks (built once per content key, cached in the OS temp dir). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusKey } from '../setup/corpus.js';
import { sharedDir } from './paths.js';

export async function seededCorpusStore(log = console.log): Promise<string> {
  const dir = path.join(os.tmpdir(), 'newsflow-test-cache', corpusKey());
  const file = path.join(dir, 'service.duckdb');
  if (fs.existsSync(path.join(dir, 'done'))) return file;
  // one seeder per key (two vitest projects, or two runs, may ask at once): the others wait for it
  const lock = `${dir}.lock`;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (fs.existsSync(path.join(dir, 'done'))) return file;
      const pid = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      let alive = pid > 0;
      try {
        if (pid > 0) process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (!alive && pid > 0) fs.rmSync(lock, { recursive: true, force: true }); // its seeder died
      else await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    if (fs.existsSync(path.join(dir, 'done'))) return file;
    return await seed(dir, file, log);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
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
