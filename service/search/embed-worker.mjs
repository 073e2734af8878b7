// The embedding thread of service/search/thread-embedder.ts: loads MiniLM (minilm-embedder.ts) and
// embeds the batches sent to it. Plain JS so it starts the same under node, tsx and vitest; it
// loads the TypeScript through tsx.
import { parentPort, workerData } from 'node:worker_threads';
import { importSibling } from '../../lib/import-sibling.mjs';
let embedder;
try {
  const { MiniLmEmbedder } = await importSibling(import.meta.url, 'minilm-embedder');
  embedder = await MiniLmEmbedder.load(workerData.modelDir, workerData.threads);
} catch (e) {
  parentPort.postMessage({ fatal: String(e instanceof Error ? e.message : e) });
}
if (embedder) {
  parentPort.on('message', async ({ id, texts }) => {
    try {
      const vs = await embedder.embed(texts);
      const flat = new Float32Array(vs.length * embedder.dim);
      vs.forEach((v, i) => flat.set(v, i * embedder.dim));
      parentPort.postMessage({ id, flat, dim: embedder.dim }, [flat.buffer]);
    } catch (e) {
      parentPort.postMessage({ id, error: String(e instanceof Error ? e.message : e) });
    }
  });
  parentPort.postMessage({ ready: true, model: embedder.model, dim: embedder.dim, relevantCosine: embedder.relevantCosine });
}
