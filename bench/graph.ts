/**
 * Graph build latency for 50 articles (goal: p50 < 300 ms): the builder alone (mentions,
 * disambiguation, verb-labelled edges) and the whole GraphService.build (search, full texts,
 * build, store), over 20 queries on the real corpus, one after another on this machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GraphRequest } from '../spec/index.js';
import { serviceConfig } from '../service/config.js';
import { openServices } from '../service/server.js';
import { buildGraph } from '../service/graph/builder.js';
import { graphSearchParams } from '../service/graph/service.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';
import { pct, round } from './stats.js';

const QUERIES = [
  'Ukraine Russia talks',
  'Biden Putin sanctions',
  'NATO troops Europe',
  'China Taiwan',
  'oil prices OPEC',
  'inflation Federal Reserve',
  'Boris Johnson resigns',
  'Elon Musk Twitter',
  'Covid vaccine',
  'climate change summit',
  'Apple iPhone',
  'World Cup football',
  'election results',
  'gas supplies Germany',
  'Israel Iran',
  'India Pakistan',
  'wheat exports',
  'cyber attack',
  'Labour Tories',
  'Brexit deal',
];

export async function benchGraph(): Promise<Record<string, unknown>> {
  const store = await seededCorpusStore();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-'));
  fs.copyFileSync(store, path.join(dir, 'service.duckdb'));
  const services = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent' }));
  const news = services.news!;
  const builder: number[] = [];
  const whole: number[] = [];
  const sizes: number[] = [];
  try {
    for (const [i, query] of QUERIES.entries()) {
      const { p, given } = graphSearchParams({ method: 'kw' }, query, false);
      const found = await news.index.search(p, { now: news.clock(), given, onlyDomains: null });
      const texts = new Map(
        (
          await news.store.byIds(
            found.docs.map((d) => d.articleId),
            true,
          )
        ).map((a) => [a.articleId, a.fullText ?? '']),
      );
      const sources = found.docs.map((a) => ({
        id: a.articleId,
        kind: 'article' as const,
        title: a.title,
        text: [a.summary, ...a.keyPoints, texts.get(a.articleId)!.slice(0, 3000)].join('\n'),
        entities: a.entities,
      }));
      const t0 = performance.now();
      const g = buildGraph(sources, { minClusterProbability: 0.9, geo: false, constraints: [] });
      const t1 = performance.now();
      await services.graph!.build(GraphRequest.parse({ query }), { principal: null, rawFilterParams: { method: 'kw' } });
      const t2 = performance.now();
      if (i >= 3) {
        builder.push(t1 - t0);
        whole.push(t2 - t1);
        sizes.push(sources.length, g.graph.nodes.length);
      }
    }
  } finally {
    await services.news?.close();
    services.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    bench: 'graph',
    articles: 50,
    queries: builder.length,
    goal_p50_ms: 300,
    builder_p50_ms: round(pct(builder, 50), 1),
    builder_p95_ms: round(pct(builder, 95), 1),
    service_build_p50_ms: round(pct(whole, 50), 1),
    service_build_p95_ms: round(pct(whole, 95), 1),
    mean_nodes: round(sizes.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0) / builder.length, 1),
    loadavg_1m: os.loadavg()[0],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchGraph()));
