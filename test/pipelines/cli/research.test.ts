/** `newsflow research`: a research run through its own dev server and worker, a line per round, the rows landed; bad options refused before anything starts. */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NOW } from '../../helpers/news.js';
import { startTestService, tempDir } from '../../helpers/service.js';
import { bin, runCli } from '../../helpers/cli.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

const Q = 'What happened after Shinzo Abe was shot?';

describe('newsflow research', () => {
  it('prints a line per round and the result, lands the run and its sources, then prints the report', async () => {
    const svc = await startTestService({
      corpusStore: await seededCorpusStore(),
      clock: () => NOW,
      limitsText: 'deepnews=1000:1000:10,chat=1000:1000:10,news=1000:1000:50',
      // each DeepNews answer takes a moment, as a real agent's does, so every round is seen in progress
      configure: (app) =>
        app.addHook('preHandler', async (req) => {
          if (req.url.startsWith('/v1/chat/deepnews')) await new Promise((r) => setTimeout(r, 1500));
        }),
    });
    const dir = tempDir('newsflow-research-cli-');
    try {
      const r = await runCli(['research', Q, '--depth', '2', '--sources', 'asknews', '--data-dir', dir], {
        NEWSFLOW_API_URL: svc.url,
        NEWSFLOW_API_KEY: svc.keys.org!,
        TEMPORAL_ADDRESS: '',
        NEWSFLOW_LOG_LEVEL: 'warn',
        NEWSFLOW_LIMITS: 'deepnews=1000:1000:10',
      });
      expect(r.code, r.err.slice(-800)).toBe(0);
      expect(r.err).toMatch(/research: round 1\/2 done, \d+ sources/);
      expect(r.err).toMatch(/research: round 2\/2 done, \d+ sources/);
      const [first, ...rest] = r.out.trim().split('\n');
      const result = JSON.parse(first!) as { runId: string; rounds: number; sources: number; reportChars: number };
      expect(result).toMatchObject({ rounds: 2 });
      expect(result.runId).toMatch(/^deepResearch-manual-/);
      expect(result.sources).toBeGreaterThan(0);
      expect(rest.join('\n')).toMatch(/\[1\] .+ \(news\) https?:\/\//);
      const q = spawnSync(
        process.execPath,
        [
          bin,
          'sql',
          'SELECT r.question, r.status, r.rounds_done, r.n_sources, count(s.citation) AS cited FROM research_runs r JOIN research_sources s USING (run_id) GROUP BY ALL',
          '--format',
          'json',
          '--warehouse',
          dir,
        ],
        { encoding: 'utf8' },
      );
      expect(q.status, q.stderr).toBe(0);
      expect(JSON.parse(q.stdout)).toEqual([{ question: Q, status: 'complete', rounds_done: 2, n_sources: result.sources, cited: result.sources }]);
    } finally {
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses a bad --depth, unknown --sources and bad --filters with a clear message', () => {
    const dir = tempDir('newsflow-research-cli-');
    const run = (extra: string[]) =>
      spawnSync(process.execPath, [bin, 'research', Q, ...extra, '--data-dir', dir], { encoding: 'utf8', env: { ...process.env, NEWSFLOW_API_KEY: 'x' } });
    const d = run(['--depth', '0']);
    expect(d.status).not.toBe(0);
    expect(d.stderr).toMatch(/--depth must be an integer 1\.\.190/);
    const s = run(['--sources', 'asknews,carrier-pigeon']);
    expect(s.status).not.toBe(0);
    expect(s.stderr).toMatch(/unknown --sources carrier-pigeon; sources: asknews, /);
    const f = run(['--filters', '{nope']);
    expect(f.status).not.toBe(0);
    expect(f.stderr).toMatch(/--filters must be a JSON object/);
    for (const x of [d, s, f]) expect(x.stderr).not.toMatch(/\n\s+at /);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
