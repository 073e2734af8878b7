/**
 * The saved news index: what NewsIndex.freeze gives, written to a folder of compact files so a
 * restart loads it instead of rebuilding the index from every row of the store.
 *
 * - `docs.bin`: the article records (no full text) and their searchable text, as UTF-8 JSON
 *   arrays of DOC_CHUNK documents each, `docs.off` their byte offsets (Float64Array), read one
 *   chunk at a time;
 * - `terms.json` and the postings in compressed-row form: `post-off.u32`, `post-docs.i32`,
 *   `post-tfs.i32`, `doc-len.i32`;
 * - `vectors.f32` (unit vectors, document order), `vectors-set.u8`, and the IVF lists when made:
 *   `ivf-centroids.f32`, `ivf-off.u32`, `ivf-ids.i32`; the vectors are read in chunks straight into
 *   the index's storage, never held twice;
 * - `meta.json` last: the format version, the embedding model, the store's watermark the index
 *   is as new as, and each file's size and MD5. A folder without it, of another version or model,
 *   or whose files do not match it is not loaded (IndexFileError: the caller rebuilds).
 *
 * A save writes a new folder beside the old one and swaps them by renames, so a crash during a
 * save leaves the older saved index (or none), never a half-written one under the name.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { NewsArticle } from '../article/model.js';
import type { FrozenIndex } from './engine.js';

/** Bump when what the files hold or how it is laid out changes: an older saved index is rebuilt. */
export const INDEX_FILE_VERSION = 1;
const FORMAT = 'newsflow-news-index';
/** documents per JSON chunk of docs.bin */
const DOC_CHUNK = 2048;
/** bytes per read of a large file */
const READ_STEP = 16 << 20;

export interface IndexMeta {
  format: typeof FORMAT;
  version: number;
  /** the embedding model of the vectors (null: none) */
  model: string | null;
  dim: number;
  docs: number;
  /** the store's newest enriched_at (epoch microseconds) when the index was saved: rows newer than it are caught up */
  watermarkUs: number;
  /** the retention the index was saved under (days, null: keep all) */
  retentionDays: number | null;
  ivfTrainedAt: number | null;
  savedAt: string;
  files: Record<string, { bytes: number; md5: string }>;
}

