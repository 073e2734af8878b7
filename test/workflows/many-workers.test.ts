/**
 * Many workers (temporal-postgres project only): three `newsflow worker` processes on the Temporal
 * server with PostgreSQL, the lake's catalog in the same PostgreSQL, run a 6-month distribution
 * pull and a news ingest at once while one of them is SIGKILLed mid-walk; the lake they fill equals
 * the one a single worker fills with the same runs (per table: rows, content hash, the merge keys),
 * with no key twice, and the API's rate limit per key held by the task-queue rate limit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DistributionStore } from '../../service/store/distribution.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { openReader } from '../../warehouse/read.js';
import { TABLES } from '../../warehouse/tables/index.js';
import { freshDatabase } from '../helpers/postgres.js';
import { NOW } from '../helpers/news.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/paths.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';
import { waitUntil } from '../helpers/wait-until.js';

// the API's limits, the same on the service and in the workers (as the distribution tests, fast)
const limits = 'distribution=20:5:3,news=1000:1000:50';
let svc: TestService;
let throttled = 0;
const keys: Record<'one' | 'many', string> = { one: '', many: '' };
const pgUrl = () => inject('pgUrl');
const catalog = (db: string) => `${pgUrl()}/${db}`;

beforeAll(async () => {
  expect(pgUrl(), 'the temporal-postgres project provides its PostgreSQL').toMatch(/^postgres:\/\//);
  svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    clock: () => NOW,
    limitsText: limits,
    configure: (app) => app.addHook('onResponse', async (_req, reply) => void (reply.statusCode === 429 && throttled++)),
  });
  await new DistributionStore(svc.services.db).simulate({ months: 7, seed: 3, eventsPerDay: 300, now: new Date('2022-07-15T00:00:00Z') });
  await svc.services.keys.createOrg({ name: 'wires', domains: ['reuters.com', 'apnews.com'] });
  // one key per run: the API's limits are per key, and both runs go at once
  for (const k of ['one', 'many'] as const)
    keys[k] = (await svc.services.keys.createKey({ name: k, org: 'wires', scopes: ['news', 'distribution', 'profile'] })).key;
  for (const db of ['nf_lake_one', 'nf_lake_many']) {
    freshDatabase(pgUrl(), db);
  }
}, 180_000);
afterAll(async () => svc?.stop());

interface WorkerProc {
  proc: ChildProcess;
  pages: () => number;
  exited: Promise<number | null>;
  out: () => string;
}

/** A `newsflow worker` process of `namespace` landing into the lake whose catalog is the database `db`. */
function worker(namespace: string, key: string, db: string, dataPath: string, workers: number): WorkerProc {
  let landed = 0;
  let out = '';
  const proc = spawn(process.execPath, [path.join(repoRoot, 'bin', 'newsflow.js'), 'worker', '--data-dir', tempDir('newsflow-worker-')], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: namespace,
      NEWSFLOW_API_URL: svc.url,
      NEWSFLOW_API_KEY: key,
      NEWSFLOW_LIMITS: limits,
      NEWSFLOW_LAKE_CATALOG: catalog(db),
      NEWSFLOW_LAKE_DATA: dataPath,
      NEWSFLOW_WORKERS: String(workers),
    },
  });
  const read = (d: Buffer) => {
    const s = String(d);
    out = (out + s).slice(-4000);
    landed += (s.match(/landed page/g) ?? []).length;
  };
  proc.stdout!.on('data', read);
  proc.stderr!.on('data', read);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, pages: () => landed, exited, out: () => out };
}

