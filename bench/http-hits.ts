/**
 * What recording hit events costs kw search: bench/http.ts's kw load (10 connections) against
 * bench/serve.ts with hit recording on and off (NEWSFLOW_BENCH_HITS=off), in turns, one JSON line
 * each with the 1-minute load average at its start. `node --import tsx bench/http-hits.ts on,off,on,off`
 */
import os from 'node:os';
import { load } from './load.js';
import { serveChild } from './serve.js';
const SECONDS = Number(process.env.NEWSFLOW_BENCH_SECONDS ?? 10);
const order = (process.argv[2] ?? 'on,off,on,off').split(',');
for (const mode of order) {
  const svc = await serveChild({ NEWSFLOW_BENCH_HITS: mode });
  try {
    const queries = svc.titles.map((t) => t.split(/\s+/).slice(0, 5).join(' '));
    let i = 0;
    await load({ url: svc.url, key: svc.key, connections: 10, seconds: 2, next: () => `/v1/news/search?query=warm+up&method=kw&historical=true` });
    const la = os.loadavg()[0]!.toFixed(2);
    const kw = await load({
      url: svc.url,
      key: svc.key,
      connections: 10,
      seconds: SECONDS,
      next: () => `/v1/news/search?${new URLSearchParams({ query: queries[i++ % queries.length]!, method: 'kw', historical: 'true', n_articles: '10' })}`,
    });
    console.log(JSON.stringify({ hits: mode, load_average: Number(la), ...kw }));
  } finally {
    await svc.stop();
  }
}
