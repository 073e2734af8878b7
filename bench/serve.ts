/**
 * The service under load for bench/http.ts and bench/mix.ts, in a process of its own (the load
 * generator must not share its event loop): a copy of the seeded corpus store, real HTTP on a
 * loopback port, limits out of the way, an enterprise key. Prints one JSON line {url, key, ids}
 * and serves until its stdin closes. NEWSFLOW_BENCH_STORE: serve a copy of that store instead. The environment chooses the embedding path
 * (NEWSFLOW_EMBED_THREAD=1: in a worker thread, default the service's thread; NEWSFLOW_QUERY_CACHE=0: no query cache).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { SCOPES } from '../spec/index.js';
import { serviceConfig } from '../service/config.js';
import { openServices, startService } from '../service/server.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';

export interface Served {
  url: string;
  key: string;
  ids: string[];
  titles: string[];
  stop(): Promise<void>;
}

/** Start bench/serve.ts as a child with `env` added to this environment. */
export async function serveChild(env: Record<string, string> = {}): Promise<Served> {
  if (!process.env.NEWSFLOW_BENCH_STORE) await seededCorpusStore(() => undefined); // build it here once, not in each child
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./serve.ts', import.meta.url).pathname], {
    env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench/serve.ts exited (${code}) before serving`)));
  });
  const info = JSON.parse(line) as Omit<Served, 'stop'>;
  return {
    ...info,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-serve-'));
  fs.copyFileSync(process.env.NEWSFLOW_BENCH_STORE || (await seededCorpusStore(() => undefined)), path.join(dir, 'service.duckdb'));
  const config = serviceConfig({
    dataDir: dir,
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    limitsText: 'news=1000000:1000000:1000,stories=1000000:1000000:1000',
  });
  const services = await openServices(config);
  await services.keys.createOrg({ name: 'bench', domains: ['bench.example'] });
  const { key } = await services.keys.createKey({ name: 'bench', org: 'bench', scopes: [...SCOPES], plan: 'enterprise' });
  // NEWSFLOW_BENCH_HITS=off: hit events are not recorded (to measure what recording them costs)
  if (process.env.NEWSFLOW_BENCH_HITS === 'off') services.news!.hits.record = () => undefined;
  const svc = await startService({ services, logger: false });
  const views = services.news!.index.views;
  const pick = Array.from({ length: 500 }, (_, i) => views[Math.floor((i * 7919) % views.length)]!.a);
  console.log(JSON.stringify({ url: svc.url, key, ids: pick.map((a) => a.articleId), titles: pick.map((a) => a.title) }));
  const stop = async () => {
    await svc.close();
    await services.news?.close();
    services.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
