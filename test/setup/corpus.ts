/**
 * Global setup: one service store seeded from the real shared corpus, built once and cached in
 * the OS temp dir under a key of everything that shapes it (corpus files, enrichment, store
 * schema and search code), so a second run starts in seconds. Test files copy it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { repoRoot, sharedDir } from '../helpers/paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    corpusStore: string;
  }
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

export function corpusKey(): string {
  const h = crypto.createHash('sha1');
  const data = path.join(sharedDir, 'data', 'news');
  for (const f of filesUnder(data).sort()) h.update(`${path.relative(data, f)}:${fs.statSync(f).size}`);
  for (const dir of ['service/enrich', 'service/corpus', 'service/store', 'service/search', 'service/news', 'service/stories']) {
    for (const f of filesUnder(path.join(repoRoot, dir)).sort()) {
      // migrations are append-only and the store applies pending ones when a copy is opened,
      // so adding one does not make the seeded store stale
      if (path.relative(repoRoot, f) === path.join('service', 'store', 'migrations.ts')) continue;
      h.update(fs.readFileSync(f));
    }
  }
  return h.digest('hex').slice(0, 16);
}

export default async function setup(project: TestProject): Promise<void> {
  const { seededCorpusStore } = await import('../helpers/corpus-store.js');
  project.provide('corpusStore', await seededCorpusStore((m) => console.log(`test setup: ${m}`)));
}
