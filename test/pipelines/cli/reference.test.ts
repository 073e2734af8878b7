/** docs/cli.md is the reference the commands generate (npm run generate): it names every command and option. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliReference } from '../../../pipelines/cli/reference.js';
import { repoRoot } from '../../helpers/paths.js';

describe('docs/cli.md', () => {
  it('is up to date with the commands', () => {
    const text = cliReference();
    expect(fs.readFileSync(path.join(repoRoot, 'docs', 'cli.md'), 'utf8')).toBe(text);
    for (const c of ['init', 'config check', 'start', 'worker', 'schedule apply', 'sql']) expect(text).toContain(`| [\`${c}\`]`);
    expect(text).toContain('`--dry-run`');
  });
});
