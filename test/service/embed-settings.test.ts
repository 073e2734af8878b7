/**
 * The embedding settings of the environment (NEWSFLOW_EMBED_THREAD, NEWSFLOW_EMBED_OP_THREADS,
 * NEWSFLOW_QUERY_CACHE): what each accepts, and a value outside it stops `newsflow serve` at
 * start with one line naming the variable (exit 1, no stack trace), not a setting silently ignored.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceConfigError, embedSettings, queryCacheSize } from '../../service/config.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/service.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('embedding settings', () => {
  it('accept what they document', () => {
    expect(embedSettings({})).toEqual({ thread: false, opThreads: null });
    expect(embedSettings({ NEWSFLOW_EMBED_THREAD: '1', NEWSFLOW_EMBED_OP_THREADS: '2' })).toEqual({ thread: true, opThreads: 2 });
    expect(embedSettings({ NEWSFLOW_EMBED_THREAD: '0', NEWSFLOW_EMBED_OP_THREADS: ' 16 ' })).toEqual({ thread: false, opThreads: 16 });
    expect(embedSettings({ NEWSFLOW_EMBED_THREAD: '', NEWSFLOW_EMBED_OP_THREADS: '' })).toEqual({ thread: false, opThreads: null });
    expect(queryCacheSize({})).toBe(4096);
    expect(queryCacheSize({ NEWSFLOW_QUERY_CACHE: '0' })).toBe(0);
    expect(queryCacheSize({ NEWSFLOW_QUERY_CACHE: '100' })).toBe(100);
  });

  it('refuse anything else, naming the variable and the value', () => {
    for (const v of ['true', 'yes', '2', '-1'])
      expect(() => embedSettings({ NEWSFLOW_EMBED_THREAD: v })).toThrow(
        new ServiceConfigError(`NEWSFLOW_EMBED_THREAD must be 1 (MiniLM in its embedding thread) or 0 (in the service's thread), not "${v}"`),
      );
    for (const v of ['0', '17', '1.5', 'abc', '4 threads', '1e1'])
      expect(() => embedSettings({ NEWSFLOW_EMBED_OP_THREADS: v })).toThrow(
        /^NEWSFLOW_EMBED_OP_THREADS must be a whole number of onnxruntime threads from 1 to 16, not "/,
      );
    for (const v of ['-5', '1.5', 'lots', '99999999999999999999'])
      expect(() => queryCacheSize({ NEWSFLOW_QUERY_CACHE: v })).toThrow(/^NEWSFLOW_QUERY_CACHE must be a whole number of query vectors/);
  });

  it('newsflow serve stops at start on a bad one: exit 1, one line, no stack trace', async () => {
    for (const [name, value] of [
      ['NEWSFLOW_EMBED_OP_THREADS', 'abc'],
      ['NEWSFLOW_EMBED_THREAD', 'true'],
      ['NEWSFLOW_QUERY_CACHE', '-5'],
    ] as const) {
      const dir = tempDir();
      dirs.push(dir);
      const r = await runCli(['serve', '--data-dir', dir, '--port', '0'], { [name]: value });
      expect(r.code).toBe(1);
      const lines = r.err.split('\n').filter((l) => l.trim() && !l.startsWith('npm warn'));
      expect(lines).toEqual([expect.stringMatching(new RegExp(`^error: ${name} must be .*not "${value}"$`))]);
    }
  });
});
