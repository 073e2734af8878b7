/** Key resolution per request: principal cache hit vs a store lookup, measured in one run. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Db } from '../service/store/db.js';
import { KeyStore } from '../service/auth/keys.js';

export async function benchAuth(): Promise<Record<string, number | string>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-'));
  const db = await Db.open(path.join(dir, 'service.duckdb'));
  const keys = new KeyStore(db);
  await keys.createOrg({ name: 'acme', domains: ['acme.com'] });
  const created: { key: string }[] = [];
  for (let i = 0; i < 50; i++) created.push(await keys.createKey({ name: `k${i}`, org: 'acme', scopes: ['news'] }));
  const n = 2000;
  const time = async (fn: (i: number) => Promise<unknown>) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    return (performance.now() - t0) / n;
  };
  await time((i) => keys.resolve(created[i % 50]!.key)); // warm up
  const cached = await time((i) => keys.resolve(created[i % 50]!.key));
  const uncached = await time((i) => {
    (keys as unknown as { cache: Map<string, unknown> }).cache.clear();
    return keys.resolve(created[i % 50]!.key);
  });
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'auth: resolve a bearer key',
    requests: n,
    cached_us: Math.round(cached * 1000),
    store_lookup_us: Math.round(uncached * 1000),
    ratio_store_over_cached: Number((uncached / cached).toFixed(1)),
  };
}
