/**
 * Query embedding off the event loop (service/search/thread-embedder.ts) and the query cache
 * (service/llm/query-vectors.ts): same vectors as MiniLM in this thread, one vector per query
 * in a shared batch, one embedding per normalised query, and a 503 (never a hang) when the
 * thread fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniLmEmbedder } from '../../../service/search/minilm-embedder.js';
import { ThreadEmbedder } from '../../../service/search/thread-embedder.js';
import { rememberingQueries } from '../../../service/llm/query-vectors.js';
import type { Embedder } from '../../../service/search/embedder.js';
import { HttpError } from '../../../service/errors/index.js';
import { startCorpusService, qs } from '../../helpers/news.js';
import { api, type TestService } from '../../helpers/service.js';
import { inThread } from '../../../service/server.js';

const cos = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const QUERIES = [
  'ukraine peace talks',
  'interest rates and inflation in the euro zone',
  'champions league final',
  'earthquake in turkey',
  'a new vaccine against malaria approved',
  'elections in brazil',
  'oil prices fall',
  'apple unveils a new iphone',
  'wildfires in california',
  'the bank of england raises rates',
  'strikes at british railways',
  'nasa moon mission',
];
const broken = (mode: string, timeoutMs = 30_000) =>
  new ThreadEmbedder({ modelDir: mode, timeoutMs, workerFile: new URL('../../fixtures/workers/broken-embed-worker.mjs', import.meta.url) });

let direct: MiniLmEmbedder;
let thread: ThreadEmbedder;
beforeAll(async () => {
  [direct, thread] = await Promise.all([MiniLmEmbedder.load(), ThreadEmbedder.start()]);
});
afterAll(async () => {
  await thread?.close();
});

describe("the service's in-thread MiniLM", () => {
  it('embeds a query alone (one onnxruntime thread) to the vector it gets in a batch (two threads), cosine 1 within 1e-6', async () => {
    const e = await inThread(1);
    const alone = [];
    for (const q of QUERIES) alone.push((await e.embed([q]))[0]!);
    const batch = await e.embed(QUERIES);
    const refs = await direct.embed(QUERIES);
    const worst = Math.max(...alone.map((v, i) => Math.abs(1 - cos(v, batch[i]!))), ...batch.map((v, i) => Math.abs(1 - cos(v, refs[i]!))));
    expect(worst).toBeLessThan(1e-6);
    expect(e.model).toBe(direct.model);
    expect(alone).toHaveLength(QUERIES.length);
  });
});

describe('the embedding thread', () => {
  it('gives the vectors MiniLM gives in this thread (cosine 1 within 1e-6), for one query and for concurrent ones', async () => {
    const [one] = await thread.embed([QUERIES[0]!]);
    const [ref] = await direct.embed([QUERIES[0]!]);
    const runs = thread.stats.runs;
    const together = await Promise.all(QUERIES.map((q) => thread.embed([q])));
    const refs = await direct.embed(QUERIES);
    const worst = Math.max(Math.abs(1 - cos(one!, ref!)), ...together.map(([v], i) => Math.abs(1 - cos(v!, refs[i]!))));
    console.log(
      `${QUERIES.length} concurrent queries in ${thread.stats.runs - runs} session runs; worst |1 - cosine| against this thread's MiniLM: ${worst.toExponential(2)}`,
    );
    expect(worst).toBeLessThan(1e-6);
    expect(one).toHaveLength(384);
  });

  it('batches concurrent queries into fewer session runs, each query getting its own vector', async () => {
    const runs = thread.stats.runs;
    const vs = (await Promise.all(QUERIES.map((q) => thread.embed([q])))).map(([v]) => v!);
    expect(thread.stats.runs - runs).toBeLessThan(QUERIES.length);
    const refs = await direct.embed(QUERIES);
    for (const [i, v] of vs.entries()) {
      // its own query's vector, and no other's
      const best = refs.map((r, j) => [cos(v, r), j] as const).sort((a, b) => b[0] - a[0])[0]!;
      expect(best[1]).toBe(i);
      expect(best[0]).toBeGreaterThan(1 - 1e-6);
    }
  });

  it('embeds a large call in batches and returns the vectors in input order', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `${QUERIES[i % QUERIES.length]} ${i}`);
    const runs = thread.stats.runs;
    const vs = await thread.embed(texts);
    const refs = await direct.embed(texts);
    expect(vs).toHaveLength(70);
    expect(thread.stats.runs - runs).toBeGreaterThanOrEqual(3);
    for (const [i, v] of vs.entries()) expect(cos(v, refs[i]!)).toBeGreaterThan(1 - 1e-6);
  });

  it('keeps the event loop free while it embeds', async () => {
    let ticks = 0;
    const iv = setInterval(() => ticks++, 1);
    await Promise.all(Array.from({ length: 30 }, (_, i) => thread.embed([`${QUERIES[i % QUERIES.length]} ${i} again`])));
    clearInterval(iv);
    console.log(`timer ticks while 30 queries were embedded: ${ticks}`);
    // in this thread every session run holds the loop: at most one tick per run
    expect(ticks).toBeGreaterThan(30);
  });
});

describe('the query cache', () => {
  it('returns the same vector for a repeated query and for its re-cased, re-spaced form, embedding it once', async () => {
    let calls = 0;
    const counting: Embedder = {
      model: thread.model,
      dim: thread.dim,
      relevantCosine: thread.relevantCosine,
      queryKey: thread.queryKey,
      embed: (t) => ((calls += t.length), thread.embed(t)),
    };
    const cached = rememberingQueries(counting, 16);
    const [a] = await cached.embed(['Ukraine peace talks']);
    const [b] = await cached.embed(['Ukraine peace talks']);
    const [c] = await cached.embed(['  ukraine   PEACE talks ']);
    const [d] = await direct.embed(['  ukraine   PEACE talks ']);
    expect(calls).toBe(1);
    expect(cos(a!, b!)).toBeGreaterThan(1 - 1e-6);
    expect(cos(a!, c!)).toBeGreaterThan(1 - 1e-6);
    // the normalised key is sound: the model itself gives the re-cased form the same vector
    expect(cos(a!, d!)).toBeGreaterThan(1 - 1e-6);
    expect(cached.cache).toMatchObject({ hits: 2, misses: 1 });
  });

  it('embeds a query sent by many callers at once only once, and forgets the oldest beyond its size', async () => {
    let calls = 0;
    const counting: Embedder = {
      model: thread.model,
      dim: thread.dim,
      relevantCosine: thread.relevantCosine,
      queryKey: thread.queryKey,
      embed: (t) => ((calls += t.length), thread.embed(t)),
    };
    const cached = rememberingQueries(counting, 2);
    const vs = await Promise.all(Array.from({ length: 8 }, () => cached.embed(['oil prices fall'])));
    expect(calls).toBe(1);
    for (const [v] of vs) expect(cos(v!, vs[0]![0]!)).toBeGreaterThan(1 - 1e-6);
    await cached.embed(['elections in brazil']);
    await cached.embed(['nasa moon mission']);
    await cached.embed(['oil prices fall']);
    expect(calls).toBe(4);
  });

  it('with size 0 embeds every call', async () => {
    let calls = 0;
    const cached = rememberingQueries({ model: 'm', dim: 384, relevantCosine: 0.3, embed: (t) => ((calls += t.length), thread.embed(t)) }, 0);
    await cached.embed(['oil prices fall']);
    await cached.embed(['oil prices fall']);
    expect(calls).toBe(2);
  });
});

describe('a failing embedding thread', () => {
  const failure = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(HttpError);
    return e as HttpError;
  };

  it('whose model does not load fails start and every call with a 503', async () => {
    const e = await failure(ThreadEmbedder.start({ modelDir: '/nonexistent-model-dir' }));
    expect(e.status).toBe(503);
    expect(e.detail).toMatch(/query embedding unavailable: the model did not load/);
    const lazy = new ThreadEmbedder({ modelDir: '/nonexistent-model-dir' });
    expect((await failure(lazy.embed(['a']))).status).toBe(503);
    expect((await failure(lazy.embed(['b']))).status).toBe(503);
    await lazy.close();
  });

  it('that answers with an error fails the whole batch with a 503 and keeps serving', async () => {
    const e = broken('error');
    const fails = await Promise.all(['a', 'b', 'c'].map((q) => failure(e.embed([q]))));
    for (const f of fails) expect(f.detail).toBe('query embedding unavailable: the session run failed');
    expect((await failure(e.embed(['d']))).status).toBe(503);
    await e.close();
  });

  it('that dies mid-batch fails its queries with a 503', async () => {
    const e = broken('exit');
    const fails = await Promise.all(['a', 'b'].map((q) => failure(e.embed([q]))));
    for (const f of fails) expect(f.detail).toMatch(/the thread exited \(3\)/);
    await e.close();
  });

  it('that never answers fails its queries with a 503 after the timeout', async () => {
    const e = broken('silent', 300);
    const f = await failure(e.embed(['a']));
    expect(f.detail).toBe('query embedding unavailable: no answer within 300 ms');
    await e.close();
  });
});

describe('nl search when query embedding fails', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startCorpusService();
  }, 300_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers 503 {code, detail}, not a 500 or a hang; kw search still answers', async () => {
    const index = svc.services.news!.index;
    const saved = index.embedder;
    Object.assign(index, { embedder: broken('error') });
    try {
      for (const method of ['nl', 'both']) {
        const r = await api(svc.url, 'GET', `/v1/news/search?${qs({ query: 'ukraine peace talks', method, historical: true })}`, svc.keys.org);
        expect(r.status).toBe(503);
        expect(r.body).toEqual({ code: 503000, detail: 'query embedding unavailable: the session run failed' });
      }
      const kw = await api(svc.url, 'GET', `/v1/news/search?${qs({ query: 'ukraine peace talks', method: 'kw', historical: true })}`, svc.keys.org);
      expect(kw.status).toBe(200);
    } finally {
      Object.assign(index, { embedder: saved });
    }
  });
});
