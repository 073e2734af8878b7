/**
 * `newsflow dbt init` on a seeded lake: the project it writes builds (`dbt build`) and its sources
 * are fresh (`dbt source freshness`), offline (the install's extension files, autoinstall off, an
 * empty HOME), and a model counts what `newsflow sql` counts. Needs the pinned Python packages
 * (examples/dbt/requirements.txt, installed by .ci/run): without them this fails.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { DIST_HIT_SHARE, DIST_METRICS, DIST_PAGES, DIST_TOP_ARTICLES } from '../../warehouse/tables/distribution.js';
import { PIPELINE_ARTICLES } from '../../warehouse/tables/pipelines.js';
import { extensionFile } from '../../warehouse/extensions.js';
import { loadedAtField } from '../../warehouse/dbt-project.js';
import { TABLES } from '../../warehouse/tables/index.js';
import { articlePage, landPage } from '../helpers/articles.js';
import { runCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/service.js';

const PROJECT = `warehouse:
  path: ./data
pipelines:
  - name: covid
    kind: news
    query: covid
  - name: ukraine
    kind: news
    query: Ukraine
  - name: my-domains
    kind: distribution
    domains: [a.example, b.example, c.example]
`;
const DOMAINS = ['a.example', 'b.example', 'c.example'];
/** the seeded articles per day: day d has 20 + 3d, landed by covid (even days) or ukraine (odd) */
const perDay = (d: number) => 20 + d * 3;
const DAYS = 10;

let root: string;
let home: string;
let dbtDir: string;
const dbtEnv = () => ({ HOME: home, DBT_USE_COLORS: 'false', DBT_SEND_ANONYMOUS_USAGE_STATS: 'false' });
/** dbt's CLI through the python3 that has the pinned packages (its `dbt` script may not be on PATH) */
const dbt = (args: string[]) => {
  const r = spawnSync('python3', ['-c', 'from dbt.cli.main import cli; cli()', ...args], {
    cwd: dbtDir,
    encoding: 'utf8',
    env: { ...process.env, ...dbtEnv() },
    timeout: 120_000,
  });
  return { code: r.status, out: (r.stdout ?? '') + (r.stderr ?? '') + (r.error ? String(r.error) : '') };
};
/** dbt's lines without their time stamps: the models, tests and sources it ran and its summary */
const summary = (out: string) =>
  out
    .split('\n')
    .map((l) => l.replace(/^\d\d:\d\d:\d\d\s+/, ''))
    .filter((l) => /OK created|PASS|WARN|ERROR|Finished running|Completed|Done\./.test(l));

beforeAll(async () => {
  root = tempDir('newsflow-dbt-');
  home = tempDir('newsflow-dbt-home-');
  fs.writeFileSync(path.join(root, 'newsflow.yaml'), PROJECT);
  const w = await Warehouse.open(path.join(root, 'data'));
  const meta = (loadId: string, pipeline: string, kind: string) => ({
    loadId,
    pipeline,
    kind,
    workflowId: null,
    runId: null,
    windowStart: null,
    windowEnd: null,
  });
  for (let day = 0; day < DAYS; day++) {
    const started = new Date();
    const page = articlePage(day, perDay(day));
    const pipeline = day % 2 ? 'ukraine' : 'covid';
    const counts = await landPage(w, page, `news-${day}`);
    await w.land(
      PIPELINE_ARTICLES,
      page.rows.map((r) => ({ pipeline, article_id: r.article_id })),
      [],
      `news-${day}`,
    );
    await w.recordLoad(meta(`news-${day}`, pipeline, 'news'), counts, started);
  }
  // three month windows of the distribution pipeline: hit share per domain, metrics, one top-articles page
  for (let m = 0; m < 3; m++) {
    const started = new Date();
    const base = { org_id: 'org-1', domain_set: DOMAINS.join(','), window_start: Date.UTC(2026, m, 1) * 1000, window_end: Date.UTC(2026, m + 1, 1) * 1000 };
    const id = `dist-${m}`;
    const share = DOMAINS.map((domain, i) => ({ ...base, domain, hit_share: (i + 1 + m) / 20, total_share: 0.5, raw: JSON.stringify({ domain }) }));
    const counts = await w.land(DIST_HIT_SHARE, share, [], id);
    await w.land(DIST_METRICS, [{ ...base, surfaces: 100 + m, citations: 10, full_text: 5, grounded: 1, raw: '{}' }], [], id);
    await w.land(
      DIST_TOP_ARTICLES,
      [{ ...base, metric: 'hits', article_id: `art-${m}`, article_url: null, hit_count: 7, page: 1, rank: 1, raw: '{}' }],
      [],
      id,
    );
    await w.land(DIST_PAGES, [{ ...base, metric: 'hits', page: 1, n: 1, total_count: 7, sum_hit_count: 7, next_page: null, raw: '{}' }], [], id);
    await w.recordLoad(meta(id, 'my-domains', 'distribution'), counts, started);
  }
  w.close();
}, 120_000);

