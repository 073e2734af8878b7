/** `newsflow run index-counts`: one window through its own dev server and worker; bad input is refused before anything starts. */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NewsClient } from '../../../client/index.js';
import { startCorpusService } from '../../helpers/news.js';
import { tempDir } from '../../helpers/service.js';
import { bin, runCli } from '../../helpers/cli.js';

describe('newsflow run index-counts', () => {
  it('samples a window per domain with filters, prints the result and lands the API buckets', async () => {
    const svc = await startCorpusService();
    const dir = tempDir('newsflow-runcounts-');
    const api = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org });
    try {
      const filters = { sentiment: 'negative', time_filter: 'crawl_date' } as const;
      const r = await runCli(
        [
          'run',
          'index-counts',
          '--sampling',
          '1d',
          '--from',
          '2022-06-20',
          '--to',
          '2022-07-11',
          '--domains',
          'reuters.com,bbc.co.uk',
          '--filters',
          JSON.stringify(filters),
          '--data-dir',
          dir,
        ],
        { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '', NEWSFLOW_LOG_LEVEL: 'warn' },
      );
      expect(r.code, r.err.slice(-500)).toBe(0);
      const result = JSON.parse(r.out.trim().split('\n').pop()!);
      expect(result).toMatchObject({ domains: 2, buckets: 2 * 21, inserted: 2 * 21, updated: 0 });
      expect(r.err).toMatch(/"msg":"indexCountSampler"/); // plain progress lines when not a terminal
      const expected: string[] = [];
      for (const d of ['bbc.co.uk', 'reuters.com']) {
        for (const i of await api.getIndexCounts({
          ...filters,
          sampling: '1d',
          start_datetime: '2022-06-20T00:00:00Z',
          end_datetime: '2022-07-11T00:00:00Z',
          domains: [d],
        }))
          expected.push(`${d} ${i.start.slice(0, 10)} ${i.count}`);
      }
      expect(result.articles).toBe(expected.reduce((n, e) => n + Number(e.split(' ')[2]), 0));
      const q = spawnSync(
        process.execPath,
        [bin, 'sql', "SELECT domain, strftime(bucket_start, '%Y-%m-%d') AS day, count FROM index_counts ORDER BY 1, 2", '--format', 'json', '--warehouse', dir],
        { encoding: 'utf8' },
      );
      expect(q.status, q.stderr).toBe(0);
      expect((JSON.parse(q.stdout) as { domain: string; day: string; count: number }[]).map((x) => `${x.domain} ${x.day} ${x.count}`)).toEqual(expected);
    } finally {
      await api.close();
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses an unknown sampling and bad filters with a clear message', () => {
    const dir = tempDir('newsflow-runcounts-');
    const run = (extra: string[]) =>
      spawnSync(process.execPath, [bin, 'run', 'index-counts', '--from', '2022-07-01', '--to', '2022-07-02', ...extra, '--data-dir', dir], {
        encoding: 'utf8',
      });
    const s = run(['--sampling', '2d']);
    expect(s.status).not.toBe(0);
    expect(s.stderr).toMatch(/unknown --sampling "2d"; samplings: 5m, 1h, 12h, 1d, 1w, 1m/);
    const j = run(['--filters', '{languages:']);
    expect(j.status).not.toBe(0);
    expect(j.stderr).toMatch(/--filters: .*JSON/);
    const f = run(['--filters', '{"languages":["xx"]}']);
    expect(f.status).not.toBe(0);
    expect(f.stderr).toMatch(/--filters: invalid index-count filters: languages/);
    expect(f.stderr).not.toMatch(/\n\s+at /);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
