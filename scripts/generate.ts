/**
 * `npm run generate`: the files made from the code, each checked by a test that fails when it is
 * stale: the project file's JSON Schema (newsflow.schema.json, shipped in the package), its
 * reference (docs/configuration.md) and the commands' reference (docs/cli.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configurationReference, projectJsonSchema, SCHEMA_FILE } from '../pipelines/config/reference.js';
import { cliReference } from '../pipelines/cli/reference.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files: [string, string][] = [
  [SCHEMA_FILE, `${JSON.stringify(projectJsonSchema(), null, 2)}\n`],
  ['docs/configuration.md', configurationReference()],
  ['docs/cli.md', cliReference()],
];
for (const [rel, text] of files) {
  const file = path.join(root, rel);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (before !== text) fs.writeFileSync(file, text);
  console.log(`${rel}: ${before === text ? 'unchanged' : 'written'}`);
}
