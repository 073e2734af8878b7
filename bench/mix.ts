/**
 * nl under concurrency: 20 clients mixing kw search, nl search and article lookups (a third
 * each) through the real server, three ways in one run: query embedding in the service's thread
 * without a query cache (before), the same with the query cache (the service's default), in the
 * embedding thread with concurrent queries batched, and that plus the query cache. Queries follow a Zipf law over 500 corpus headlines (a few queries
 * often, most rarely, as in search logs); `distinct_nl` is how many the cache could not have
 * held. Goal: >= 200 req/s with p95 < 250 ms.
 */
import os from 'node:os';
import { load, type LoadResult } from './load.js';
import { serveChild } from './serve.js';
import { mulberry32, zipfSampler } from '../lib/random.js';

const SECONDS = Number(process.env.NEWSFLOW_BENCH_SECONDS ?? 10);

/** The same request sequence for every configuration. */
function sequence(queries: string[], ids: string[], n = 200_000): string[] {
  const r = mulberry32(17);
  const zipf = zipfSampler(queries, r);
  return Array.from({ length: n }, (_, i) => {
    const kind = i % 3;
    if (kind === 2) return `/v1/news/${ids[Math.floor(r() * ids.length)]}`;
    return `/v1/news/search?${new URLSearchParams({ query: zipf(), method: kind === 0 ? 'kw' : 'nl', historical: 'true', n_articles: '10' })}`;
  });
}

export async function runMix(env: Record<string, string>): Promise<LoadResult & { distinct_nl: number; nl_requests: number }> {
  const svc = await serveChild(env);
  try {
    const queries = svc.titles.map((t) => t.split(/\s+/).slice(0, 5).join(' '));
    const seq = sequence(queries, svc.ids);
    await load({
      url: svc.url,
      key: svc.key,
      connections: 20,
      seconds: 2,
      next: () => `/v1/news/search?query=warm+up+${Math.random()}&method=nl&historical=true`,
    });
    let i = 0;
    const r = await load({ url: svc.url, key: svc.key, connections: 20, seconds: SECONDS, next: () => seq[i++ % seq.length]! });
    const nl = seq.slice(0, i).filter((p) => p.includes('method=nl'));
    return { ...r, nl_requests: nl.length, distinct_nl: new Set(nl).size };
  } finally {
    await svc.stop();
  }
}

export async function benchMix(): Promise<Record<string, unknown>> {
  const loadavg = os.loadavg()[0]!;
  const before = await runMix({ NEWSFLOW_EMBED_THREAD: '0', NEWSFLOW_QUERY_CACHE: '0' });
  const defaults = await runMix({ NEWSFLOW_EMBED_THREAD: '0' });
  const batched = await runMix({ NEWSFLOW_EMBED_THREAD: '1', NEWSFLOW_QUERY_CACHE: '0' });
  const cached = await runMix({ NEWSFLOW_EMBED_THREAD: '1' });
  return {
    bench: 'kw + nl + article lookups, 20 connections through the real server (ms)',
    seconds: SECONDS,
    in_thread_no_cache: before,
    in_thread_cached_the_default: defaults,
    embedding_thread_batched_no_cache: batched,
    embedding_thread_batched_cached: cached,
    ratio_rps_batched_over_before: Number((batched.rps / before.rps).toFixed(2)),
    ratio_rps_cached_over_before: Number((cached.rps / before.rps).toFixed(2)),
    goal: '>= 200 req/s, p95 < 250 ms',
    goal_met: cached.rps >= 200 && cached.p95 < 250,
    goal_met_by_the_default: defaults.rps >= 200 && defaults.p95 < 250,
    load_average: Number(loadavg.toFixed(2)),
    load_average_after: Number(os.loadavg()[0]!.toFixed(2)),
    cpus: os.cpus().length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchMix()));
