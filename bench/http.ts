/**
 * kw and nl search through the real server (bench/serve.ts, its own process, loopback HTTP)
 * under autocannon with 10 connections: req/s, p50, p99. Queries are the first five words of
 * 500 corpus headlines, in turn (nl: the first round embeds each query, later rounds hit the
 * query cache; the `embedded` figure says how many requests could hit it). Goal on 2 cores:
 * kw >= 500 req/s with p99 < 50 ms.
 */
import os from 'node:os';
import { load } from './load.js';
import { serveChild } from './serve.js';

const SECONDS = Number(process.env.NEWSFLOW_BENCH_SECONDS ?? 10);

export async function benchHttp(): Promise<Record<string, unknown>> {
  const svc = await serveChild();
  try {
    const queries = svc.titles.map((t) => t.split(/\s+/).slice(0, 5).join(' '));
    const path = (method: string) => {
      let i = 0;
      return () => `/v1/news/search?${new URLSearchParams({ query: queries[i++ % queries.length]!, method, historical: 'true', n_articles: '10' })}`;
    };
    await load({ url: svc.url, key: svc.key, connections: 10, seconds: 2, next: () => `/v1/news/search?query=warm+up&method=kw&historical=true` });
    const loadavg = os.loadavg()[0]!;
    const kw = await load({ url: svc.url, key: svc.key, connections: 10, seconds: SECONDS, next: path('kw') });
    const nl = await load({ url: svc.url, key: svc.key, connections: 10, seconds: SECONDS, next: path('nl') });
    return {
      bench: 'HTTP search through the real server (autocannon, 10 connections, loopback; ms)',
      seconds: SECONDS,
      distinct_queries: queries.length,
      kw,
      nl: { ...nl, embedded: Math.min(nl.requests, queries.length) },
      goal: 'kw >= 500 req/s, p99 < 50 ms',
      kw_goal_met: kw.rps >= 500 && kw.p99 < 50,
      load_average: Number(loadavg.toFixed(2)),
      cpus: os.cpus().length,
    };
  } finally {
    await svc.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchHttp()));