describe('newsflow dbt init', () => {
  it('the pinned Python packages are installed (pip install -r examples/dbt/requirements.txt)', () => {
    const want = Object.fromEntries(
      fs
        .readFileSync(path.join(repoRoot, 'examples', 'dbt', 'requirements.txt'), 'utf8')
        .split('\n')
        .filter((l) => /^[a-z]/.test(l))
        .map((l) => l.split('==') as [string, string]),
    );
    const r = spawnSync(
      'python3',
      ['-c', 'import json; from importlib.metadata import version as v; print(json.dumps({n: v(n) for n in ("dbt-core", "dbt-duckdb", "duckdb")}))'],
      { encoding: 'utf8' },
    );
    expect(r.status, `${r.stderr}\ninstall them: python3 -m pip install -r examples/dbt/requirements.txt`).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(want);
  });

  it('writes a project beside the project file that dbt builds and finds fresh, offline; a model counts what newsflow sql counts', async () => {
    const config = path.join(root, 'newsflow.yaml');
    const init = await runCli(['dbt', 'init', '--config', config], {}, { cwd: root });
    expect(init.code, init.err).toBe(0);
    dbtDir = path.join(root, 'dbt');
    expect(init.out).toContain('wrote dbt/profiles.yml');
    for (const f of [
      'dbt_project.yml',
      'profiles.yml',
      'models/sources.yml',
      'models/daily_coverage.sql',
      'models/entity_trends_weekly.sql',
      'models/distribution_hit_share_monthly.sql',
    ])
      expect(fs.existsSync(path.join(dbtDir, f)), f).toBe(true);
    const sources = fs.readFileSync(path.join(dbtDir, 'models', 'sources.yml'), 'utf8');
    // every warehouse table, with its description
    for (const t of ['articles', 'article_entities', 'distribution_hit_share', 'stories', 'index_counts', 'sources', 'alert_deliveries', '_loads'])
      expect(sources, t).toContain(`      - name: ${t}\n`);
    expect(sources).toContain('description: "one row per article seen by news ingest (merge on article_id)"');

    const build = dbt(['build']);
    console.log(`dbt build\n${summary(build.out).join('\n')}`);
    expect(build.code, build.out).toBe(0);
    expect(build.out).toMatch(/Done\. PASS=11 WARN=0 ERROR=0 SKIP=0/);

    const fresh = dbt(['source', 'freshness']);
    console.log(`dbt source freshness\n${summary(fresh.out).join('\n')}`);
    expect(fresh.code, fresh.out).toBe(0);
    // the tables the project's pipelines land (news, distribution) and _loads: fresh; the others have no freshness
    const checked = [...fresh.out.matchAll(/PASS freshness of newsflow\.(\w+)/g)].map((m) => m[1]).sort();
    expect(checked).toEqual(
      [
        '_loads',
        'article_classifications',
        'article_entities',
        'article_keywords',
        'articles',
        'distribution_hit_share',
        'distribution_metrics',
        'distribution_pages',
        'distribution_top_articles',
        'pipeline_articles',
      ].sort(),
    );

    // offline: nothing in HOME (no ~/.duckdb download cache); the extensions are the install's files
    expect(fs.readdirSync(home)).toEqual([]);
    const copied = path.join(dbtDir, 'target', 'duckdb_extensions', 'v1.5.5');
    const platform = fs.readdirSync(copied)[0]!;
    expect(fs.statSync(path.join(copied, platform, 'ducklake.duckdb_extension')).size).toBe(fs.statSync(extensionFile('ducklake')).size);

    // daily_coverage, as dbt built it, and the same question to newsflow sql
    const model = spawnSync(
      'python3',
      [
        '-c',
        `import duckdb, json; c = duckdb.connect(${JSON.stringify(path.join(dbtDir, 'newsflow.duckdb'))}, read_only=True); print(json.dumps([dict(zip(("pipeline", "day", "articles", "domains"), r)) for r in c.sql("SELECT pipeline, day::VARCHAR, articles, domains FROM daily_coverage ORDER BY day, pipeline").fetchall()]))`,
      ],
      { encoding: 'utf8', env: { ...process.env, HOME: home } },
    );
    expect(model.status, model.stderr).toBe(0);
    const fromDbt = JSON.parse(model.stdout) as { pipeline: string; day: string; articles: number; domains: number }[];
    const q =
      'SELECT pa.pipeline, CAST(a.pub_date AS DATE)::VARCHAR AS day, count(*) AS articles, count(DISTINCT a.domain_url) AS domains FROM pipeline_articles pa JOIN articles a USING (article_id) GROUP BY ALL ORDER BY day, pipeline';
    const s = await runCli(['sql', q, '--format', 'json', '--config', config], {}, { cwd: root });
    expect(s.code, s.err).toBe(0);
    const fromSql = JSON.parse(s.out) as typeof fromDbt;
    console.log(`dbt daily_coverage ${JSON.stringify(fromDbt.slice(0, 3))} ... (${fromDbt.length} rows)`);
    console.log(`newsflow sql       ${JSON.stringify(fromSql.slice(0, 3))} ... (${fromSql.length} rows)`);
    expect(fromDbt).toEqual(fromSql);
    expect(fromDbt.map((r) => r.articles)).toEqual(Array.from({ length: DAYS }, (_, d) => perDay(d)));
    expect(fromDbt.map((r) => r.pipeline)).toEqual(Array.from({ length: DAYS }, (_, d) => (d % 2 ? 'ukraine' : 'covid')));
  }, 240_000);

  it("every table's loaded_at_field is a time the lake answers (newsflow sql runs each, empty tables included)", async () => {
    const exprs = TABLES.map((t) => [t.name, loadedAtField(t, TABLES)] as const);
    expect(exprs.filter(([, e]) => !e).map(([n]) => n)).toEqual([]);
    const q = exprs.map(([t, e]) => `SELECT '${t}' AS t, max(${e})::VARCHAR AS at FROM lake.main.${t}`).join(' UNION ALL ');
    const r = await runCli(['sql', `${q} ORDER BY t`, '--format', 'json', '--config', path.join(root, 'newsflow.yaml')], {}, { cwd: root });
    expect(r.code, r.err).toBe(0);
    const at = Object.fromEntries((JSON.parse(r.out) as { t: string; at: string | null }[]).map((x) => [x.t, x.at]));
    expect(Object.keys(at).sort()).toEqual(TABLES.map((t) => t.name).sort());
    // landed: the time of their last load; child tables their parent's; never landed: none
    const [last] = JSON.parse(
      (
        await runCli(
          ['sql', "SELECT max(finished_at)::VARCHAR AS at FROM _loads WHERE kind = 'news'", '--format', 'json', '--config', path.join(root, 'newsflow.yaml')],
          {},
          { cwd: root },
        )
      ).out,
    ) as { at: string }[];
    expect(at.articles).toBe(last!.at);
    expect(at.article_entities).toBe(last!.at);
    expect(at.stories).toBeNull();
    expect(at.update_articles).toBeNull();
  });

  it('a pipeline of the project that never landed: its tables are stale, and dbt source freshness fails', async () => {
    const config = path.join(root, 'stale.yaml');
    fs.writeFileSync(config, `${PROJECT}  - name: top\n    kind: stories\n    trackers:\n      - { name: top, strategy: topstories, stories: 20 }\n`);
    const dir = path.join(root, 'dbt-stale');
    const init = await runCli(['dbt', 'init', '--config', config, '--dir', dir], {}, { cwd: root });
    expect(init.code, init.err).toBe(0);
    const r = spawnSync(
      'python3',
      ['-c', 'from dbt.cli.main import cli; cli()', 'source', 'freshness', '--select', 'source:newsflow.stories', 'source:newsflow.articles'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, ...dbtEnv() },
        timeout: 120_000,
      },
    );
    const out = r.stdout + r.stderr;
    console.log(`dbt source freshness (a stories pipeline that never ran)\n${summary(out).join('\n')}`);
    expect(r.status, out).toBe(1);
    expect(out).toMatch(/ERROR STALE freshness of newsflow\.stories/);
    expect(out).toMatch(/PASS freshness of newsflow\.articles/);
  }, 120_000);

  it('refuses to write over a folder that exists, without --force: one line', async () => {
    const dir = tempDir('newsflow-dbt-again-');
    fs.writeFileSync(path.join(dir, 'newsflow.yaml'), PROJECT);
    fs.mkdirSync(path.join(dir, 'dbt'));
    fs.writeFileSync(path.join(dir, 'dbt', 'mine.sql'), 'select 1');
    const r = await runCli(['dbt', 'init', '--config', path.join(dir, 'newsflow.yaml')], {}, { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe('error: dbt exists already; remove it, choose another --dir, or add --force to write the dbt project over it');
    expect(fs.readdirSync(path.join(dir, 'dbt'))).toEqual(['mine.sql']);
    const forced = await runCli(['dbt', 'init', '--config', path.join(dir, 'newsflow.yaml'), '--dir', 'dbt', '--force'], {}, { cwd: dir });
    expect(forced.code, forced.err).toBe(0);
    expect(fs.existsSync(path.join(dir, 'dbt', 'profiles.yml'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'dbt', 'mine.sql'), 'utf8')).toBe('select 1');
  });
});