/** A saved index that cannot be used (missing, of another version or model, or damaged). */
export class IndexFileError extends Error {}

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/** Write `frozen` to `dir` (replaced as a whole once every file is written). */
export async function saveIndex(
  dir: string,
  frozen: FrozenIndex,
  meta: Omit<IndexMeta, 'format' | 'version' | 'files' | 'docs' | 'dim' | 'savedAt' | 'ivfTrainedAt'>,
): Promise<IndexMeta> {
  const tmp = `${dir}.saving-${process.pid}`;
  await fs.promises.rm(tmp, { recursive: true, force: true });
  await fs.promises.mkdir(tmp, { recursive: true });
  const files: IndexMeta['files'] = {};
  const write = async (name: string, parts: Iterable<Uint8Array> | AsyncIterable<Uint8Array>) => {
    const h = crypto.createHash('md5');
    const fh = await fs.promises.open(path.join(tmp, name), 'w');
    let bytes = 0;
    try {
      for await (const p of parts) {
        h.update(p);
        bytes += p.byteLength;
        await fh.write(p);
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    files[name] = { bytes, md5: h.digest('hex') };
  };
  try {
    const offsets: number[] = [0];
    const enc = new TextEncoder();
    const { docs } = frozen;
    await write(
      'docs.bin',
      (async function* () {
        for (let i = 0; i < docs.length; i += DOC_CHUNK) {
          const chunk = enc.encode(JSON.stringify(docs.slice(i, i + DOC_CHUNK).map((d) => [{ ...d.a, fullText: null }, d.text])));
          offsets.push(offsets.at(-1)! + chunk.byteLength);
          yield chunk;
          await yieldTurn();
        }
      })(),
    );
    await write('docs.off', [bytesOf(Float64Array.from(offsets))]);
    await write('terms.json', [enc.encode(JSON.stringify(frozen.bm25.terms))]);
    await write('post-off.u32', [bytesOf(frozen.bm25.off)]);
    await write('post-docs.i32', [bytesOf(frozen.bm25.docs)]);
    await write('post-tfs.i32', [bytesOf(frozen.bm25.tfs)]);
    await write('doc-len.i32', [bytesOf(frozen.bm25.docLen)]);
    const v = frozen.vectors;
    if (v) {
      await write('vectors.f32', [bytesOf(v.vectors)]);
      await write('vectors-set.u8', [v.isSet]);
      if (v.ivf) {
        await write('ivf-centroids.f32', [bytesOf(v.ivf.centroids)]);
        await write('ivf-off.u32', [bytesOf(v.ivf.off)]);
        await write('ivf-ids.i32', [bytesOf(v.ivf.ids)]);
      }
    }
    const full: IndexMeta = {
      format: FORMAT,
      version: INDEX_FILE_VERSION,
      ...meta,
      dim: frozen.dim,
      docs: docs.length,
      ivfTrainedAt: v?.ivf?.trainedAt ?? null,
      savedAt: new Date().toISOString(),
      files,
    };
    await fs.promises.writeFile(path.join(tmp, 'meta.json'), JSON.stringify(full, null, 1));
    // swap: the old folder aside, the new one in, the old one gone
    const old = `${dir}.old-${process.pid}`;
    await fs.promises.rm(old, { recursive: true, force: true });
    if (fs.existsSync(dir)) await fs.promises.rename(dir, old);
    await fs.promises.rename(tmp, dir);
    await fs.promises.rm(old, { recursive: true, force: true });
    return full;
  } catch (e) {
    await fs.promises.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}

/** The saved index's metadata, checked (format, version, model, every file's size and MD5). */
export async function readIndexMeta(dir: string, model: string | null): Promise<IndexMeta> {
  const file = path.join(dir, 'meta.json');
  if (!fs.existsSync(file)) throw new IndexFileError(`no saved index in ${dir}`);
  let meta: IndexMeta;
  try {
    meta = JSON.parse(await fs.promises.readFile(file, 'utf8')) as IndexMeta;
  } catch (e) {
    throw new IndexFileError(`${file} is not JSON (${(e as Error).message})`);
  }
  if (meta.format !== FORMAT || meta.version !== INDEX_FILE_VERSION)
    throw new IndexFileError(`the saved index is of version ${meta.version ?? '?'}, this service reads version ${INDEX_FILE_VERSION}`);
  if ((meta.model ?? null) !== model)
    throw new IndexFileError(`the saved index's vectors are of ${meta.model ?? 'no model'}, the service embeds with ${model ?? 'none'}`);
  for (const [name, f] of Object.entries(meta.files ?? {})) {
    const p = path.join(dir, name);
    const st = fs.existsSync(p) ? fs.statSync(p) : null;
    if (!st || st.size !== f.bytes) throw new IndexFileError(`${name} of the saved index has ${st?.size ?? 'no'} bytes, its meta.json says ${f.bytes}`);
    const h = crypto.createHash('md5');
    await eachChunk(p, 0, f.bytes, (b) => void h.update(b));
    if (h.digest('hex') !== f.md5) throw new IndexFileError(`${name} of the saved index does not match its checksum (damaged)`);
  }
  return meta;
}

/** Read `bytes` bytes of `file` from `from` in READ_STEP chunks (the buffer is reused between calls). */
async function eachChunk(file: string, from: number, bytes: number, fn: (b: Uint8Array) => void | Promise<void>): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.min(READ_STEP, Math.max(1, bytes)));
    let at = 0;
    while (at < bytes) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, bytes - at), from + at);
      if (bytesRead === 0) throw new IndexFileError(`${path.basename(file)} ended early`);
      await fn(buf.subarray(0, bytesRead));
      at += bytesRead;
    }
  } finally {
    await fh.close();
  }
}

