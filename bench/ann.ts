/**
 * Issue 35's ANN comparison, measured before choosing: nl search's top 10 over n vectors by
 * - the exact scan (the truth, and its latency),
 * - today's index (service/search/vectors.ts: IVF lists, WebAssembly dots; nprobe 24),
 * - usearch (HNSW, a file format that loads or memory-maps; f32, connectivity 16),
 * - DuckDB's vss extension (HNSW in the DuckDB file, loaded by path like every extension).
 * Vectors: the seeded corpus's MiniLM embeddings (about 12,000), replicated to n with a jitter
 * (copies past the first, ±0.02 a dimension, renormalised), as bench/search.ts grows its corpus.
 * Queries: 200 texts embedded by the same model (the judged relevance queries and the first words
 * of headlines). For each: build seconds, size on disk, query p50/p99 (ms, one query at a time,
 * the first 10 left out) and recall@10 against the exact scan. NEWSFLOW_BENCH_ANN_SIZES
 * (default 100000) sets n, comma-separated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARRAY, DuckDBInstance, FLOAT } from '@duckdb/node-api';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { serviceConfig } from '../service/config.js';
import { openServices } from '../service/server.js';
import { VectorIndex } from '../service/search/vectors.js';
import { extensionFile } from '../warehouse/extensions.js';
import { mulberry32 as rng } from '../lib/random.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';

const K = 10;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => Number(sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!.toFixed(2));
const secs = (t0: number) => Number(((performance.now() - t0) / 1000).toFixed(1));

interface Figures {
  build_s: number;
  disk_mb: number | null;
  p50_ms: number;
  p99_ms: number;
  recall_at_10: number;
}

/** Time each query (the first 10 are warm-up) and its recall@10 against `truth`. */
async function measure(
  queries: Float32Array[],
  truth: Set<number>[],
  top: (q: Float32Array) => Promise<number[]> | number[],
): Promise<Omit<Figures, 'build_s' | 'disk_mb'>> {
  const times: number[] = [];
  let hit = 0;
  for (const [i, q] of queries.entries()) {
    const t0 = performance.now();
    const ids = await top(q);
    if (i >= 10) times.push(performance.now() - t0);
    hit += ids.slice(0, K).filter((id) => truth[i]!.has(id)).length;
  }
  return { p50_ms: pct(times, 0.5), p99_ms: pct(times, 0.99), recall_at_10: Number((hit / (K * queries.length)).toFixed(4)) };
}

function dirSize(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((n, f) => n + dirSize(path.join(p, f)), 0);
}
const mb = (bytes: number) => Number((bytes / 1e6).toFixed(1));

