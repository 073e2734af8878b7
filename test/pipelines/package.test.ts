/**
 * newsflow as a team installs it: `npm pack` (its prepack build: JavaScript and .d.ts in dist/),
 * then in an empty folder outside the repository `npm install <the tarball>`, `npx newsflow init`,
 * `npx newsflow config check` and `npx newsflow start` land rows of the starter file's two named
 * news pipelines; the custom-pipeline example, installed from the same tarball, runs under
 * `newsflow worker` and lands its own table. The install takes no variable and reaches only the
 * package registries (onnxruntime-node comes as its npm tarball, without its NuGet download: see
 * scripts/fetch-onnxruntime.sh), and the service it starts embeds with MiniLM on it. The package is
 * packed from a copy of the repository's files, so the checkout's own dist/ is never touched.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot, sharedDir } from '../helpers/paths.js';
import { tempDir } from '../helpers/service.js';
import { waitUntil } from '../helpers/wait-until.js';

const work = tempDir('newsflow-package-');
const children: ChildProcess[] = [];
let tarball = '';
let install = '';
/** the API the start below runs, for the example after it */
const started = { api: '', key: '' };
// the environment of a user's shell: nothing of the test run's newsflow settings
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of Object.keys(e)) if (/^(NEWSFLOW_|TEMPORAL_|ONNXRUNTIME_)/.test(k) && !(k in extra)) delete e[k];
  delete e.NODE_OPTIONS;
  return e;
};
const npx = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
  spawnSync('npx', ['--no-install', 'newsflow', ...args], { cwd, env: env(extra), encoding: 'utf8' });
const sqlRows = (cwd: string, q: string, extra: Record<string, string> = {}) => {
  const r = npx(cwd, ['sql', q, '--format', 'json'], extra);
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
};
function background(cwd: string, args: string[], extra: Record<string, string> = {}) {
  const child = spawn('npx', ['--no-install', 'newsflow', ...args], { cwd, env: env(extra), detached: true });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, out: () => out };
}

beforeAll(async () => {
  // a copy of what git tracks, packed there (prepack builds its dist/)
  const stage = path.join(work, 'stage');
  for (const f of execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean)) {
    if (!fs.existsSync(path.join(repoRoot, f))) continue;
    fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, f), path.join(stage, f));
  }
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(stage, 'node_modules'));
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: stage, env: env(), encoding: 'utf8' });
  expect(packed.status, packed.stderr).toBe(0);
  tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  for (const f of ['package/dist/client/index.js', 'package/dist/client/index.d.ts', 'package/dist/warehouse/index.d.ts', 'package/newsflow.schema.json'])
    expect(listing).toContain(f);
  expect(listing).not.toMatch(/^package\/(test|bench|service|pipelines)\//m);
  // an empty folder outside the repository
  install = path.join(work, 'team');
  fs.mkdirSync(install);
  const npmi = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: install, env: env(), encoding: 'utf8' });
  expect(npmi.status, npmi.stderr.slice(-2000)).toBe(0);
  // the CPU runtime of MiniLM, from the npm registry, and none of onnxruntime-node's GPU files
  const ort = path.join(install, 'node_modules', 'newsflow', '.onnxruntime', 'onnxruntime-node');
  expect(fs.existsSync(path.join(ort, 'bin', 'napi-v6', process.platform, process.arch, 'onnxruntime_binding.node'))).toBe(true);
  expect(fs.existsSync(path.join(install, 'node_modules', 'onnxruntime-node'))).toBe(false);
  console.log(`packed ${path.basename(tarball)} (${(fs.statSync(tarball).size / 1024).toFixed(0)} KB) and installed it in a fresh folder`);
}, 600_000);

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    try {
      process.kill(-c.pid!, 'SIGINT');
    } catch {
      /* gone */
    }
    const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
    if (!gone) {
      // what a stop that did not end in 20 s left running (its dev server, its workers)
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  // a process of the group may still be closing its files: ENOTEMPTY/EBUSY are retried
  fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
}, 90_000);

