/**
 * `newsflow run` on a terminal (a pseudo-terminal from util-linux `script`): the progress bar and
 * the result, no webpack report nor worker records unless --verbose; and it exits when done.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { bin } from '../../helpers/cli.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ validateResponses: false, handlers: { search_news: () => ({ as_string: null, as_dicts: [], offset: 0 }) } });
}, 120_000);
afterAll(async () => svc?.stop());

/** A terminal's control sequences (CSI: ESC [ parameters letter), written from the char code so no control character sits in the source. */
const CSI = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;?]*[a-zA-Z]`, 'g');

/** Run the CLI on a pseudo-terminal; what the terminal showed (escape sequences removed) and the exit code. */
function onTerminal(args: string[]): Promise<{ code: number | null; screen: string; dir: string }> {
  const dir = tempDir('newsflow-tty-');
  const cmd = [process.execPath, bin, ...args, '--data-dir', dir].map((a) => `'${a}'`).join(' ');
  const p = spawn('script', ['-qec', cmd, '/dev/null'], {
    env: { ...process.env, NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '' },
  });
  let raw = '';
  p.stdout.on('data', (d) => (raw += d));
  p.stderr.on('data', (d) => (raw += d));
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, dir, screen: raw.replace(CSI, '').replace(/\r/g, '\n') })));
}

const ingest = ['run', 'news', '--from', '2022-07-08', '--to', '2022-07-09'];

describe('newsflow run on a terminal', () => {
  it('shows the bar and the result, no webpack report or worker records (they are in logs/worker.log), and exits 0', async () => {
    const r = await onTerminal(ingest);
    try {
      console.log(`exit ${r.code}; terminal lines: ${r.screen.split('\n').filter((l) => l.trim()).length}`);
      expect(r.code).toBe(0);
      expect(r.screen).toMatch(/newsIngest \[.*\] 100% 1\/1 done/);
      expect(r.screen).toMatch(/\{"loadId":"newsIngest-manual-\d+\/[^"]+","pages":1,"received":0,"inserted":0,"updated":0\}/);
      expect(r.screen).not.toMatch(/webpack|asset workflow-bundle|Workflow bundle created|Worker state changed/);
      expect(fs.readFileSync(path.join(r.dir, 'logs', 'worker.log'), 'utf8')).toMatch(/webpack \d+\.\d+\.\d+ compiled successfully/);
    } finally {
      fs.rmSync(r.dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('with --verbose shows the webpack report and the worker records too', async () => {
    const r = await onTerminal([...ingest, '--verbose']);
    try {
      expect(r.code, r.screen.slice(-3000)).toBe(0);
      expect(r.screen).toMatch(/webpack \d+\.\d+\.\d+ compiled successfully/);
      expect(r.screen).toMatch(/\[INFO\] Worker state changed/);
    } finally {
      fs.rmSync(r.dir, { recursive: true, force: true });
    }
  }, 180_000);
});