export async function benchAnn(): Promise<Record<string, unknown>> {
  const sizes = (process.env.NEWSFLOW_BENCH_ANN_SIZES ?? '100000').split(',').map(Number);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-ann-'));
  fs.copyFileSync(await seededCorpusStore(), path.join(work, 'service.duckdb'));
  const services = await openServices(serviceConfig({ dataDir: work, logLevel: 'silent' }));
  try {
    const news = services.news!;
    await news.loaded;
    const base = news.index.vectors!;
    const dim = base.dim;
    const r = rng(35);
    const relevanceFile = new URL('../test/fixtures/relevance.json', import.meta.url);
    const judged = fs.existsSync(relevanceFile) ? (JSON.parse(fs.readFileSync(relevanceFile, 'utf8')) as { query: string }[]).map((x) => x.query) : [];
    const views = news.index.views;
    const texts = [...judged, ...Array.from({ length: 200 }, () => views[Math.floor(r() * views.length)]!.a.title.split(/\s+/).slice(0, 5).join(' '))].slice(
      0,
      200,
    );
    const queries = (await news.embedder!.embed(texts)).map((v) => Float32Array.from(v));

    const out: Record<string, unknown> = {};
    for (const n of sizes) {
      // the vectors: the corpus, then jittered copies, each of unit length
      const data = new Float32Array(n * dim);
      for (let i = 0; i < n; i++) {
        const src = base.vector(i % base.size);
        const row = data.subarray(i * dim, (i + 1) * dim);
        row.set(src);
        if (i >= base.size) {
          let s = 0;
          for (let k = 0; k < dim; k++) {
            row[k]! += (r() - 0.5) * 0.04;
            s += row[k]! * row[k]!;
          }
          const inv = 1 / Math.sqrt(s);
          for (let k = 0; k < dim; k++) row[k]! *= inv;
        }
      }
      const exactTop = (q: Float32Array): number[] => {
        const best: [number, number][] = [];
        for (let i = 0; i < n; i++) {
          let d = 0;
          const off = i * dim;
          for (let k = 0; k < dim; k++) d += data[off + k]! * q[k]!;
          if (best.length < K) {
            best.push([d, i]);
            best.sort((a, b) => b[0] - a[0]);
          } else if (d > best[K - 1]![0]) {
            best[K - 1] = [d, i];
            best.sort((a, b) => b[0] - a[0]);
          }
        }
        return best.map(([, i]) => i);
      };
      const truth = queries.map((q) => new Set(exactTop(q)));
      const exact = await measure(queries, truth, exactTop);

      // today's index: IVF lists over the vectors in WebAssembly memory
      let t0 = performance.now();
      const ivf = new VectorIndex(dim, n);
      for (let i = 0; i < n; i++) ivf.set(i, data.subarray(i * dim, (i + 1) * dim));
      ivf.train();
      const ivfBuild = secs(t0);
      const ivfFig = await measure(queries, truth, (q) => {
        // the docs it scored, in doc order: the K best, as the engine takes them
        const { docs, scores } = ivf.search(q, { candidates: null, threshold: -1 });
        const order = Array.from(docs.keys()).sort((a, b) => scores[b]! - scores[a]!);
        return order.slice(0, K).map((x) => docs[x]!);
      });

      // usearch: HNSW, saved to a file and loaded back (what a restart would do)
      const usConfig = {
        metric: MetricKind.IP,
        dimensions: dim,
        connectivity: 16,
        quantization: ScalarKind.F32,
        expansion_add: 128,
        expansion_search: 64,
        multi: false,
      };
      t0 = performance.now();
      const us = new Index(usConfig);
      us.add(
        BigUint64Array.from({ length: n }, (_, i) => BigInt(i)),
        data,
        0,
      );
      const usBuild = secs(t0);
      const usFile = path.join(work, `usearch-${n}.usearch`);
      us.save(usFile);
      t0 = performance.now();
      const usLoaded = new Index(usConfig);
      usLoaded.load(usFile);
      const usLoad = secs(t0);
      const usFig = await measure(queries, truth, (q) => Array.from(usLoaded.search(q, K, 0).keys, Number));

      // DuckDB vss: an HNSW index in a DuckDB file
      t0 = performance.now();
      const dbFile = path.join(work, `vss-${n}.duckdb`);
      const inst = await DuckDBInstance.create(dbFile, { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
      const c = await inst.connect();
      await c.run(`LOAD '${extensionFile('vss')}'`);
      await c.run('SET hnsw_enable_experimental_persistence = true');
      await c.run(`CREATE TABLE v (id INTEGER, e FLOAT[${dim}])`);
      const app = await c.createAppender('v');
      const type = ARRAY(FLOAT, dim);
      for (let i = 0; i < n; i++) {
        app.appendInteger(i);
        app.appendArray(Array.from(data.subarray(i * dim, (i + 1) * dim)), type);
        app.endRow();
      }
      app.closeSync();
      await c.run(`CREATE INDEX v_hnsw ON v USING HNSW (e) WITH (metric = 'ip')`);
      await c.run('CHECKPOINT');
      const vssBuild = secs(t0);
      const vssFig = await measure(queries, truth, async (q) => {
        const lit = `[${Array.from(q, (x) => x.toFixed(7)).join(',')}]::FLOAT[${dim}]`;
        const rows = (await c.runAndReadAll(`SELECT id FROM v ORDER BY array_negative_inner_product(e, ${lit}) LIMIT ${K}`)).getRows();
        return rows.map((row) => Number(row[0]));
      });
      const plan = (
        await c.runAndReadAll(`EXPLAIN SELECT id FROM v ORDER BY array_negative_inner_product(e, [${'0,'.repeat(dim - 1)}1]::FLOAT[${dim}]) LIMIT ${K}`)
      ).getRows();
      c.closeSync();
      inst.closeSync();

      out[String(n)] = {
        vectors: n,
        exact: { build_s: 0, disk_mb: null, ...exact },
        ivf_today: { build_s: ivfBuild, disk_mb: mb(n * dim * 4), ...ivfFig },
        usearch_hnsw: { build_s: usBuild, disk_mb: mb(fs.statSync(usFile).size), load_s: usLoad, ...usFig },
        duckdb_vss_hnsw: { build_s: vssBuild, disk_mb: mb(dirSize(dbFile)), ...vssFig, uses_index: JSON.stringify(plan).includes('HNSW_INDEX_SCAN') },
      };
    }
    return {
      bench: 'nl top-10 over n MiniLM vectors (the corpus replicated with jitter): exact scan, today’s IVF, usearch HNSW, DuckDB vss HNSW; one query at a time',
      queries: queries.length,
      ...out,
      goal: 'recall@10 >= 0.95 against the exact scan, nl p99 < 150 ms at 1M (the service; here the index alone)',
      cpus: os.cpus().length,
      load_average: Number(os.loadavg()[0]!.toFixed(2)),
    };
  } finally {
    await services.news?.close();
    services.db.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchAnn()));
