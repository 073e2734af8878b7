/** Temporary folders a test file makes, removed after each of its tests. */
import fs from 'node:fs';
import { afterEach } from 'vitest';
import { tempDir } from './service.js';

/** Call at a file's top level: the returned `made(prefix)` makes a folder that is gone after the test that made it. */
export function tempDirsPerTest(): (prefix?: string) => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return (prefix?: string) => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
}
