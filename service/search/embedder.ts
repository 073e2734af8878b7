/** Sentence embeddings behind one interface: the packaged local model, or an OpenAI-compatible URL. */
export interface Embedder {
  /** identifies the vectors in the store; a different model re-embeds */
  readonly model: string;
  readonly dim: number;
  /**
   * Cosine at which this model's neighbours start to be on topic. similarity_score_threshold is
   * applied to score = (cosine + (1 - 2r)) / (2 - 2r) with r = relevantCosine, a monotone map that
   * sends cosine r to 0.5 (the interface's default threshold) and cosine 1 to 1.
   */
  readonly relevantCosine: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /** texts with the same key get the same vector (the model's own normalisation); absent: the text itself */
  readonly queryKey?: (text: string) => string;
}

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
