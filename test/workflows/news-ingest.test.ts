/** newsIngest on the real Temporal dev server against the real service: exact, idempotent, readable while landing. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { exportParquet, openSnapshot } from '../../warehouse/read.js';
import { startCorpusService } from '../helpers/news.js';
import { tempDir, type TestService } from '../helpers/service.js';
import { bin, runCli } from '../helpers/cli.js';
import { startHarness, type Harness } from '../helpers/pipeline.js';

let svc: TestService;
let h: Harness;
let warehouse: Warehouse;
let temporal: Client;
let api: NewsClient;
let whDir: string;

beforeAll(async () => {
  svc = await startCorpusService();
  api = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { news: { rate: 500, burst: 100, concurrency: 10 } } });
  h = await startHarness({ namespace: 'nf-ingest', client: api });
  ({ warehouse, temporal, whDir } = h);
}, 180_000);
afterAll(async () => {
  await h?.stop();
  await svc?.stop();
});

const window = { from: '2022-07-09T00:00:00.000Z', to: '2022-07-10T12:00:00.000Z' };
const ingest = (id: string, extra: Record<string, unknown> = {}) =>
  temporal.workflow.execute('newsIngest', { taskQueue: TASK_QUEUES.news, workflowId: id, args: [{ ...window, pageSize: 40, ...extra }] }) as Promise<{
    loadId: string;
    pages: number;
    received: number;
    inserted: number;
    updated: number;
  }>;
const counts = async () =>
  Object.fromEntries(
    await Promise.all(
      ['articles', 'article_entities', 'article_keywords', 'article_classifications', '_loads'].map(
        async (t) => [t, Number((await warehouse.query<{ n: bigint }>(`SELECT count(*) AS n FROM ${t}`))[0]!.n)] as const,
      ),
    ),
  );

describe('newsIngest', () => {
  it('lands exactly the rows the API returned; the same window again changes nothing but adds a _loads row', async () => {
    // what the API holds for the window, paged directly
    const expected: string[] = [];
    let entities = 0;
    let keywords = 0;
    for await (const a of api.searchArticles({
      historical: true,
      time_filter: 'crawl_date',
      start_timestamp: Date.parse(window.from) / 1000,
      end_timestamp: Date.parse(window.to) / 1000,
      n_articles: 100,
    })) {
      expected.push(a.article_id);
      entities += new Set(Object.entries(a.entities).flatMap(([t, vs]) => vs.map((v) => `${t}\u0000${v}`))).size;
      keywords += new Set(a.keywords).size;
    }
    expect(expected.length).toBeGreaterThan(100);

    const r1 = await ingest(`ingest-a-${Date.now()}`);
    expect(r1).toMatchObject({ received: expected.length, inserted: expected.length, updated: 0 });
    expect(r1.pages).toBe(Math.floor(expected.length / 40) + 1);
    const ids = (await warehouse.query<{ id: string }>('SELECT article_id::VARCHAR AS id FROM articles')).map((x) => x.id).sort();
    expect(ids).toEqual([...expected].sort());
    const c1 = await counts();
    expect(c1.article_entities).toBe(entities);
    expect(c1.article_keywords).toBe(keywords);

    const r2 = await ingest(`ingest-b-${Date.now()}`);
    expect(r2).toMatchObject({ received: expected.length, inserted: 0, updated: 0 });
    const c2 = await counts();
    expect({ ...c2, _loads: 0 }).toEqual({ ...c1, _loads: 0 });
    expect(c2._loads).toBe(c1._loads! + 1);
    const loads = await warehouse.query<{ load_id: string; rows_received: bigint; rows_inserted: bigint; pipeline: string; invariants: string }>(
      'SELECT * FROM _loads ORDER BY started_at',
    );
    expect(loads.map((l) => l.load_id)).toEqual([r1.loadId, r2.loadId]);
    expect(loads.map((l) => Number(l.rows_inserted))).toEqual([expected.length, 0]);
    expect(JSON.parse(String(loads[1]!.invariants))).toMatchObject({ rows_equal_offset: true });
  });

  it('a window that is not an ordered pair of ISO times fails the run at once (WindowError), no page asked', async () => {
    const before = await counts();
    const err = await ingest(`ingest-badwindow-${Date.now()}`, { from: '2022-07-10T00:00:00Z', to: '2022-07-09T00:00:00Z' }).catch(
      (e: Error & { cause?: { type?: string; message?: string } }) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as { cause?: { type?: string } }).cause).toMatchObject({
      type: 'WindowError',
      message: 'window from 2022-07-10T00:00:00Z to 2022-07-09T00:00:00Z is not an ordered pair of ISO times',
    });
    expect(await counts()).toEqual(before);
  });

  it('newsflow sql answers while the worker is landing', async () => {
    const landing = ingest(`ingest-c-${Date.now()}`, { from: '2022-06-01T00:00:00.000Z', to: '2022-07-11T00:00:00.000Z', pageSize: 25 });
    let done = false;
    void landing.finally(() => (done = true));
    const results: { code: number | null; out: string; err: string }[] = [];
    while (!done || results.length < 3) {
      results.push(await runCli(['sql', 'SELECT count(*) AS n FROM articles', '--format', 'json', '--warehouse', whDir]));
      if (results.length >= 15) break;
    }
    const r = await landing;
    expect(r.received).toBeGreaterThan(500);
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const x of results) {
      expect(x.code, x.err).toBe(0);
      expect(x.err).not.toMatch(/lock/i);
    }
    const seen = results.map((x) => JSON.parse(x.out)[0].n as number);
    expect(seen.every((n, i) => i === 0 || n >= seen[i - 1]!)).toBe(true); // never goes back
  }, 240_000); // up to 15 CLI processes while a 40-day ingest lands: minutes on a loaded 2-core machine

  it('newsflow sql writes Arrow IPC that reads back, and csv/table formats', async () => {
    const { tableFromIPC } = await import('apache-arrow');
    const { spawnSync } = await import('node:child_process');
    const out = path.join(tempDir('newsflow-arrow-'), 'a.arrow');
    const q = 'SELECT article_id::VARCHAR AS id, title, pub_date, sentiment FROM articles ORDER BY pub_date LIMIT 50';
    const r = spawnSync(process.execPath, [bin, 'sql', q, '--format', 'arrow', '--out', out, '--warehouse', whDir], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const t = tableFromIPC(fs.readFileSync(out));
    expect(t.numRows).toBe(50);
    expect(t.schema.fields.map((f) => f.name)).toEqual(['id', 'title', 'pub_date', 'sentiment']);
    const csv = spawnSync(process.execPath, [bin, 'sql', q, '--format', 'csv', '--warehouse', whDir], { encoding: 'utf8' });
    expect(csv.stdout.trim().split('\n')).toHaveLength(51);
    const bad = spawnSync(process.execPath, [bin, 'sql', 'SELECT * FROM nope', '--warehouse', whDir], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/nope/);
  });

  it('exports Parquet by month that reads back with equal counts per table', async () => {
    const out = tempDir('newsflow-parquet-');
    const exported = await exportParquet(whDir, out);
    const snap = await openSnapshot(whDir);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    for (const [table, n] of Object.entries(exported)) {
      const inWarehouse = Number((await snap.all(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
      expect(n).toBe(inWarehouse);
      if (n === 0) continue;
      const back = (
        await conn.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${out}/${table}/*/*.parquet', hive_partitioning = true)`)
      ).getRowObjectsJS()[0]!;
      expect(Number(back.n), table).toBe(n);
    }
    expect(fs.readdirSync(path.join(out, 'articles')).some((d) => /^month=2022-0[67]$/.test(d))).toBe(true);
    snap.close();
    conn.closeSync();
    inst.closeSync();
  });
});