function typed<T>(dir: string, name: string, make: (b: ArrayBuffer) => T): T {
  const b = fs.readFileSync(path.join(dir, name));
  // a copy into a buffer of its own (a Buffer may share a pool; the views need alignment)
  const own = new ArrayBuffer(b.byteLength);
  new Uint8Array(own).set(b);
  return make(own);
}

/**
 * The documents of the saved index, one chunk at a time (`fn` places them), records with their
 * dates as Dates again.
 */
export async function readIndexDocs(dir: string, fn: (docs: { a: NewsArticle; text: string }[]) => void): Promise<void> {
  const off = typed(dir, 'docs.off', (b) => new Float64Array(b));
  const fh = await fs.promises.open(path.join(dir, 'docs.bin'), 'r');
  const dec = new TextDecoder();
  try {
    for (let c = 0; c + 1 < off.length; c++) {
      const n = off[c + 1]! - off[c]!;
      const buf = Buffer.allocUnsafe(n);
      const { bytesRead } = await fh.read(buf, 0, n, off[c]!);
      if (bytesRead !== n) throw new IndexFileError('docs.bin ended early');
      const rows = JSON.parse(dec.decode(buf)) as [NewsArticle & { pubDate: string; crawlDate: string | null }, string][];
      fn(
        rows.map(([a, text]) => ({
          a: { ...a, pubDate: new Date(a.pubDate), crawlDate: a.crawlDate === null ? null : new Date(a.crawlDate) },
          text,
        })),
      );
      await yieldTurn();
    }
  } finally {
    await fh.close();
  }
}

/** The postings and vector lists of the saved index (the vectors themselves through `fillVectors`). */
export function readIndexArrays(dir: string, meta: IndexMeta) {
  const has = (n: string) => n in meta.files;
  const bm25 = {
    terms: JSON.parse(fs.readFileSync(path.join(dir, 'terms.json'), 'utf8')) as string[],
    off: typed(dir, 'post-off.u32', (b) => new Uint32Array(b)),
    docs: typed(dir, 'post-docs.i32', (b) => new Int32Array(b)),
    tfs: typed(dir, 'post-tfs.i32', (b) => new Int32Array(b)),
    docLen: typed(dir, 'doc-len.i32', (b) => new Int32Array(b)),
  };
  if (bm25.off.length !== bm25.terms.length + 1 || bm25.docLen.length !== meta.docs) throw new IndexFileError('the saved postings do not match their terms');
  const vectors = has('vectors.f32')
    ? {
        isSet: typed(dir, 'vectors-set.u8', (b) => new Uint8Array(b)),
        ivf:
          has('ivf-centroids.f32') && meta.ivfTrainedAt !== null
            ? {
                centroids: typed(dir, 'ivf-centroids.f32', (b) => new Float32Array(b)),
                off: typed(dir, 'ivf-off.u32', (b) => new Uint32Array(b)),
                ids: typed(dir, 'ivf-ids.i32', (b) => new Int32Array(b)),
                trainedAt: meta.ivfTrainedAt,
              }
            : null,
      }
    : null;
  if (vectors && meta.files['vectors.f32']!.bytes !== meta.docs * meta.dim * 4) throw new IndexFileError('the saved vectors do not match the documents');
  /** the vectors' bytes into `into` (the index's storage), read in chunks */
  const fillVectors = (into: Uint8Array) => {
    const fd = fs.openSync(path.join(dir, 'vectors.f32'), 'r');
    try {
      let at = 0;
      while (at < into.byteLength) {
        const n = fs.readSync(fd, into, at, Math.min(READ_STEP, into.byteLength - at), at);
        if (n === 0) throw new IndexFileError('vectors.f32 ended early');
        at += n;
      }
    } finally {
      fs.closeSync(fd);
    }
  };
  return { bm25, vectors, fillVectors };
}
