/**
 * Lake maintenance beyond the SQLite catalog and local files (issue #31): `newsflow warehouse
 * maintain` (--dry-run, then the real run) on
 * - a lake whose catalog is PostgreSQL (the project's NEWSFLOW_LAKE_CATALOG): the temporal-postgres
 *   project's PostgreSQL (vitest.config.ts), else a throwaway cluster of this file's own;
 * - a lake whose data path is S3 (NEWSFLOW_LAKE_DATA=s3://…): moto's S3 server on loopback
 *   (PyPI `moto[server]`, test/warehouse/requirements.txt), its endpoint and keys in a DuckDB
 *   persistent secret, as a user would give theirs.
 * Each lands pages with updates, then checks the dry run changed nothing, the real run left one
 * file per table with every row and hash as before, and the catalog no longer lists the merged
 * files (the PostgreSQL catalog's rows, the S3 bucket's objects).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadExtensions } from '../../warehouse/extensions.js';
import { openLake, type LakeOptions } from '../../warehouse/lake.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { freePort } from '../../temporal/ports.js';
import { startPostgres, type PgEndpoint } from '../../temporal/postgres.js';
import { landPage } from '../helpers/articles.js';
import { runPage } from '../helpers/lake-updater.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/service.js';
import { waitUntil } from '../helpers/wait-until.js';

const RUNS = 6;
const TABLES = ['articles', 'article_entities', 'article_keywords', 'article_classifications'];
const roots: string[] = [];
const made = (prefix: string) => {
  const d = tempDir(prefix);
  roots.push(d);
  return d;
};
afterAll(() => {
  for (const d of roots) fs.rmSync(d, { recursive: true, force: true });
});

/** Per table: rows and an order-free hash of every row. */
async function fingerprint(o: LakeOptions): Promise<Record<string, string>> {
  const l = await openLake({ ...o, readOnly: true });
  try {
    const out: Record<string, string> = {};
    for (const t of TABLES) {
      const r = (await l.conn.runAndReadAll(`SELECT count(*) AS n, sum(hash(*COLUMNS(*))::HUGEINT) AS h FROM ${t}`)).getRowObjectsJS()[0]!;
      out[t] = `${r.n} ${r.h}`;
    }
    return out;
  } finally {
    l.close();
  }
}

/**
 * Land RUNS pages (each with updates of the run before), one `_loads` row each. With `files`, the
 * news tables' inlining limit is set to 0 by hand first: several files per news table to rewrite
 * and merge; without, the pages stay in the catalog (newsflow's limit) for the flush.
 */
async function landRuns(dir: string, lake: Partial<LakeOptions>, files: boolean): Promise<void> {
  if (files) {
    (await Warehouse.open(dir, lake)).close();
    const l = await openLake({ ...lake, dir });
    try {
      for (const t of TABLES) await l.conn.run(`CALL lake.set_option('data_inlining_row_limit', 0, table_name => '${t}')`);
    } finally {
      l.close();
    }
  }
  const w = await Warehouse.open(dir, lake);
  try {
    for (let r = 0; r < RUNS; r++) {
      const loadId = `run-${r}`;
      const counts = await landPage(w, runPage(r, 40, 0, 10, 0), loadId);
      await w.recordLoad({ loadId, pipeline: 'p', kind: 'news', workflowId: null, runId: null, windowStart: null, windowEnd: null }, counts, new Date());
    }
  } finally {
    w.close();
  }
}

/** The dry run, then the real run, through the CLI with `env` (the project's lake): their output. */
async function maintainBoth(dir: string, env: Record<string, string>, before: Record<string, string>, lake: LakeOptions, files: boolean) {
  const dry = await runCli(['warehouse', 'maintain', '--dry-run', '--retention', '0', '--warehouse', dir], env);
  console.log(dry.out);
  expect(dry.err).toBe('');
  expect(dry.code).toBe(0);
  // files to merge, or the pages' 240 articles inlined in the catalog
  expect(dry.out).toMatch(files ? new RegExp(`^articles\\s+${RUNS}\\s+\\d+\\s+\\d+\\s+\\d+\\s+0$`, 'm') : /^articles\s+0\s+240\s+0\s+0\s+0$/m);
  expect(await fingerprint(lake)).toEqual(before);
  const real = await runCli(['warehouse', 'maintain', '--retention', '0', '--grace', '0', '--warehouse', dir], env);
  console.log(real.out);
  expect(real.err).toBe('');
  expect(real.code).toBe(0);
  for (const t of TABLES) expect(real.out).toMatch(new RegExp(`^${t}\\s+${files ? RUNS : 0}\\s+1\\s+\\d+$`, 'm'));
  expect(real.out).toMatch(/snapshots expired \(retention 0 days\); [1-9]\d* files deleted/);
  expect(await fingerprint(lake)).toEqual(before);
  // the warehouse folder holds no SQLite lake of its own: the run used the project's lake
  expect(fs.existsSync(path.join(dir, 'lake.sqlite'))).toBe(false);
  return real.out;
}

