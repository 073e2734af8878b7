/**
 * Wiki search latency (p50/p95) over the four shared Wikipedia pages, embedded with the service's
 * model: nl and hybrid, with the query embedding (distinct questions: a section heading of each
 * article asked as a question) and without it (the vector given), n_documents 5, neighbor_chunks 1;
 * the query embedding alone is timed too.
 * Goal: p50 < 20 ms. One JSON line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Db } from '../service/store/db.js';
import { serviceConfig } from '../service/config.js';
import { makeEmbedder } from '../service/server.js';
import { WikiService } from '../service/wiki/service.js';
import { wikiParams } from '../service/wiki/search.js';
import { p50p95 } from './stats.js';

const stats = (xs: number[]) => p50p95(xs, 2);

export async function benchWiki(): Promise<Record<string, unknown>> {
  const shared = process.env.NEWSFLOW_SHARED_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared');
  const pages = path.join(shared, 'data', 'html', 'readability');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-wiki-'));
  const db = await Db.open(path.join(dir, 'service.duckdb'));
  try {
    const embedder = await makeEmbedder(serviceConfig({ dataDir: dir }));
    const wiki = await WikiService.open(db, { embedder });
    const t0 = performance.now();
    const loaded = await wiki.load(pages);
    const loadMs = performance.now() - t0;
    const sections = await db.all<{ title: string; section: string }>(
      "SELECT DISTINCT a.title, c.section FROM wiki_chunks c JOIN wiki_articles a USING (url) WHERE c.section <> '' ORDER BY 1, 2",
    );
    const queries = sections.map((s) => `What does the ${s.title} article say about ${s.section.split(' > ').pop()}?`);
    const out: Record<string, { p50: number; p95: number }> = {};
    for (const hybrid of [false, true]) {
      const withEmbedding: number[] = [];
      const engineOnly: number[] = [];
      const embedOnly: number[] = [];
      for (const [i, q] of queries.entries()) {
        const a = performance.now();
        await wiki.search({ query: q, hybrid_search: hybrid });
        if (i >= 3) withEmbedding.push(performance.now() - a);
        const e = performance.now();
        const [v] = embedder ? await embedder.embed([q]) : [null];
        if (i >= 3) embedOnly.push(performance.now() - e);
        const b = performance.now();
        wiki.index.search(wikiParams({ query: q, hybrid_search: hybrid }), v ?? null);
        if (i >= 3) engineOnly.push(performance.now() - b);
      }
      out[hybrid ? 'hybrid' : 'nl'] = stats(withEmbedding);
      out[hybrid ? 'hybrid_engine_only' : 'nl_engine_only'] = stats(engineOnly);
      if (!hybrid) out.query_embedding_only = stats(embedOnly);
    }
    return {
      bench: 'wiki',
      articles: loaded.loaded,
      chunks: wiki.index.chunkCount,
      queries: queries.length,
      model: embedder?.model ?? null,
      load_ms: Math.round(loadMs),
      ...out,
      goal_p50_ms: 20,
    };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchWiki()));
