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
