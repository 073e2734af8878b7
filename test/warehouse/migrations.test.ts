/** Warehouse migrations: versions applied once in order; a version taken by number (4) is applied to a warehouse that lacks it. */
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { TABLES } from '../../warehouse/tables/index.js';
import { tempDir } from '../helpers/service.js';

const versions = async (w: Warehouse) => (await w.query<{ version: number }>('SELECT version FROM _migrations ORDER BY version')).map((r) => Number(r.version));
const tables = async (w: Warehouse) =>
  (
    await w.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main' AND table_name NOT LIKE '\\_%' ESCAPE '\\' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
  ).map((r) => r.name);

describe('warehouse migrations', () => {
  it('a new warehouse gets every declared table; reopening applies nothing again', async () => {
    const dir = tempDir('newsflow-mig-');
    const w = await Warehouse.open(dir);
    const applied = await versions(w);
    expect(applied.slice(0, 2)).toEqual([1, 2]);
    expect(applied).toContain(4); // index_counts; version 3 (alert tables) is another branch's
    expect(await tables(w)).toEqual(TABLES.map((t) => t.name).sort());
    w.close();
    const again = await Warehouse.open(dir);
    expect(await versions(again)).toEqual(applied);
    again.close();
  });

  it('a warehouse made before version 4 gets index_counts when opened', async () => {
    const dir = tempDir('newsflow-mig-');
    const w = await Warehouse.open(dir);
    const applied = await versions(w);
    await w.query('DROP TABLE index_counts');
    await w.query('DELETE FROM _migrations WHERE version = 4');
    w.close();
    const later = await Warehouse.open(dir);
    expect(await versions(later)).toEqual(applied);
    expect(await tables(later)).toContain('index_counts');
    later.close();
  });

  it("loads recorded under a kind's former name read under its one name once opened (version 30); the pipeline name stays", async () => {
    const dir = tempDir('newsflow-mig-');
    const w = await Warehouse.open(dir);
    const old = ['news-ingest', 'story-tracker', 'deep-research', 'index-count-sampler', 'distribution-pull', 'graph'];
    for (const kind of old)
      await w.recordLoad(
        { loadId: `old-${kind}`, pipeline: kind, kind, workflowId: null, runId: null, windowStart: null, windowEnd: null },
        { received: 1, inserted: 1, updated: 0 },
        new Date('2026-01-01T00:00:00Z'),
      );
    await w.query('DELETE FROM _migrations WHERE version = 30');
    w.close();
    const later = await Warehouse.open(dir);
    const rows = await later.query<{ pipeline: string; kind: string }>('SELECT pipeline, kind FROM _loads ORDER BY load_id');
    console.log('_loads after version 30:', rows.map((r) => `${r.pipeline}->${r.kind}`).join(' '));
    expect(rows).toEqual([
      { pipeline: 'deep-research', kind: 'research' },
      { pipeline: 'distribution-pull', kind: 'distribution' },
      { pipeline: 'graph', kind: 'graph' },
      { pipeline: 'index-count-sampler', kind: 'index-counts' },
      { pipeline: 'news-ingest', kind: 'news' },
      { pipeline: 'story-tracker', kind: 'stories' },
    ]);
    later.close();
  });

  it('three warehouses opening one new lake at once (as three workers starting): none fails, every version is applied once', async () => {
    const dir = tempDir('newsflow-mig-');
    const ws = await Promise.all([Warehouse.open(dir), Warehouse.open(dir), Warehouse.open(dir)]);
    const rows = await ws[0]!.query<{ version: number; n: bigint }>('SELECT version, count(*) AS n FROM _migrations GROUP BY 1 ORDER BY 1');
    console.log('versions applied (count each):', rows.map((r) => `${r.version}x${r.n}`).join(' '));
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect(rows.map((r) => Number(r.version))).toEqual(await versions(ws[2]!));
    expect(await tables(ws[1]!)).toEqual(TABLES.map((t) => t.name).sort());
    for (const w of ws) w.close();
  }, 120_000);
});

describe('columns added to a definition', () => {
  it('a lake made before `raw` was declared for index_counts gets the column when opened; its earlier rows hold NULL', async () => {
    const dir = tempDir('newsflow-mig-');
    const w = await Warehouse.open(dir);
    await w.query('ALTER TABLE index_counts DROP COLUMN raw');
    await w.query(
      "INSERT INTO index_counts (domain, bucket_start, bucket_end, sampling, filter_hash, filters, count, loaded_at, load_id, row_hash) VALUES ('*', now(), now(), '1d', 'h', '{}', 3, now(), 'l0', 'x')",
    );
    w.close();
    const later = await Warehouse.open(dir);
    const cols = await later.query<{ c: string }>(
      "SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'index_counts' ORDER BY ordinal_position",
    );
    expect(cols.map((r) => r.c)).toContain('raw');
    expect(await later.query('SELECT count, raw FROM index_counts')).toEqual([{ count: 3n, raw: null }]);
    later.close();
  });

  it('a column added to a defineTable reaches the existing table through ensureTables', async () => {
    const { defineTable } = await import('../../warehouse/tables/define.js');
    const dir = tempDir('newsflow-mig-');
    const w = await Warehouse.open(dir);
    const v1 = defineTable({
      name: 'my_counts',
      description: 'mine',
      columns: [
        ['k', 'VARCHAR', 'varchar'],
        ['n', 'BIGINT', 'bigint'],
      ],
      mergeKey: ['k'],
    });
    await w.ensureTables([v1]);
    await w.land(v1, [{ k: 'a', n: 1 }], [], 'l1');
    const v2 = defineTable({ ...v1, columns: [...v1.columns, ['note', 'VARCHAR', 'varchar']] });
    await w.ensureTables([v2]);
    await w.land(v2, [{ k: 'b', n: 2, note: 'new' }], [], 'l2');
    expect(await w.query('SELECT k, n, note FROM my_counts ORDER BY k')).toEqual([
      { k: 'a', n: 1n, note: null },
      { k: 'b', n: 2n, note: 'new' },
    ]);
    w.close();
  });
});
