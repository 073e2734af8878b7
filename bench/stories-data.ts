/**
 * Labelled texts for bench/stories.ts: the MStream "Tweets" set of the shared folder
 * (clusters/mstream-tweets.jsonl, see its README), embedded with the service's MiniLM
 * (service/search/minilm-embedder.ts, the model the service embeds articles with). The vectors
 * are cached in the OS temp dir under a key of the file's bytes and the model, so a second run
 * reads them in a second; `node --import tsx bench/stories-data.ts` fills the cache alone.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MiniLmEmbedder } from '../service/search/minilm-embedder.js';

const sharedDir = path.resolve(process.env.NEWSFLOW_SHARED_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared'));
export const mstreamFile = path.join(sharedDir, 'data', 'clusters', 'mstream-tweets.jsonl');

export interface LabelledText {
  /** the row's id (stream order) */
  id: string;
  label: number;
  text: string;
  vector: Float32Array;
}

const MODEL = 'all-MiniLM-L6-v2-int8';

export async function loadMstream(log: (m: string) => void = console.error): Promise<LabelledText[]> {
  const bytes = fs.readFileSync(mstreamFile);
  const rows = bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { Id: string; clusterNo: number; textCleaned: string });
  const key = crypto.createHash('sha1').update(bytes).update(MODEL).digest('hex').slice(0, 16);
  const cache = path.join(os.tmpdir(), 'newsflow-bench-stories', `mstream-${key}.f32`);
  const dim = 384;
  let flat: Float32Array;
  if (fs.existsSync(cache) && fs.statSync(cache).size === rows.length * dim * 4) {
    const b = fs.readFileSync(cache);
    flat = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  } else {
    const t0 = performance.now();
    const embedder = await MiniLmEmbedder.load(undefined, 2);
    flat = new Float32Array(rows.length * dim);
    const step = 2048;
    for (let i = 0; i < rows.length; i += step) {
      const vs = await embedder.embed(rows.slice(i, i + step).map((r) => r.textCleaned));
      vs.forEach((v, k) => flat.set(v, (i + k) * dim));
      log(`embedded ${Math.min(i + step, rows.length)}/${rows.length} texts (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    const tmp = `${cache}.${process.pid}`;
    fs.writeFileSync(tmp, Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength));
    fs.renameSync(tmp, cache);
  }
  return rows.map((r, i) => ({ id: r.Id, label: r.clusterNo, text: r.textCleaned, vector: flat.subarray(i * dim, (i + 1) * dim) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await loadMstream();
  console.log(`${rows.length} texts embedded and cached`);
}
