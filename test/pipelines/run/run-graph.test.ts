/** `newsflow run graph`: one graph through its own dev server and worker, landed in graph_nodes / graph_edges and written to --out. */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startCorpusService } from '../../helpers/news.js';
import { tempDir } from '../../helpers/service.js';
import { bin, runCli } from '../../helpers/cli.js';

describe('newsflow run graph', () => {
  it('builds the graph of a query, lands its nodes and edges, writes --out, and SQL over them returns the entities', async () => {
    const svc = await startCorpusService();
    const dir = tempDir('newsflow-rungraph-');
    const out = path.join(dir, 'graph.json');
    try {
      const r = await runCli(
        ['run', 'graph', '--query', 'Ukraine Russia talks', '--from', '2021-11-15', '--to', '2022-02-24', '--visualize', '--out', out, '--data-dir', dir],
        { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '', NEWSFLOW_LOG_LEVEL: 'warn' },
      );
      expect(r.code, r.err.slice(-800)).toBe(0);
      const result = JSON.parse(r.out.trim().split('\n').pop()!);
      expect(result).toMatchObject({ query: 'Ukraine Russia talks', articles: 50, updated: 0 });
      expect(result.nodes).toBeGreaterThan(10);
      expect(result.inserted).toBe(result.nodes + result.edges);
      expect(result.visualize_url).toMatch(/\/v1\/news\/graph\/[0-9a-f-]{36}\/view$/);
      expect(result.runId).toMatch(/^entityGraph-manual-/);

      const file = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(file).toMatchObject({ run_id: result.runId, query: 'Ukraine Russia talks', visualize_url: result.visualize_url });
      expect(file.nodes).toHaveLength(result.nodes);
      expect(file.edges).toHaveLength(result.edges);
      expect(file.nodes.find((n: { id: string }) => n.id === 'Vladimir Putin')).toMatchObject({ type: 'Person', aliases: ['Putin'] });

      const sql = (q: string) => {
        const s = spawnSync(process.execPath, [bin, 'sql', q, '--format', 'json', '--warehouse', dir], { encoding: 'utf8' });
        expect(s.status, s.stderr).toBe(0);
        return JSON.parse(s.stdout) as Record<string, unknown>[];
      };
      const people = sql("SELECT node_id FROM graph_nodes WHERE type = 'Person' ORDER BY sources DESC, node_id").map((x) => x.node_id);
      expect(people).toEqual(expect.arrayContaining(['Vladimir Putin', 'Biden']));
      const countries = sql("SELECT node_id FROM graph_nodes WHERE detailed_type = 'Country'").map((x) => x.node_id);
      expect(countries).toEqual(expect.arrayContaining(['Ukraine', 'Russia', 'United States']));
      const putinEdges =
        sql(`SELECT e.label, e.weight, n.type AS other_type FROM graph_edges e JOIN graph_nodes n ON n.run_id = e.run_id AND n.node_id = e.to_id
        WHERE e.from_id = 'Biden' AND e.to_id = 'Vladimir Putin' AND e.label <> 'co-occurs'`);
      expect(putinEdges.length).toBeGreaterThan(0);
      expect(putinEdges[0]).toMatchObject({ other_type: 'Person' });
      const loads = sql("SELECT pipeline, rows_received, rows_inserted FROM _loads WHERE pipeline = 'graph'");
      expect(loads).toEqual([{ pipeline: 'graph', rows_received: result.nodes + result.edges, rows_inserted: result.inserted }]);
    } finally {
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses a missing query and bad options with a clear message, before anything starts', () => {
    const dir = tempDir('newsflow-rungraph-');
    const run = (extra: string[]) => spawnSync(process.execPath, [bin, 'run', 'graph', ...extra, '--data-dir', dir], { encoding: 'utf8' });
    const q = run([]);
    expect(q.status).not.toBe(0);
    expect(q.stderr).toMatch(/--query is required for graph/);
    const f = run(['--query', 'x', '--filters', '{oops']);
    expect(f.stderr).toMatch(/--filters is not JSON/);
    const p = run(['--query', 'x', '--min-cluster-probability', '2']);
    expect(p.stderr).toMatch(/--min-cluster-probability must be a number from 0 to 1/);
    expect(p.stderr).not.toMatch(/\n\s+at /);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
