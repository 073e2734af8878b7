/**
 * The enriched-corpus cache of `newsflow start`: the enrichment (fields, index terms, embedding)
 * of every corpus article, computed once per corpus and code version and kept under
 * `<cache dir>/corpus/<key>.v8`, so a new data dir loads the corpus in seconds.
 *
 * The key covers what shapes the result: every article's id and content hash (the corpus),
 * the sources of the enrichment (service/enrich, service/corpus, the tokenizer, the record),
 * package-lock.json (the NLP packages), the embedding model and the V8 version (the file
 * format). Dates are not part of an entry: the seed sets them (rebase, replay).
 * A file that cannot be read is ignored and written again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import type { RawArticle } from '../corpus/read.js';
import { contentHash } from '../enrich/index.js';
import type { LoadedArticle } from '../article/model.js';
import type { EnrichmentCache } from './seed.js';
import { cacheDir } from '../../lib/cache-dir.js';

/** The code of the service (sources, or dist/ when built): what shapes an enriched article. */
const codeRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const CODE = ['service/enrich', 'service/corpus', 'service/text', 'service/article', 'package-lock.json'];

function filesUnder(p: string): string[] {
  if (!fs.existsSync(p)) return [];
  if (fs.statSync(p).isFile()) return [p];
  return fs.readdirSync(p, { withFileTypes: true }).flatMap((e) => filesUnder(path.join(p, e.name)));
}

/** The version of the code an entry was made by. */
export function enrichmentCodeVersion(): string {
  const h = crypto.createHash('sha1');
  for (const f of CODE.flatMap((c) => filesUnder(path.join(codeRoot, c))).sort()) h.update(path.relative(codeRoot, f)).update(fs.readFileSync(f));
  return h.digest('hex');
}

export class CorpusCache implements EnrichmentCache {
  private entries = new Map<string, LoadedArticle>();
  private added = 0;
  private ids: string[] = [];
  file: string | null = null;
  /** what open() found: 'hit' (a file of this key, maybe partial), 'miss' */
  state: 'closed' | 'hit' | 'miss' = 'closed';

  constructor(private readonly dir = path.join(cacheDir(), 'corpus')) {}

  async open(raws: RawArticle[], model: string | null): Promise<void> {
    const h = crypto
      .createHash('sha1')
      .update(enrichmentCodeVersion())
      .update(`\0${model ?? 'none'}\0${process.versions.v8}\0`);
    const pairs = raws.map((r) => `${r.articleId}:${contentHash(r)}`).sort();
    for (const p of pairs) h.update(p).update('\n');
    this.ids = raws.map((r) => r.articleId);
    this.file = path.join(this.dir, `${h.digest('hex').slice(0, 24)}.v8`);
    try {
      const list = v8.deserialize(await fs.promises.readFile(this.file)) as LoadedArticle[];
      this.entries = new Map(list.map((l) => [l.article.articleId, l]));
      this.state = 'hit';
    } catch {
      this.entries = new Map();
      this.state = 'miss';
    }
  }

  get(r: RawArticle): LoadedArticle | undefined {
    const l = this.entries.get(r.articleId);
    return l && l.article.contentHash === contentHash(r) ? l : undefined;
  }

  put(loaded: LoadedArticle[]): void {
    for (const l of loaded) this.entries.set(l.article.articleId, l);
    this.added += loaded.length;
  }

  /**
   * Written when this run enriched something: every entry held (a start stopped half-way leaves
   * what it enriched; entries do not depend on one another, the key fixes the corpus).
   */
  async save(): Promise<void> {
    if (!this.file || this.added === 0) return;
    await fs.promises.mkdir(this.dir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, v8.serialize(this.ids.filter((id) => this.entries.has(id)).map((id) => this.entries.get(id)!)));
    await fs.promises.rename(tmp, this.file);
    this.added = 0;
  }

  /** how many articles of the corpus it holds */
  get size(): number {
    return this.entries.size;
  }

  /** the entries are not needed once the corpus is loaded */
  release(): void {
    this.entries = new Map();
  }
}