describe('lake maintenance on a PostgreSQL catalog and an S3 data path', () => {
  let pg: PgEndpoint | null = null;
  let pgUrl = '';
  let moto: ChildProcess | null = null;
  let s3 = '';
  beforeAll(async () => {
    pgUrl = inject('pgUrl');
    if (!pgUrl) {
      pg = await startPostgres({ dataDir: made('newsflow-maint-pg-'), unsafeFast: true });
      pgUrl = `postgres://${pg.user}@${pg.host}:${pg.port}`;
    }
    const port = await freePort();
    moto = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    s3 = `127.0.0.1:${port}`;
    // the bucket (moto takes any keys); ready when it answers
    await waitUntil(async () => (await fetch(`http://${s3}/nf-lake`, { method: 'PUT' }).catch(() => null))?.ok === true, {
      timeoutMs: 60_000,
      what: 'moto S3 server answering',
    });
  }, 180_000);
  afterAll(async () => {
    moto?.kill();
    await pg?.stop();
  });

  it('PostgreSQL catalog: nothing is inlined in it (limit 0 on every table), so the pages are files; --dry-run changes nothing, the real run merges them into one file per news table, every row and hash kept', async () => {
    const db = `nf_maint_${process.pid}`;
    freshDatabase(pgUrl, db);
    const catalog = `${pgUrl}/${db}`;
    const dir = made('newsflow-maint-pgwh-');
    const data = path.join(made('newsflow-maint-pgdata-'), 'lake');
    const lake: LakeOptions = { dir, catalog, dataPath: data };
    // newsflow's own limits on a PostgreSQL catalog (none set by hand): 0, every page is a file
    await landRuns(dir, { catalog, dataPath: data }, false);
    const opts = await openLake({ ...lake, readOnly: true });
    try {
      const limits = (
        await opts.conn.runAndReadAll(`SELECT scope_entry, value FROM lake.options() WHERE option_name = 'data_inlining_row_limit' AND scope = 'TABLE'`)
      ).getRowObjectsJS();
      const byTable = Object.fromEntries(limits.map((r) => [String(r.scope_entry), String(r.value)]));
      expect(byTable).toMatchObject(Object.fromEntries(['_loads', ...TABLES].map((t) => [`main.${t}`, '0'])));
      expect(
        Object.values(byTable).filter((v) => v !== '0'),
        'no table inlines on a PostgreSQL catalog',
      ).toEqual([]);
    } finally {
      opts.close();
    }
    const before = await fingerprint(lake);
    expect(before.articles).toMatch(/^240 /);
    await maintainBoth(dir, { NEWSFLOW_LAKE_CATALOG: catalog, NEWSFLOW_LAKE_DATA: data }, before, lake, true);
    // the catalog lists one live file per news table, and the merged files are gone from the data path
    const l = await openLake({ ...lake, readOnly: true });
    try {
      const live = (await l.conn.runAndReadAll(`SELECT count(*) AS n FROM ducklake_list_files('lake', 'articles')`)).getRowObjectsJS()[0]!;
      expect(Number(live.n)).toBe(1);
    } finally {
      l.close();
    }
    const parquet = fs.readdirSync(path.join(data, 'main', 'articles')).filter((f) => f.endsWith('.parquet'));
    expect(parquet).toHaveLength(1);
  }, 300_000);

  it('S3 data path (moto): --dry-run changes nothing, the real run leaves one file per news table and deletes the merged objects', async () => {
    // the endpoint and keys as a user gives theirs: a DuckDB persistent secret in $HOME/.duckdb
    const home = made('newsflow-maint-s3home-');
    const i = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    const c = await i.connect();
    await loadExtensions(c, ['httpfs']);
    await c.run(`SET secret_directory = '${path.join(home, '.duckdb', 'stored_secrets')}'`);
    await c.run(
      `CREATE PERSISTENT SECRET nf_s3 (TYPE s3, KEY_ID 'test', SECRET 'test', REGION 'us-east-1', ENDPOINT '${s3}', URL_STYLE 'path', USE_SSL false)`,
    );
    c.closeSync();
    i.closeSync();
    const dataPath = `s3://nf-lake/p${process.pid}/`;
    const dir = made('newsflow-maint-s3wh-');
    const lake: LakeOptions = { dir, dataPath };
    const objects = async () => {
      const xml = await (await fetch(`http://${s3}/nf-lake?list-type=2&prefix=p${process.pid}/main/articles/`)).text();
      return [...xml.matchAll(/<Key>([^<]+\.parquet)<\/Key>/g)].map((m) => m[1]!);
    };
    // this process's DuckDB reads the secret from $HOME as the CLI's does; the SQLite catalog
    // outside the warehouse folder (the CLI's run must take the project's lake, not the folder's)
    const catalog = `sqlite:${path.join(made('newsflow-maint-s3cat-'), 'catalog.sqlite')}`;
    const home0 = process.env.HOME;
    process.env.HOME = home;
    try {
      await landRuns(dir, { catalog, dataPath }, true);
      const before = await fingerprint({ ...lake, catalog });
      expect(before.articles).toMatch(/^240 /);
      const data = (await objects()).filter((k) => !k.endsWith('-delete.parquet'));
      expect(data.length).toBeGreaterThanOrEqual(RUNS);
      await maintainBoth(dir, { HOME: home, NEWSFLOW_LAKE_CATALOG: catalog, NEWSFLOW_LAKE_DATA: dataPath }, before, { ...lake, catalog }, true);
      const left = await objects();
      expect(left).toHaveLength(1);
      expect(data).not.toContain(left[0]);
    } finally {
      process.env.HOME = home0;
    }
  }, 300_000);
});
