/**
 * Global setup: the cached stores test services start from, built once before any test file runs,
 * with their progress printed: the seeded corpus store (test/helpers/corpus-store.ts) and the
 * forum store (test/helpers/forum.ts), each when a file of the run reads it (calls its helper,
 * itself or through other helpers). A run of files that need neither does not pay for them; a
 * store built before (same key) costs nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { seededCorpusStore } from '../helpers/corpus-store.js';
import { forumStoreFile } from '../helpers/forum.js';
import { repoRoot } from '../helpers/paths.js';

const helper = (name: string) => path.join(repoRoot, 'test', 'helpers', `${name}.ts`);

/** Relative imports of a test source (static and dynamic), resolved to .ts files. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
    const ts = path.resolve(path.dirname(file), m[1]!).replace(/\.js$/, '.ts');
    if (fs.existsSync(ts)) out.push(ts);
  }
  return out;
}

/**
 * Whether `file`, or a file of test/ it imports (directly or through others), calls one of
 * `calls`; the helper that defines them is not searched (it calls them itself).
 */
export function calls(file: string, definer: string, names: string[], seen = new Set<string>()): boolean {
  if (file === definer || seen.has(file) || !file.startsWith(path.join(repoRoot, 'test') + path.sep)) return false;
  seen.add(file);
  const called = new RegExp(`(?<!function )\\b(${names.join('|')})\\(`);
  const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''); // comments do not call
  return called.test(code) || importsOf(file).some((f) => calls(f, definer, names, seen));
}

const log = (m: string) => console.log(`test setup: ${m}`);

/** The forum store, with its time printed when it is built now. */
async function forumStore(): Promise<void> {
  const t0 = Date.now();
  await forumStoreFile();
  const s = (Date.now() - t0) / 1000;
  if (s >= 1) log(`forum store ready in ${s.toFixed(0)} s`);
}

/** Both stores, built when missing (`.ci/run` builds them as a phase of its own before `npm test`). */
export async function buildStores(): Promise<void> {
  await seededCorpusStore(log);
  await forumStore();
}

export default async function setup(project: TestProject): Promise<void> {
  // the files of this run (vitest's state, an experimental API): when it names none, build both to be safe
  const files = project.vitest.state.getPaths();
  const reads = (name: string, fns: string[]) => files.length === 0 || files.some((f) => calls(f, helper(name), fns));
  if (reads('corpus-store', ['seededCorpusStore'])) await seededCorpusStore(log);
  if (reads('forum', ['forumStoreFile', 'withForumThreads'])) await forumStore();
}
