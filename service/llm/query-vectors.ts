/**
 * The embedder shared by search and the model layer, remembering the vectors of its last 256
 * single-text calls: a chat question is embedded once, by retrieval, and the extractive writer
 * reuses that vector. Batches (loading, sentence ranking) pass through uncached.
 */
import type { Embedder } from '../search/embedder.js';

export function rememberingQueries(inner: Embedder, size = 256): Embedder {
  const last = new Map<string, Float32Array>();
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
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length !== 1) return inner.embed(texts);
      const t = texts[0]!;
      const hit = last.get(t);
      if (hit) {
        last.delete(t);
        last.set(t, hit);
        return [hit.slice()];
      }
      const [v] = await inner.embed(texts);
      last.set(t, v!.slice());
      if (last.size > size) last.delete(last.keys().next().value!);
      return [v!];
    },
  };
}
