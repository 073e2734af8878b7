/**
 * `Warehouse.land` called again before the previous call resolved (a bulk caller keeps two pages in
 * flight, so the next page is staged while the lake writes the previous one): the batches are
 * written in the order of the calls, each in its own lake transaction, with the counts they would
 * have landed one by one; a statement issued after them sees them all; a batch that fails to stage
 * fails alone.
 */
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { articlePage, landPage as land } from '../helpers/articles.js';
import { tempDir } from '../helpers/service.js';

const count = async (w: Warehouse, sql: string) => Number((await w.query<{ n: bigint }>(sql))[0]!.n);
const snapshots = (w: Warehouse) => count(w, 'SELECT count(*) AS n FROM lake.snapshots()');

describe('landing batches in flight together', () => {
  it('are written in call order, one transaction each, with the counts of landing them one by one; a query issued after them sees them all', async () => {
    const w = await Warehouse.open(tempDir('newsflow-overlap-'));
    try {
      const before = await snapshots(w);
      const a = articlePage(3, 20);
      const retitled = articlePage(3, 20);
      retitled.rows[4] = { ...retitled.rows[4]!, title: 'a corrected title' };
      const b = articlePage(4, 20);
      // five calls at once (more than the two staging slots): A, A with one title changed, B, A again, B again
      const results = Promise.all([land(w, a, 'O1'), land(w, retitled, 'O2'), land(w, b, 'O3'), land(w, articlePage(3, 20), 'O4'), land(w, b, 'O5')]);
      const seen = w.query<{ n: bigint; titles: bigint }>("SELECT count(*) AS n, count(*) FILTER (WHERE title = 'a corrected title') AS titles FROM articles");
      expect(await results).toEqual([
        { received: 20, inserted: 20, updated: 0 },
        { received: 20, inserted: 0, updated: 1 },
        { received: 20, inserted: 20, updated: 0 },
        { received: 20, inserted: 0, updated: 1 },
        { received: 20, inserted: 0, updated: 0 },
      ]);
      const [after] = await seen;
      console.log('five batches in flight:', await results, 'seen after them:', after);
      expect(Number(after!.n)).toBe(40);
      expect(Number(after!.titles)).toBe(0);
      // one snapshot per batch that changed something, each tagged with its load
      expect((await snapshots(w)) - before).toBe(4);
      const tags = await w.query<{ m: string }>(
        `SELECT commit_message AS m FROM lake.snapshots() WHERE commit_message LIKE 'land articles %' ORDER BY snapshot_id`,
      );
      expect(tags.map((t) => t.m)).toEqual(['land articles O1', 'land articles O2', 'land articles O3', 'land articles O4']);
      expect(await count(w, 'SELECT count(*) AS n FROM (SELECT article_id FROM articles GROUP BY 1 HAVING count(*) > 1)')).toBe(0);
      expect(await count(w, 'SELECT count(*) AS n FROM (SELECT article_id, type, value FROM article_entities GROUP BY ALL HAVING count(*) > 1)')).toBe(0);
      const distinct = new Set([...a.entities, ...b.entities].map((e) => `${e.article_id}|${e.type}|${e.value}`));
      expect(await count(w, 'SELECT count(*) AS n FROM article_entities')).toBe(distinct.size);
    } finally {
      w.close();
    }
  }, 180_000);

  it('a batch that fails to stage fails alone: the batches before and after it land', async () => {
    const w = await Warehouse.open(tempDir('newsflow-overlap-'));
    try {
      const bad = articlePage(6, 10);
      bad.rows[3] = { ...bad.rows[3]!, sentiment: 'not a number' };
      const [first, failed, last] = await Promise.allSettled([land(w, articlePage(5, 10), 'F1'), land(w, bad, 'F2'), land(w, articlePage(7, 10), 'F3')]);
      console.log('batch with a bad value among three:', failed);
      expect(first).toEqual({ status: 'fulfilled', value: { received: 10, inserted: 10, updated: 0 } });
      expect(failed!.status).toBe('rejected');
      expect(last).toEqual({ status: 'fulfilled', value: { received: 10, inserted: 10, updated: 0 } });
      expect(await count(w, 'SELECT count(*) AS n FROM articles')).toBe(20);
      expect(await land(w, articlePage(6, 10), 'F4')).toEqual({ received: 10, inserted: 10, updated: 0 });
    } finally {
      w.close();
    }
  }, 180_000);
});
