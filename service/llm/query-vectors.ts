/**
 * The embedder shared by search and the model layer, remembering the vectors of its last `size`
 * single-text calls (an LRU keyed by the model's normalised text, `Embedder.queryKey`: "Ukraine
 * talks" and " ukraine  TALKS" are one entry when the model is uncased). A chat question is
 * embedded once, by retrieval, and the extractive writer reuses that vector; a query many clients
 * send at once is embedded once (the callers share the pending vector). Batches (loading,
 * sentence ranking) pass through uncached. `NEWSFLOW_QUERY_CACHE` sets the size (0: off).
 */
import type { Embedder } from '../text/embedder.js';

export interface RememberingEmbedder extends Embedder {
  readonly cache: { hits: number; misses: number; readonly size: number };
}

/** `size`: the service's `queryCache` (service/config.ts, NEWSFLOW_QUERY_CACHE). */
export function rememberingQueries(inner: Embedder, size: number): RememberingEmbedder {
  const last = new Map<string, Float32Array>();
  const pending = new Map<string, Promise<Float32Array>>();
  const key = (t: string) => (inner.queryKey ? inner.queryKey(t) : t);
  const cache = {
    hits: 0,
    misses: 0,
    get size() {
      return last.size;
    },
  };
  return {
    get model() {
      return inner.model;
    },
    get dim() {
      return inner.dim;
    },
    get relevantCosine() {
      return inner.relevantCosine;
    },
    queryKey: inner.queryKey,
    cache,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length !== 1 || size === 0) return inner.embed(texts);
      const k = key(texts[0]!);
      const hit = last.get(k);
      if (hit) {
        cache.hits++;
        last.delete(k);
        last.set(k, hit);
        return [hit.slice()];
      }
      const waiting = pending.get(k);
      if (waiting) {
        cache.hits++;
        return [(await waiting).slice()];
      }
      cache.misses++;
      const p = inner.embed(texts).then(([v]) => v!);
      pending.set(k, p);
      try {
        const v = await p;
        last.set(k, v.slice());
        if (last.size > size) last.delete(last.keys().next().value!);
        return [v];
      } finally {
        pending.delete(k);
      }
    },
  };
}
