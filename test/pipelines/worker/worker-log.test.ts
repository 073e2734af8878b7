/** The worker's log: everything to <data dir>/logs/worker.log; the terminal sees errors only, or everything with --verbose. */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerLog, workerLogFile } from '../../../pipelines/worker/log.js';
import { tempDir } from '../../helpers/service.js';

/** A stderr stand-in: a terminal or not, collecting what is written. */
function stream(isTTY: boolean) {
  const out: string[] = [];
  return { out, s: { isTTY, write: (t: string) => out.push(t) } as unknown as NodeJS.WriteStream };
}
const REPORT = 'asset workflow-bundle-1.js 1.63 MiB [emitted]\nwebpack 5.112.2 compiled successfully in 858 ms';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function write(opts: { isTTY: boolean; verbose?: boolean }) {
  const dir = tempDir('newsflow-wlog-');
  dirs.push(dir);
  const { out, s } = stream(opts.isTTY);
  const log = new WorkerLog(dir, { verbose: opts.verbose, stream: s });
  log.bundler.info(REPORT);
  log.info('Worker state changed', { state: 'RUNNING' });
  log.warn('Activity failed', { error: new Error('search_news: HTTP 503') });
  log.error('Worker failed', { error: new Error('boom') });
  const file = fs
    .readFileSync(workerLogFile(dir), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { printed: out.join(''), file };
}

describe('worker log', () => {
  it('on a terminal prints errors only: no webpack report, no info or warnings; the file has every record as JSON', () => {
    const { printed, file } = write({ isTTY: true });
    expect(printed).not.toMatch(/webpack|asset workflow-bundle|Worker state changed|Activity failed/);
    expect(printed).toMatch(/"level":"ERROR","msg":"Worker failed"/);
    expect(file.map((r) => [r.level, r.msg.split('\n')[0]])).toEqual([
      ['INFO', 'asset workflow-bundle-1.js 1.63 MiB [emitted]'],
      ['INFO', 'Worker state changed'],
      ['WARN', 'Activity failed'],
      ['ERROR', 'Worker failed'],
    ]);
    expect(file[2].error).toMatchObject({ name: 'Error', message: 'search_news: HTTP 503' });
  });

  it('with --verbose prints everything, the webpack report included', () => {
    const { printed } = write({ isTTY: true, verbose: true });
    expect(printed).toMatch(/webpack 5\.112\.2 compiled successfully/);
    expect(printed).toMatch(/\[INFO\] Worker state changed/);
    expect(printed).toMatch(/\[WARN\] Activity failed/);
  });

  it('when stderr is not a terminal prints one JSON line per record, but not the webpack report', () => {
    const { printed } = write({ isTTY: false });
    expect(printed).not.toMatch(/webpack/);
    const lines = printed
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual(['Worker state changed', 'Activity failed', 'Worker failed']);
  });
});
