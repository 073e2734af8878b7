/**
 * Row hashes carry a version (`v2:`): rows landed with the hash of before it (sha1 of the JSON text
 * of the row and its children, no prefix) and landed again unchanged are recognised as unchanged
 * (0 updated, no new snapshot, their hash kept); a changed one is updated and gets a v2 hash. The
 * v2 hash `land` computes equals the v2 definition (pinned here as first written) for rows of every
 * column kind, so rows landed by earlier code and landed again unchanged change nothing.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS, type TableDef } from '../../warehouse/tables/index.js';
import { DIST_HIT_SHARE } from '../../warehouse/tables/distribution.js';
import { GRAPH_NODES } from '../../warehouse/tables/graph.js';
import { ALERT_LOGS } from '../../warehouse/tables/alerts.js';
import { hashedColumns, rowHashes } from '../../warehouse/row-hash.js';
import { articlePage, landPage as land, stableUuid, type ArticlePage } from '../helpers/articles.js';
import { tempDir } from '../helpers/service.js';

const KIDS = [ARTICLE_ENTITIES, ARTICLE_KEYWORDS, ARTICLE_CLASSIFICATIONS];
const kidRows = (p: ArticlePage) => [p.entities, p.keywords, p.classes];
const count = async (w: Warehouse, sql: string) => Number((await w.query<{ n: bigint }>(sql))[0]!.n);
const snapshots = (w: Warehouse) => count(w, 'SELECT count(*) AS n FROM lake.snapshots()');
// the columns hashes of before v2 covered: not the load columns (a table's `raw`, added later, was never hashed)
const hashed = (t: TableDef) => t.columns.map((c) => c.name).filter((n) => n !== 'row_hash' && n !== 'last_load_id' && !(t.loadColumns ?? []).includes(n));

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

/** The v2 row hash as first written (pinned here: the lake holds such hashes). */
function v2Hashes(hashedCols: string[], rows: Record<string, unknown>[], kids: { table: TableDef; key: string; rows: Record<string, unknown>[] }[]): string[] {
  const enc = (v: unknown): string => {
    if (typeof v === 'string') return `s${v.length}:${v}`;
    if (typeof v === 'number' || typeof v === 'bigint') return `n${v};`;
    if (typeof v === 'boolean') return v ? 'T' : 'F';
    if (v === undefined || v === null) return 'N';
    const j = JSON.stringify(v) ?? '';
    return `j${j.length}:${j}`;
  };
  return rows.map((r) => {
    let s = hashedCols.map((n) => enc(r[n])).join('');
    for (const { table, key, rows: kr } of kids) {
      const mine = kr
        .filter((k) => String(k[key]) === String(r[kids[0]!.key]))
        .map((k) => table.columns.map((c) => (c.name === key ? '' : enc(k[c.name]))).join(''));
      const set = mine.length < 2 ? mine : [...new Set(mine)].sort();
      s += `#${set.length}:${set.join('')}`;
    }
    return `v2:${crypto.hash('sha1', s)}`;
  });
}

/** Rows of every column kind and value shape: nulls and undefined, unicode, numbers, timestamps, JSON, lists, booleans, bytes. */
function everyKind(n: number): { parent: TableDef; child: TableDef; rows: Record<string, unknown>[]; kids: Record<string, unknown>[] } {
  const col = (name: string, sql: string, kind: TableDef['columns'][number]['kind']) => ({ name, sql, kind });
  const parent: TableDef = {
    name: 'kinds',
    description: 'every column kind',
    mergeKey: ['id'],
    columns: [
      col('id', 'VARCHAR', 'varchar'),
      col('text', 'VARCHAR', 'varchar'),
      col('country', 'VARCHAR', 'varchar'),
      col('count', 'INTEGER', 'int'),
      col('at', 'TIMESTAMP', 'bigint'),
      col('score', 'DOUBLE', 'double'),
      col('flag', 'BOOLEAN', 'bool'),
      col('tags', 'VARCHAR[]', 'varchar[]'),
      col('raw', 'JSON', 'varchar'),
      col('bytes', 'BLOB', 'blob'),
      col('row_hash', 'VARCHAR', 'varchar'),
      col('last_load_id', 'VARCHAR', 'varchar'),
    ],
  };
  const child: TableDef = {
    name: 'kinds_children',
    description: 'children of every kind',
    mergeKey: ['id', 'label'],
    replaceBy: ['id'],
    columns: [col('id', 'VARCHAR', 'varchar'), col('label', 'VARCHAR', 'varchar'), col('weight', 'DOUBLE', 'double')],
  };
  const texts = [
    '',
    'plain',
    'naïve café',
    'Ελληνικά',
    '日本語のテキスト',
    'emoji 🎉 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    's3:abc',
    'n1;',
    'a\u0000b',
    'quote \' and "',
    'line\nbreak',
  ];
  const scores = [0, -0, 0.1, 1e21, -2.5e-7, Number.MAX_SAFE_INTEGER, NaN, Infinity];
  const rows: Record<string, unknown>[] = [];
  const kids: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const id = i % 97 === 5 ? 4 : `row-${i}`; // a number as a key, once
    rows.push({
      id,
      // unique past the first rows (the encodings of repeated strings are cached, of unique ones not)
      text: i < 100 ? texts[i % texts.length] : `${texts[i % texts.length]} #${i}`,
      country: i % 13 === 0 ? null : ['GB', 'FR', 'JP', 'ÉIRE'][i % 4],
      count: i % 11 === 0 ? undefined : i - 50,
      at: i % 7 === 0 ? null : 1_767_225_600_000_000 + i * 60_000_000,
      score: scores[i % scores.length],
      flag: i % 3 === 0 ? null : i % 2 === 0,
      tags: i % 5 === 0 ? null : i % 5 === 1 ? [] : ['a', 'b é', String(i)],
      raw: JSON.stringify({ i, t: texts[i % texts.length], nested: { ok: i % 2 === 0, list: [1, 'two', null] } }),
      bytes: i % 4 === 0 ? new Uint8Array([i % 256, 0, 255]) : null,
      // a value of another type than its column's kind (numbers and strings hash apart)
      ...(i % 17 === 0 ? { country: 33 } : {}),
    });
    // children: none, one, a few out of order with duplicates, many (> 16) with duplicates
    const m = i % 4 === 0 ? 0 : i % 4 === 1 ? 1 : i % 4 === 2 ? 5 : 30;
    for (let k = 0; k < m; k++) {
      const label = k < 5 ? ['zeta', 'alpha', 'Ωmega', 'alpha', 'zeta'][k]! : `l${k % 9}`;
      kids.push({ id, label, weight: label === 'zeta' ? null : label.length / 4 });
    }
  }
  // a parent's children not next to each other
  kids.push({ id: 'row-2', label: 'late', weight: 1 });
  return { parent, child, rows, kids };
}