/** The two runs, started at once in `namespace`. */
async function startRuns(temporal: Client, tag: string) {
  const dist = await temporal.workflow.start('distributionPull', {
    taskQueue: TASK_QUEUES.distribution,
    workflowId: `many-dist-${tag}-${Date.now()}`,
    args: [{ domains: ['reuters.com', 'apnews.com'], from: '2022-01-01T00:00:00.000Z', to: '2022-07-01T00:00:00.000Z', pageSize: 20 }],
  });
  const news = await temporal.workflow.start('newsIngest', {
    taskQueue: TASK_QUEUES.news,
    workflowId: `many-news-${tag}-${Date.now()}`,
    args: [{ from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T12:00:00.000Z', pageSize: 20 }],
  });
  return { dist, news };
}

interface TableFigures {
  n: number;
  keys: number;
  hash: string;
  keyList: string[];
}

/** Per table: rows, distinct merge keys, a content hash (order-free: xor of row hashes, load columns left out), the keys. */
async function figures(db: string, dataPath: string): Promise<Record<string, TableFigures>> {
  const r = await openReader(tempDir('newsflow-reader-'), { lake: { catalog: catalog(db), dataPath } });
  try {
    const out: Record<string, TableFigures> = {};
    for (const t of TABLES) {
      const skip = new Set(['row_hash', 'last_load_id', ...(t.loadColumns ?? [])]);
      const content = t.columns
        .filter((c) => !skip.has(c.name))
        .map((c) => `"${c.name}"`)
        .join(', ');
      const key = t.mergeKey.map((k) => `"${k}"::VARCHAR`).join(`, '|', `);
      const [f] = await r.all(
        `SELECT count(*) AS n, count(DISTINCT concat(${key})) AS keys, coalesce(bit_xor(hash(${content})), 0)::VARCHAR AS hash FROM "${t.name}"`,
      );
      const keyList = (await r.all(`SELECT concat(${key}) AS k FROM "${t.name}" ORDER BY k`)).map((x) => String(x.k));
      out[t.name] = { n: Number(f!.n), keys: Number(f!.keys), hash: String(f!.hash), keyList };
    }
    return out;
  } finally {
    r.close();
  }
}

describe('many workers on one lake', () => {
  it('three workers, one SIGKILLed mid-walk, land what one worker lands: equal rows, hashes and keys, no key twice, no 429', async () => {
    const conn = await Connection.connect({ address: inject('temporalAddress') });
    const one = new Client({ connection: conn, namespace: 'nf-one-worker' });
    const many = new Client({ connection: conn, namespace: 'nf-many-workers' });
    const data = { one: tempDir('newsflow-lake-one-'), many: tempDir('newsflow-lake-many-') };

    const single = worker('nf-one-worker', keys.one, 'nf_lake_one', data.one, 1);
    const three = [0, 1, 2].map(() => worker('nf-many-workers', keys.many, 'nf_lake_many', data.many, 3));
    const runsOne = await startRuns(one, 'one');
    const runsMany = await startRuns(many, 'many');

    // mid-walk: once the three have landed 6 distribution pages, the busiest one is killed
    const total = () => three.reduce((s, w) => s + w.pages(), 0);
    await waitUntil(() => total() >= 6, { what: '6 pages landed by the three workers', timeoutMs: 240_000 }).catch((e: Error) => {
      throw new Error(`${e.message}; their output:\n${three.map((w) => w.out()).join('\n---\n')}`);
    });
    const victim = three.reduce((a, b) => (b.pages() > a.pages() ? b : a));
    const atKill = three.map((w) => w.pages());
    victim.proc.kill('SIGKILL');
    await victim.exited;

    const [distOne, newsOne, distMany, newsMany] = (await Promise.all([
      runsOne.dist.result(),
      runsOne.news.result(),
      runsMany.dist.result(),
      runsMany.news.result(),
    ])) as [{ windows: number; pages: number }, { received: number; pages: number }, { windows: number; pages: number }, { received: number; pages: number }];
    const landedBy = three.map((w) => w.pages());
    // SIGTERM drains: the survivors stop polling, finish what runs and exit 0
    const survivors = three.filter((w) => w !== victim).concat(single);
    for (const w of survivors) w.proc.kill('SIGTERM');
    const codes = await Promise.all(survivors.map((w) => w.exited));
    await conn.close();

    console.log(
      `distribution pages: one worker ${distOne.pages}, three workers ${distMany.pages} (landed per worker ${landedBy.join(' / ')}; SIGKILLed the one at ${victim.pages()} pages, counts at the kill ${atKill.join(' / ')}); news pages ${newsOne.pages} / ${newsMany.pages}, articles ${newsOne.received} / ${newsMany.received}; responses 429: ${throttled}; exit codes after SIGTERM ${codes.join(', ')}`,
    );
    expect(
      codes,
      survivors
        .map((w, i) => `worker ${i} exited ${codes[i]}; its last output:\n${w.out().slice(-1500)}`)
        .filter((_, i) => codes[i] !== 0)
        .join('\n---\n'),
    ).toEqual([0, 0, 0]);
    expect(distMany.windows).toBe(6);
    expect(distMany).toMatchObject({ windows: distOne.windows, pages: distOne.pages });
    expect(newsMany).toMatchObject({ received: newsOne.received, pages: newsOne.pages });
    expect(landedBy.filter((n) => n > 0).length, 'the pages were shared by more than one worker').toBeGreaterThanOrEqual(2);
    expect(throttled).toBe(0);

    const [a, b] = await Promise.all([figures('nf_lake_one', data.one), figures('nf_lake_many', data.many)]);
    console.log(
      [
        'table                       one worker (rows, hash)            three workers (rows, hash)',
        ...Object.keys(a)
          .filter((t) => a[t]!.n || b[t]!.n)
          .map((t) => `${t.padEnd(28)}${String(a[t]!.n).padStart(6)} ${a[t]!.hash.padEnd(22)}     ${String(b[t]!.n).padStart(6)} ${b[t]!.hash}`),
      ].join('\n'),
    );
    for (const t of Object.keys(a)) {
      expect(b[t]!.n, t).toBe(a[t]!.n);
      expect(b[t]!.keys, `${t}: no merge key twice`).toBe(b[t]!.n);
      expect(a[t]!.keys, `${t}: no merge key twice (one worker)`).toBe(a[t]!.n);
      expect(b[t]!.hash, t).toBe(a[t]!.hash);
      expect(b[t]!.keyList, t).toEqual(a[t]!.keyList);
    }
    expect(a.articles!.n).toBe(newsOne.received);
    expect(a.distribution_top_articles!.n).toBeGreaterThan(100);
    expect(a.articles!.n).toBeGreaterThan(100);
  }, 600_000);
});