describe('the package', () => {
  it('installs with a plain npm install and answers npx newsflow --help', () => {
    const help = npx(install, ['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: newsflow /m);
  });

  it('exports its public pieces, with types', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(install, 'node_modules', 'newsflow', 'package.json'), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(['./client', './warehouse', './activities', './workflows', './config']));
    const probe = path.join(install, 'probe.mjs');
    fs.writeFileSync(
      probe,
      `const [c, w, a, f, k] = await Promise.all(['newsflow/client', 'newsflow/warehouse', 'newsflow/activities', 'newsflow/workflows', 'newsflow/config'].map((m) => import(m)));
console.log(JSON.stringify([typeof c.NewsClient, typeof w.Warehouse, typeof w.defineTable, typeof a.createNewsIngestActivities, typeof a.definePipelines, typeof f.newsIngest, typeof k.loadProject]));`,
    );
    const r = spawnSync(process.execPath, [probe], { cwd: install, env: env(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(Array(7).fill('function'));
  });

  it('init, config check, then start: rows of the two named news pipelines land', async () => {
    const init = npx(install, ['init', '--force']);
    expect(init.status, init.stderr).toBe(0);
    const check = npx(install, ['config', 'check']);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^newsflow\.yaml: ok, 6 pipeline\(s\)/);
    const start = background(install, ['start', '--port', '0'], { NEWSFLOW_CORPUS: path.join(sharedDir, 'data') });
    await waitUntil(() => /^Ctrl-C stops everything\.$/m.test(start.out()) || start.child.exitCode !== null, { what: 'start up', timeoutMs: 240_000 });
    expect(start.child.exitCode, start.out().slice(-2000)).toBeNull();
    // MiniLM on the fetched onnxruntime, not the USE-lite fallback
    expect(start.out()).not.toMatch(/USE-lite/);
    const per = await waitUntil(
      () => {
        try {
          const rows = sqlRows(install, 'SELECT pipeline, count(*) AS n FROM pipeline_articles GROUP BY 1 ORDER BY 1');
          return rows.length === 2 ? rows : false;
        } catch {
          return false; // the lake is created by the first landing
        }
      },
      { what: 'both news pipelines landed', timeoutMs: 240_000, intervalMs: 2000 },
    );
    console.log(`SELECT pipeline, count(*) FROM pipeline_articles GROUP BY 1 -> ${JSON.stringify(per)}`);
    expect(per.map((r) => r.pipeline)).toEqual(['covid', 'ukraine']);
    for (const r of per) expect(Number(r.n)).toBeGreaterThan(0);
    // the terminal says where the API and Temporal are: the example below runs against them
    started.api = /export NEWSFLOW_API_URL=(\S+)/.exec(start.out())?.[1] ?? '';
    started.key = /export NEWSFLOW_API_KEY=(\S+)/.exec(start.out())?.[1] ?? '';
  }, 600_000);

  it('the custom-pipeline example runs under newsflow worker and lands its own table', async () => {
    const { api, key } = started;
    expect(api && key).toBeTruthy();
    const ex = path.join(work, 'example');
    fs.cpSync(path.join(install, 'node_modules', 'newsflow', 'examples', 'custom-pipeline'), ex, { recursive: true });
    fs.symlinkSync(path.join(install, 'node_modules'), path.join(ex, 'node_modules'));
    // the test run's Temporal server, in a namespace of this file's own (the start above has a dev server of its own)
    const temporal = { TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: 'nf-package', NEWSFLOW_API_URL: api, NEWSFLOW_API_KEY: key };
    const check = npx(ex, ['config', 'check'], temporal);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('queries: queries (workflow): your workflow pullQueries, every 1h');
    const worker = background(ex, ['worker'], temporal);
    await waitUntil(() => /worker running on/.test(worker.out()) || worker.child.exitCode !== null, { what: 'the worker', timeoutMs: 180_000 });
    expect(worker.child.exitCode, worker.out().slice(-2000)).toBeNull();
    const run = npx(ex, ['run', 'queries'], temporal);
    expect(run.status, `${run.stderr}\n${worker.out().slice(-2000)}`).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as { counts: Record<string, number> };
    expect(Object.keys(result.counts)).toEqual(['Ukraine', 'covid', 'inflation']);
    const rows = sqlRows(ex, 'SELECT query, articles FROM query_counts ORDER BY query', temporal);
    console.log(`query_counts: ${JSON.stringify(rows)}`);
    expect(rows.map((r) => [r.query, Number(r.articles)])).toEqual(Object.entries(result.counts).sort(([a], [b]) => (a < b ? -1 : 1)));
    expect(sqlRows(ex, "SELECT pipeline, kind FROM _loads WHERE kind = 'pull-queries'", temporal)).toEqual([{ pipeline: 'queries', kind: 'pull-queries' }]);
  }, 600_000);
});
