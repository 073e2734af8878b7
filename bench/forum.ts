/**
 * Forum search latency (p50/p95) on the 135 shared threads, store level (the ForumService search
 * that both routes and the DeepNews/forecast capability call; query embedding included for nl,
 * for kw and nl with every sort; nl reported cold (the query embedded for the first time) and
 * cached (the embedder's query cache, as a repeated query in service use). Queries: the first three words of every thread's title. Goal: p50 < 10 ms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceConfig } from '../service/config.js';
import { openServices } from '../service/server.js';
import { forumStoreFile } from '../test/helpers/forum.js';
import { p50p95 } from './stats.js';

export async function benchForum(): Promise<Record<string, unknown>> {
  const loadBefore = Number(os.loadavg()[0]!.toFixed(2));
  const store = await forumStoreFile();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-'));
  fs.copyFileSync(store, path.join(dir, 'service.duckdb'));
  const services = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent' }));
  const forum = services.forum!;
  const queries = forum.all().map((t) => t.title.split(/\s+/).slice(0, 3).join(' '));
  const out: Record<string, { p50: number; p95: number }> = {};
  const stat = (times: number[]) => p50p95(times, 3);
  // kw: every query with every sort; nl: first with sort=relevance (each query embedded for the
  // first time: nl_cold), then the other sorts (its vector from the embedder's query cache: nl_cached)
  for (const method of ['kw', 'nl'] as const) {
    const cold: number[] = [];
    const warm: number[] = [];
    for (const sort of ['relevance', 'top', 'new', 'hot', 'comments'] as const) {
      for (const [i, q] of queries.entries()) {
        const t0 = performance.now();
        await forum.search({ keywords: [q], n_threads: 5, method, time_filter: 'all', sort });
        if (i < 5 && sort === 'relevance') continue; // warm-up
        (method === 'nl' && sort === 'relevance' ? cold : warm).push(performance.now() - t0);
      }
    }
    if (method === 'kw') out.kw = stat(warm);
    else {
      out.nl_cold = stat(cold);
      out.nl_cached = stat(warm);
    }
  }
  const threads = forum.size;
  await services.news?.close();
  services.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'forum search latency (ms, store level, n_threads=5, time_filter=all, 5 sorts)',
    threads,
    queries: queries.length * 5,
    ...out,
    goal_p50_ms: 10,
    met: { kw: out.kw!.p50 < 10, nl_cold: out.nl_cold!.p50 < 10, nl_cached: out.nl_cached!.p50 < 10 },
    load_avg_1m: { before: loadBefore, after: Number(os.loadavg()[0]!.toFixed(2)) },
  };
}
