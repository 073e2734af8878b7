/**
 * Who reads the environment: pipelines/config/ and service/config.ts (the project and the
 * service's config, resolved once and passed as values), plus the files of the documented list in
 * docs/architecture.md ("Who reads the environment"): process-level settings, and the reads still
 * to move into service/config.ts. A new `process.env` anywhere else fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';

const ROOMS = ['lib', 'spec', 'client', 'service', 'activities', 'workflows', 'warehouse', 'temporal', 'pipelines'];
const CONFIG = (f: string) => f.startsWith('pipelines/config/') || f === 'service/config.ts';

function filesOf(dir: string): string[] {
  return fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? filesOf(rel) : /\.[cm]?ts$/.test(e.name) ? [rel] : [];
  });
}

/** The files docs/architecture.md lists under "Who reads the environment" (one `path` per bullet). */
function documented(): string[] {
  const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split('\n### Who reads the environment\n')[1]?.split('\n#')[0] ?? '';
  return [...section.matchAll(/^- `([^`]+\.ts)`/gm)].map((m) => m[1]!).sort();
}

describe('the environment is read by the config modules and a documented list only', () => {
  it('grep process.env over the rooms, outside pipelines/config and service/config.ts: the documented list', () => {
    const readers = ROOMS.flatMap(filesOf)
      .filter((f) => !CONFIG(f) && fs.readFileSync(path.join(repoRoot, f), 'utf8').includes('process.env'))
      .sort();
    console.log(`files reading process.env outside the config modules (${readers.length}):\n  ${readers.join('\n  ')}`);
    expect(documented().length).toBeGreaterThan(0);
    expect(readers).toEqual(documented());
  });
});
