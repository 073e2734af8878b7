/** `newsflow openapi` (pipelines/cli/spec.ts): the OpenAPI document on stdout. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bin } from '../../helpers/cli.js';

describe('newsflow openapi', () => {
  it('prints the OpenAPI document', () => {
    const r = spawnSync(process.execPath, [bin, 'openapi'], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout).openapi).toBe('3.1.0');
  });
});
