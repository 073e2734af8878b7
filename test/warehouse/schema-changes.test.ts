/**
 * Schema changes seen and governed (warehouse/schema.ts): the API adds `foo` to its articles. Under
 * evolve the load records it in _schema_changes, adds the column and fills it, for the rows landed
 * before from their raw too; under freeze the page fails, non-retryable, naming articles.foo;
 * under discard the field is recorded and left out. Real service, real lake, the real activity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { NewsClient } from '../../client/index.js';
import { createNewsIngestActivities, type IngestPageInput } from '../../activities/news-ingest.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { ARTICLES, articleBatch } from '../../warehouse/tables/articles.js';
import { newPaths, shapeOf } from '../../warehouse/schema.js';
import { SearchResponseDictItem } from '../../spec/index.js';
import { tempDir } from '../helpers/service.js';
import { fooOf, startFooService, type FooService } from '../helpers/foo-service.js';

let svc: FooService;
let api: NewsClient;
beforeAll(async () => {
  svc = await startFooService();
  api = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org, limits: { news: { rate: 500, burst: 100, concurrency: 10 } } });
}, 120_000);
afterAll(async () => svc?.stop());

const page = (offset: number, extra: Partial<IngestPageInput> = {}): IngestPageInput => ({
  loadId: `load-${offset}`,
  query: '',
  filters: {},
  from: '2022-07-09T00:00:00.000Z',
  to: '2022-07-10T12:00:00.000Z',
  offset,
  pageSize: 20,
  ...extra,
});

describe('schema changes', () => {
  it('finds new fields at any depth the schema declares, linear and bounded (an unknown subtree is reported, not walked)', () => {
    const shape = shapeOf(SearchResponseDictItem);
    const a = {
      article_id: 'x',
      foo: 1,
      entities: { Person: ['A'], Spaceship: ['B'] },
      assets: { images: [], audio: ['a.mp3'] },
      authors: [{ name: 'n', handle: '@h' }],
      deep: { a: { b: 1 } },
    };
    expect(newPaths([a], shape, new Set()).map((p) => p.path)).toEqual(['foo', 'entities.Spaceship', 'assets.audio', 'authors[].handle', 'deep']);
    expect(newPaths([a], shape, new Set(['foo', 'deep'])).map((p) => p.path)).toEqual(['entities.Spaceship', 'assets.audio', 'authors[].handle']);
  });

  it('evolve: a _schema_changes row, then SELECT foo FROM articles returns values, the rows landed before included', async () => {
    const w = await Warehouse.open(tempDir('newsflow-schema-'));
    try {
      svc.foo.on = true;
      // rows an earlier newsflow landed: foo kept in raw only, no column, nothing recorded
      const before =
        (
          await api.searchNews({
            historical: true,
            time_filter: 'crawl_date',
            start_timestamp: Date.parse('2022-07-09') / 1000,
            end_timestamp: Date.parse('2022-07-10T12:00:00Z') / 1000,
            n_articles: 20,
            offset: 0,
            return_type: 'dicts',
          })
        ).as_dicts ?? [];
      expect(before[0]?.foo).toBe(fooOf(before[0]!.article_id));
      const b = articleBatch(before);
      await w.land(ARTICLES, b.rows, b.children, 'old-load');
      // then the next page, through the activity, under the default contract (evolve)
      const acts = createNewsIngestActivities({ client: api, warehouse: w });
      const r = (await new MockActivityEnvironment().run(acts.ingestPage, page(20))) as { inserted: number };
      expect(r.inserted).toBe(20);
      const changes = await w.schemaChanges();
      console.log('_schema_changes:', JSON.stringify(changes));
      expect(changes).toEqual([
        expect.objectContaining({
          table_name: 'articles',
          path: 'foo',
          change: 'new',
          value_type: 'string',
          first_load_id: 'load-20',
          contract: 'evolve',
          action: 'column',
          column_name: 'foo',
          column_type: 'VARCHAR',
          status: 'open',
        }),
      ]);
      const rows = await w.query<{ id: string; foo: string | null; last_load_id: string }>(
        'SELECT article_id::VARCHAR AS id, foo, last_load_id FROM articles ORDER BY last_load_id, id',
      );
      console.log(
        'SELECT foo FROM articles:',
        rows.length,
        'rows;',
        rows.filter((x) => x.last_load_id === 'old-load').length,
        'landed before the column;',
        JSON.stringify(rows.slice(0, 2)),
        '...',
        JSON.stringify(rows.at(-1)),
      );
      expect(rows).toHaveLength(40);
      for (const x of rows) expect(x.foo).toBe(fooOf(x.id));
      // the same page again: nothing new to record, nothing changes
      expect(await new MockActivityEnvironment().run(acts.ingestPage, page(20, { loadId: 'again' }))).toMatchObject({ inserted: 0, updated: 0 });
      expect(await w.schemaChanges({ all: true })).toHaveLength(1);
      // acknowledged: no longer open, still listed with --all
      expect(await w.acknowledgeSchemaChanges('articles')).toBe(1);
      expect(await w.schemaChanges()).toEqual([]);
      expect((await w.schemaChanges({ all: true }))[0]).toMatchObject({ path: 'foo', status: 'acknowledged' });
    } finally {
      svc.foo.on = false;
      w.close();
    }
  }, 120_000);

  it('freeze: the page fails, non-retryable, with one line naming articles.foo; nothing of it lands; the change is recorded as refused', async () => {
    const w = await Warehouse.open(tempDir('newsflow-schema-'));
    try {
      svc.foo.on = true;
      const acts = createNewsIngestActivities({ client: api, warehouse: w });
      const e = (await new MockActivityEnvironment().run(acts.ingestPage, page(0, { schema: 'freeze' })).catch((x: unknown) => x)) as ApplicationFailure;
      console.log('freeze:', e.message);
      expect(e).toBeInstanceOf(ApplicationFailure);
      expect(e.nonRetryable).toBe(true);
      expect(e.message).toBe('schema contract freeze: articles.foo is new (string); set schema: evolve (or discard) on the pipeline to accept it');
      expect(e.message).not.toContain('\n');
      expect(await w.query('SELECT count(*) AS n FROM articles')).toEqual([{ n: 0n }]);
      expect(await w.schemaChanges()).toEqual([expect.objectContaining({ path: 'foo', contract: 'freeze', action: 'refused', column_name: null })]);
      // the pipeline switched to evolve: the refused change becomes a column
      await new MockActivityEnvironment().run(acts.ingestPage, page(0));
      expect(await w.schemaChanges()).toEqual([expect.objectContaining({ path: 'foo', contract: 'evolve', action: 'column', column_name: 'foo' })]);
      expect(await w.query('SELECT count(foo) AS n FROM articles')).toEqual([{ n: 20n }]);
    } finally {
      svc.foo.on = false;
      w.close();
    }
  }, 120_000);

  it('discard: the change is recorded; foo is in neither a column nor raw', async () => {
    const w = await Warehouse.open(tempDir('newsflow-schema-'));
    try {
      svc.foo.on = true;
      const acts = createNewsIngestActivities({ client: api, warehouse: w });
      await new MockActivityEnvironment().run(acts.ingestPage, page(0, { schema: 'discard' }));
      expect(await w.schemaChanges()).toEqual([expect.objectContaining({ path: 'foo', contract: 'discard', action: 'discarded' })]);
      const cols = await w.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'articles'");
      expect(cols.map((c) => c.c)).not.toContain('foo');
      expect(await w.query("SELECT count(*) AS n FROM articles WHERE json_exists(raw, '$.foo')")).toEqual([{ n: 0n }]);
      expect(await w.query('SELECT count(*) AS n FROM articles')).toEqual([{ n: 20n }]);
    } finally {
      svc.foo.on = false;
      w.close();
    }
  }, 120_000);
});
