// For worker threads written in plain JS (they start the same under node, tsx and vitest): import a
// TypeScript module beside the worker, built (dist/, .js) when it is there, else its source through tsx.
import fs from 'node:fs';

/** `name` (no extension) next to `base` (the worker's import.meta.url). */
export async function importSibling(base, name) {
  const built = new URL(`./${name}.js`, base);
  if (fs.existsSync(built)) return import(built.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(`./${name}.ts`, base).href);
}
