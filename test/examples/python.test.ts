/**
 * examples/python: the script (DuckDB + polars) and the notebook read a seeded lake offline, the
 * extensions loaded by path from the install's files, and count what `newsflow sql` counts. Needs
 * the pinned Python packages (examples/python/requirements.txt): without them this fails.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { articlePage, landPage } from '../helpers/articles.js';
import { runCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/service.js';

const EXAMPLES = path.join(repoRoot, 'examples', 'python');
const python = (args: string[], env: Record<string, string> = {}, input?: string) => {
  const r = spawnSync('python3', args, { cwd: EXAMPLES, encoding: 'utf8', input, env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: r.status, out: r.stdout ?? '', err: (r.stderr ?? '') + (r.error ? String(r.error) : '') };
};

let dir: string;
beforeAll(async () => {
  dir = tempDir('newsflow-py-');
  const w = await Warehouse.open(dir);
  for (let day = 0; day < 3; day++) {
    const started = new Date();
    const counts = await landPage(w, articlePage(day, 40 + day * 7), `load-${day}`);
    await w.recordLoad(
      { loadId: `load-${day}`, pipeline: 'seed', kind: 'news', workflowId: null, runId: null, windowStart: null, windowEnd: null },
      counts,
      started,
    );
  }
  w.close();
}, 120_000);

describe('examples/python', () => {
  it('the pinned Python packages are installed (pip install -r examples/python/requirements.txt)', () => {
    const want = Object.fromEntries(
      fs
        .readFileSync(path.join(EXAMPLES, 'requirements.txt'), 'utf8')
        .split('\n')
        .filter((l) => /^[a-z]/.test(l))
        .map((l) => l.split('==') as [string, string]),
    );
    const r = python(['-c', 'import duckdb, polars, json; print(json.dumps({"duckdb": duckdb.__version__, "polars": polars.__version__}))']);
    expect(r.code, `${r.err}\ninstall them: python3 -m pip install -r examples/python/requirements.txt`).toBe(0);
    expect(JSON.parse(r.out)).toEqual(want);
  });

  it("lake_counts.py counts every table as newsflow sql does, offline (the install's extension files, autoinstall off)", async () => {
    const r = python(['lake_counts.py', '--warehouse', dir, '--json']);
    expect(r.code, r.err).toBe(0);
    const py = JSON.parse(r.out) as Record<string, number>;
    const tables = Object.keys(py);
    expect(tables).toEqual(expect.arrayContaining(['articles', 'article_entities', '_loads', '_schema_changes']));
    const q = tables.map((t) => `SELECT '${t}' AS t, count(*) AS n FROM "${t}"`).join(' UNION ALL ');
    const s = await runCli(['sql', `${q} ORDER BY t`, '--format', 'json', '--warehouse', dir]);
    expect(s.code, s.err).toBe(0);
    const cli = Object.fromEntries((JSON.parse(s.out) as { t: string; n: number }[]).map((x) => [x.t, x.n]));
    console.log(
      `python  ${JSON.stringify({ articles: py.articles, article_entities: py.article_entities, article_keywords: py.article_keywords, _loads: py._loads })}`,
    );
    console.log(
      `newsflow sql ${JSON.stringify({ articles: cli.articles, article_entities: cli.article_entities, article_keywords: cli.article_keywords, _loads: cli._loads })}`,
    );
    expect(py).toEqual(cli);
    expect(py.articles).toBe(40 + 47 + 54);
    // the human output: the table of counts and articles per day and language (polars)
    const human = python(['lake_counts.py', '--warehouse', dir]);
    expect(human.code, human.err).toBe(0);
    expect(human.out).toMatch(/articles\s+┆\s+141/);
    expect(human.out).toMatch(/2026-01-01/);
  }, 120_000);

  it('the notebook runs top to bottom on the same lake (its code cells, in order)', () => {
    const nb = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'lake.ipynb'), 'utf8')) as { cells: { cell_type: string; source: string[] }[] };
    const code = nb.cells
      .filter((c) => c.cell_type === 'code')
      .map((c) => c.source.join(''))
      .join('\n\n');
    const r = python(['-'], { NEWSFLOW_WAREHOUSE: dir }, `${code}\nprint('articles', arts.height)\nprint(loads)\n`);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('articles 141');
    expect(r.out).toMatch(/141 articles at snapshot \d+/);
  });

  it('newsflow sql --format parquet hands one file to any tool: polars reads the same rows and types', async () => {
    const out = path.join(tempDir('newsflow-pq-'), 'articles.parquet');
    // a UUID column is a Parquet UUID (16 bytes): polars reads it as binary, so the example casts it to text
    const q = 'SELECT article_id::VARCHAR AS article_id, title, pub_date, sentiment FROM articles ORDER BY pub_date, article_id';
    const r = await runCli(['sql', q, '--format', 'parquet', '--out', out, '--warehouse', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.err.trim()).toBe(`141 rows -> ${out}`);
    const py = python([
      '-c',
      `import polars as pl, json; d = pl.read_parquet(${JSON.stringify(out)}); print(json.dumps({"rows": d.height, "schema": {k: str(v) for k, v in d.schema.items()}, "first": d.row(0)[1]}))`,
    ]);
    expect(py.code, py.err).toBe(0);
    const first = await runCli(['sql', `${q} LIMIT 1`, '--format', 'json', '--warehouse', dir]);
    expect(JSON.parse(py.out)).toEqual({
      rows: 141,
      schema: { article_id: 'String', title: 'String', pub_date: "Datetime(time_unit='us', time_zone=None)", sentiment: 'Int32' },
      first: (JSON.parse(first.out) as { title: string }[])[0]!.title,
    });
    const bad = await runCli(['sql', q, '--format', 'parquet', '--warehouse', dir]);
    expect(bad.code).toBe(1);
    expect(bad.err.trim()).toBe('error: --format parquet writes a file: give it with --out, e.g. --out articles.parquet');
  }, 120_000);

  it('a warehouse folder without a lake is one line saying so', () => {
    const r = python(['lake_counts.py', '--warehouse', tempDir('newsflow-py-empty-'), '--json']);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toMatch(/^no warehouse under .* \(.*lake\.sqlite is created by the first pipeline run\)$/);
  });
});