describe('row hash versions', () => {
  it('the v2 hash of rows of every column kind (nulls, unicode, numbers, timestamps, JSON, lists, booleans, bytes) and their children equals the pinned v2 definition', () => {
    const { parent, child, rows, kids } = everyKind(600);
    const children = [{ table: child, key: 'id', rows: kids }];
    const got = rowHashes(hashedColumns(parent), rows, children);
    expect(got).toEqual(v2Hashes(hashedColumns(parent), rows, children));
    expect(rowHashes(hashedColumns(parent), rows, [])).toEqual(v2Hashes(hashedColumns(parent), rows, []));
    // rows that differ (each in some column) hash apart
    expect(new Set(got).size).toBe(rows.length);
  });

  it('rows of every column kind landed by earlier code (their pinned v2 hashes) and landed again unchanged change nothing', async () => {
    const w = await Warehouse.open(tempDir('newsflow-rowhash-'));
    try {
      const nodes = Array.from({ length: 40 }, (_, i) => ({
        run_id: 'run-1',
        run_at: 1_767_225_600_000_000 + i,
        query: 'énergie 🔋',
        node_id: `n${i}`,
        type: ['person', 'organization'][i % 2],
        detailed_type: i % 3 === 0 ? null : 'CEO',
        ner_type: 'PER',
        mentions: i,
        sources: i % 4 === 0 ? undefined : 2,
        aliases: i % 5 === 0 ? [] : ['Ada', 'A. Lovelace', `alias ${i}`],
        latitude: i % 2 === 0 ? 51.5072 : null,
        longitude: -0.1276 * i,
      }));
      const logs = Array.from({ length: 30 }, (_, i) => ({
        log_id: stableUuid(`log-${i}`),
        alert_id: stableUuid('alert'),
        user_id: 'u1',
        created_at: 1_767_225_600_000_000 + i * 1000,
        alert: i % 2 === 0,
        reasoning: i % 3 === 0 ? null : `because ${'ü'.repeat(i)}`,
        report: '日本語',
        article_ids: i % 4 === 0 ? [] : [stableUuid(`a${i}`), stableUuid(`b${i}`)],
        is_test: i % 5 === 0,
        raw: JSON.stringify({ i, s: "it's" }),
      }));
      for (const [t, rows] of [
        [GRAPH_NODES, nodes],
        [ALERT_LOGS, logs],
      ] as const) {
        expect(await w.land(t, rows, [], 'E1')).toEqual({ received: rows.length, inserted: rows.length, updated: 0 });
        const key = t.mergeKey.map((k) => `${k}::VARCHAR`).join(" || '|' || ");
        const stored = new Map((await w.query<{ k: string; h: string }>(`SELECT ${key} AS k, row_hash AS h FROM ${t.name}`)).map((r) => [r.k, r.h] as const));
        const pinned = v2Hashes(hashedColumns(t), rows, []);
        rows.forEach((r, i) => expect(stored.get(t.mergeKey.map((k) => String((r as Record<string, unknown>)[k])).join('|'))).toBe(pinned[i]));
        const before = await snapshots(w);
        expect(await w.land(t, rows, [], 'E2')).toEqual({ received: rows.length, inserted: 0, updated: 0 });
        expect(await snapshots(w)).toBe(before);
      }
      // articles with their children: the stored hashes are the pinned ones
      const page = articlePage(9, 30);
      await land(w, page, 'E3');
      const kids = KIDS.map((table, i) => ({ table, key: 'article_id', rows: kidRows(page)[i]! }));
      const pinned = v2Hashes(hashedColumns(ARTICLES), page.rows, kids);
      const stored = new Map(
        (await w.query<{ k: string; h: string }>('SELECT article_id::VARCHAR AS k, row_hash AS h FROM articles')).map((r) => [r.k, r.h] as const),
      );
      page.rows.forEach((r, i) => expect(stored.get(r.article_id as string)).toBe(pinned[i]));
    } finally {
      w.close();
    }
  });

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
