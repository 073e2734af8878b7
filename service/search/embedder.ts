/** The interface is service/text/embedder.ts (below search and llm alike); re-exported for search's users. */
export type { Embedder } from '../text/embedder.js';
import type { Embedder } from '../text/embedder.js';

export function calibrated(cosine: number, relevantCosine: number): number {
  return (cosine + (1 - 2 * relevantCosine)) / (2 - 2 * relevantCosine);
}
export function cosineFor(score: number, relevantCosine: number): number {
  return score * (2 - 2 * relevantCosine) - (1 - 2 * relevantCosine);
}

/**
 * OpenAI-compatible `POST {url}/embeddings` ({model, input}) -> data[i].embedding.
 * Set NEWSFLOW_EMBEDDINGS_URL (and NEWSFLOW_EMBEDDINGS_MODEL, NEWSFLOW_EMBEDDINGS_KEY,
 * NEWSFLOW_EMBEDDINGS_RELEVANT_COSINE; service/config.ts reads them).
 */
export class HttpEmbedder implements Embedder {
  readonly model: string;
  dim = 0;
  readonly relevantCosine: number;
  private readonly batch: number;
  constructor(
    private readonly url: string,
    model: string,
    private readonly apiKey?: string,
    opts: { relevantCosine?: number; batch?: number } = {},
  ) {
    this.relevantCosine = opts.relevantCosine ?? 0.3;
    this.batch = opts.batch ?? 128;
    this.model = `http:${model}`;
    this.remoteModel = model;
  }
  private readonly remoteModel: string;

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batch) {
      const res = await fetch(`${this.url.replace(/\/+$/, '')}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.remoteModel, input: texts.slice(i, i + this.batch) }),
      });
      if (!res.ok) throw new Error(`embeddings endpoint answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const body = (await res.json()) as { data: { index: number; embedding: number[] }[] };
      for (const d of [...body.data].sort((a, b) => a.index - b.index)) out.push(Float32Array.from(d.embedding));
    }
    if (out[0]) this.dim = out[0].length;
    return out;
  }
}
