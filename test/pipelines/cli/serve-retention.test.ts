/**
 * The embedded service's retention comes from the project file (`service.retention`,
 * `service.archive`), NEWSFLOW_RETENTION over it and `serve --retention` over both: the retention
 * the running service applies is the one its start-up line names (read from its news service).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, exitWithin, waitForOutput } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';

/** `newsflow serve` in `dir` until it says where it listens; the retention it names. */
async function servedRetention(dir: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', path.join(dir, 'data'), ...args], {
    cwd: dir,
    env: { ...process.env, NEWSFLOW_RETENTION: '', NEWSFLOW_ARCHIVE: '', NEWSFLOW_EMBEDDINGS: 'none', ...env },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    return (await waitForOutput(child, () => out, /listening on http:\/\/\S+ .*retention: ([^)]+)\)/, 90_000))[1]!;
  } finally {
    child.kill('SIGTERM');
    expect(await exitWithin(child, 30_000)).not.toBe('running');
  }
}

describe('the retention of newsflow serve', () => {
  it("is the project file's service.retention, NEWSFLOW_RETENTION over it, --retention over both", async () => {
    const dir = tempDir('newsflow-retention-');
    expect(await servedRetention(dir)).toBe('keep-all');
    fs.writeFileSync(path.join(dir, 'newsflow.yaml'), 'service:\n  retention: 30d\n  archive: true\n');
    expect(await servedRetention(dir)).toBe('30d, then archived');
    expect(await servedRetention(dir, [], { NEWSFLOW_RETENTION: '14d', NEWSFLOW_ARCHIVE: '0' })).toBe('14d');
    expect(await servedRetention(dir, ['--retention', '7d'], { NEWSFLOW_RETENTION: '14d' })).toBe('7d, then archived');
  }, 300_000);
});
