/**
 * Search latency (p50/p95) of kw, nl and both on the real corpus (~12k articles) and on a 100k
 * corpus made of the real one replicated with perturbed titles (a word dropped and the rest
 * shuffled, embeddings jittered), plus the recall@10 of the IVF index against an exact scan.
 * Engine-level timings (query embedding included), measured in one run on this machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SearchParams } from '../spec/index.js';
import { serviceConfig } from '../service/config.js';
import { openServices } from '../service/server.js';
import { NewsIndex } from '../service/search/engine.js';
import { terms } from '../service/text/tokenize.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';
import { stableUuid } from '../service/corpus/read.js';
import { mulberry32 as rng } from '../lib/random.js';
import { p50p95 } from './stats.js';

async function timeMethods(index: NewsIndex, queries: string[]): Promise<Record<string, { p50: number; p95: number }>> {
  const out: Record<string, { p50: number; p95: number }> = {};
  for (const method of ['kw', 'nl', 'both'] as const) {
    const times: number[] = [];
    for (const [i, q] of queries.entries()) {
      const p = SearchParams.parse({ query: q, method, historical: true, n_articles: 10, similarity_score_threshold: 0.3 });
      const t0 = performance.now();
      await index.search(p, { now: Date.now(), given: new Set(), onlyDomains: null });
      if (i >= 5) times.push(performance.now() - t0); // first few warm up
    }
    out[method] = p50p95(times, 2);
  }
  return out;
}

export async function benchSearch(): Promise<Record<string, unknown>> {
  const store = await seededCorpusStore();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-'));
  fs.copyFileSync(store, path.join(dir, 'service.duckdb'));
  const services = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent' }));
  const base = services.news!.index;
  const r = rng(7);
  const relevanceFile = new URL('../test/fixtures/relevance.json', import.meta.url);
  const judged = fs.existsSync(relevanceFile) ? (JSON.parse(fs.readFileSync(relevanceFile, 'utf8')) as { query: string }[]).map((x) => x.query) : [];
  const fromTitles = Array.from({ length: 80 }, () => base.views[Math.floor(r() * base.size)]!.a.title.split(/\s+/).slice(0, 5).join(' '));
  const queries = [...judged, ...fromTitles].slice(0, 105);

  const small = await timeMethods(base, queries);

  // 100k: replicate with perturbed titles and jittered embeddings
  const big = new NewsIndex(services.news!.embedder);
  const postings = await services.news!.store.postings();
  const target = 100_000;
  for (let copy = 0; big.size < target; copy++) {
    for (const v of base.views) {
      if (big.size >= target) break;
      const a = v.a;
      let title = a.title;
      if (copy > 0) {
        const ws = title.split(/\s+/);
        ws.splice(Math.floor(r() * ws.length), 1);
        for (let i = ws.length - 1; i > 0; i--) {
          const j = Math.floor(r() * (i + 1));
          [ws[i], ws[j]] = [ws[j]!, ws[i]!];
        }
        title = ws.join(' ');
      }
      const id = copy === 0 ? a.articleId : stableUuid(`bench:${copy}:${a.articleId}`);
      const vec = base.vectors!.vector(base.views.indexOf(v)).slice();
      if (copy > 0) for (let k = 0; k < vec.length; k++) vec[k]! += (r() - 0.5) * 0.04;
      const t = a.fullText || a.source === 'bbc-2004-2005' ? (postings.get(a.articleId) ?? []) : terms(`${title}\n${title}`);
      big.add({ ...a, articleId: id, title, engTitle: title }, t, vec, null);
    }
  }
  big.vectors!.train();
  const large = await timeMethods(big, queries);

  // IVF recall@10 against an exact scan on 100k
  let hit = 0;
  let total = 0;
  for (const q of queries.slice(0, 40)) {
    const v = (await big.embedQuery(q))!;
    const approx = big.vectors!.search(v, { candidates: null, threshold: -1 });
    const exact = big.vectors!.search(v, { candidates: null, threshold: -1, exact: true });
    const top = (x: { docs: Int32Array; scores: Float64Array }) =>
      new Set(
        Array.from(x.docs)
          .map((d, i) => [d, x.scores[i]!] as const)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10)
          .map(([d]) => d),
      );
    const e = top(exact);
    const a = top(approx);
    for (const d of e) if (a.has(d)) hit++;
    total += e.size;
  }
  await services.news!.close();
  services.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'search latency (ms, engine level, n_articles=10, historical)',
    queries: queries.length,
    corpus_docs: base.size,
    corpus: small,
    scaled_docs: big.size,
    scaled: large,
    ivf_recall_at_10: Number((hit / total).toFixed(3)),
    ratio_nl_over_kw_scaled_p50: Number((large.nl!.p50 / large.kw!.p50).toFixed(1)),
  };
}
