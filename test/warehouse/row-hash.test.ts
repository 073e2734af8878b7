/**
 * Row hashes carry a version (`v2:`): rows landed with the hash of before it (sha1 of the JSON text
 * of the row and its children, no prefix) and landed again unchanged are recognised as unchanged
 * (0 updated, no new snapshot, their hash kept); a changed one is updated and gets a v2 hash.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, type TableDef } from '../../warehouse/tables/index.js';
import { DIST_HIT_SHARE } from '../../warehouse/tables/distribution.js';
import { articlePage, type ArticlePage } from '../helpers/articles.js';
import { tempDir } from '../helpers/service.js';

const KIDS = [ARTICLE_ENTITIES, ARTICLE_KEYWORDS, ARTICLE_CLASSIFICATIONS];
const kidRows = (p: ArticlePage) => [p.entities, p.keywords, p.classes];
const land = (w: Warehouse, p: ArticlePage, loadId: string) =>
  w.land(
    ARTICLES,
    p.rows,
    KIDS.map((table, i) => ({ table, rows: kidRows(p)[i]! })),
    loadId,
  );
const count = async (w: Warehouse, sql: string) => Number((await w.query<{ n: bigint }>(sql))[0]!.n);
const snapshots = (w: Warehouse) => count(w, 'SELECT count(*) AS n FROM lake.snapshots()');
const hashed = (t: TableDef) => t.columns.map((c) => c.name).filter((n) => n !== 'row_hash' && n !== 'last_load_id');

/** The row hash as landings of before v2 wrote it (pinned here: the lake holds such hashes). */
function preV2Hash(t: TableDef, r: Record<string, unknown>, children?: { table: TableDef; rows: Record<string, unknown>[] }[]): string {
  const own = hashed(t).map((n) => r[n] ?? null);
  if (!children) return crypto.hash('sha1', JSON.stringify(own));
  const kids = children.map(({ table, rows }) => {
    const texts = rows.filter((k) => k[table.replaceBy![0]!] === r.article_id).map((k) => JSON.stringify(table.columns.map((c) => k[c.name] ?? null)));
    return texts.length < 2 ? texts : [...new Set(texts)].sort();
  });
  return crypto.hash('sha1', JSON.stringify([own, kids]));
}

describe('row hash versions', () => {
  it('articles landed with a pre-v2 hash and landed again unchanged update 0 (no snapshot, hash kept); a changed one updates 1 and gets a v2 hash', async () => {
    const w = await Warehouse.open(tempDir('newsflow-rowhash-'));
    try {
      const page = articlePage(7, 12);
      expect(await land(w, page, 'L1')).toEqual({ received: 12, inserted: 12, updated: 0 });
      expect(await count(w, "SELECT count(*) AS n FROM articles WHERE row_hash LIKE 'v2:%'")).toBe(12);
      // the lake as a landing of before v2 left it
      const kids = KIDS.map((table, i) => ({ table, rows: kidRows(page)[i]! }));
      await w.execMany(
        page.rows.map((r) => [`UPDATE articles SET row_hash = '${preV2Hash(ARTICLES, r, kids)}' WHERE article_id = '${r.article_id as string}'`] as [string]),
      );
      const before = await snapshots(w);
      const replay = await land(w, page, 'L2');
      console.log('pre-v2 page landed again:', replay, 'snapshots before/after:', before, await snapshots(w));
      expect(replay).toEqual({ received: 12, inserted: 0, updated: 0 });
      expect(await snapshots(w)).toBe(before);
      expect(await count(w, "SELECT count(*) AS n FROM articles WHERE row_hash NOT LIKE 'v2:%'")).toBe(12);

      const edited = articlePage(7, 12);
      edited.entities = edited.entities
        .filter((e) => e.article_id !== edited.rows[5]!.article_id)
        .concat({ article_id: edited.rows[5]!.article_id, type: 'person', value: 'Someone Else' });
      const upd = await land(w, edited, 'L3');
      expect(upd).toEqual({ received: 12, inserted: 0, updated: 1 });
      const v2 = await w.query<{ article_id: string }>("SELECT article_id::VARCHAR AS article_id FROM articles WHERE row_hash LIKE 'v2:%'");
      expect(v2.map((r) => r.article_id)).toEqual([edited.rows[5]!.article_id]);
      expect(
        (await w.query<{ value: string }>(`SELECT value FROM article_entities WHERE article_id = '${edited.rows[5]!.article_id as string}'`)).map(
          (r) => r.value,
        ),
      ).toEqual(['Someone Else']);
      expect(await land(w, edited, 'L3')).toEqual({ received: 12, inserted: 0, updated: 0 });
    } finally {
      w.close();
    }
  });

  it('a table without children: rows with a pre-v2 hash landed again unchanged update 0; a changed one updates 1', async () => {
    const w = await Warehouse.open(tempDir('newsflow-rowhash-'));
    try {
      const t = DIST_HIT_SHARE;
      const rows = Array.from({ length: 6 }, (_, i) => ({
        org_id: 'org',
        domain_set: 'ds',
        window_start: 1_700_000_000_000_000 + i,
        window_end: 1_700_100_000_000_000,
        domain: `d${i}.example`,
        hit_share: i / 10,
        total_share: 0.5,
      }));
      expect(await w.land(t, rows, [], 'D1')).toEqual({ received: 6, inserted: 6, updated: 0 });
      await w.execMany(rows.map((r) => [`UPDATE ${t.name} SET row_hash = '${preV2Hash(t, r)}' WHERE domain = '${r.domain}'`] as [string]));
      const before = await snapshots(w);
      expect(await w.land(t, rows, [], 'D2')).toEqual({ received: 6, inserted: 0, updated: 0 });
      expect(await snapshots(w)).toBe(before);
      const changed = rows.map((r, i) => (i === 2 ? { ...r, hit_share: 0.99 } : r));
      expect(await w.land(t, changed, [], 'D3')).toEqual({ received: 6, inserted: 0, updated: 1 });
      expect(await count(w, `SELECT count(*) AS n FROM ${t.name} WHERE row_hash LIKE 'v2:%'`)).toBe(1);
      expect(await count(w, `SELECT count(*) AS n FROM ${t.name} WHERE hit_share = 0.99`)).toBe(1);
      expect(await w.land(t, changed, [], 'D3')).toEqual({ received: 6, inserted: 0, updated: 0 });
    } finally {
      w.close();
    }
  });
});
