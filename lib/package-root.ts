/**
 * The folder of the newsflow package: the repository in a checkout, `node_modules/newsflow` when
 * installed. Files that ship beside the code (the DuckDB extensions, the MiniLM model, the JSON
 * Schema) are found from here, whether the code runs from its sources or from dist/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

export function packageRoot(): string {
  if (root) return root;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'newsflow') return (root = dir);
      } catch {
        /* not ours: keep looking */
      }
    }
    if (path.dirname(dir) === dir) throw new Error('newsflow: the package folder (a package.json named newsflow) is not above its code');
  }
}

/** `.ts` when running from the sources (tsx), `.js` from dist/. */
export const SOURCE_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
