/**
 * Small landings go into the catalog (warehouse.ts `INLINE_ROW_LIMIT`, `inlineLimitOf`): at open,
 * newsflow's tables get DuckLake's data_inlining_row_limit 1000, tables with a float column and
 * `_loads` 0, and a limit set by hand is kept; a page of 40 articles with updates writes no data
 * file into the news tables (land's delete and insert, not a MERGE); a custom table gets the same rule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INLINE_ROW_LIMIT, Warehouse } from '../../warehouse/warehouse.js';
import { openLake } from '../../warehouse/lake.js';
import { defineTable } from '../../warehouse/tables/define.js';
import { articlePage, landPage } from '../helpers/articles.js';
import { tempDir } from '../helpers/service.js';

async function limits(dir: string): Promise<Record<string, number>> {
  const l = await openLake({ dir, readOnly: true });
  try {
    const rows = (
      await l.conn.runAndReadAll(`SELECT scope_entry, value FROM lake.options() WHERE option_name = 'data_inlining_row_limit' AND scope = 'TABLE'`)
    ).getRowObjectsJS();
    return Object.fromEntries(rows.map((r) => [String(r.scope_entry).replace(/^main\./, ''), Number(r.value)]));
  } finally {
    l.close();
  }
}

const parquetFiles = (dir: string, table: string) => {
  const d = path.join(dir, 'lake', 'main', table);
  return fs.existsSync(d) ? fs.readdirSync(d, { recursive: true }).filter((f) => String(f).endsWith('.parquet')) : [];
};

describe('small landings in the catalog', () => {
  it('newsflow tables get the limit at open (float tables and _loads 0), a hand-set limit is kept, a page with updates writes no news file', async () => {
    const dir = tempDir('newsflow-inline-');
    const w = await Warehouse.open(dir);
    await landPage(w, articlePage(0, 40), 'one');
    // the next page: 10 of the first's articles changed (their titles) and 10 new: the update path
    await landPage(w, articlePage(0, 20, 30, ' (updated)'), 'two');
    w.close();
    const got = await limits(dir);
    expect(got.articles).toBe(INLINE_ROW_LIMIT);
    expect(got.article_entities).toBe(INLINE_ROW_LIMIT);
    expect(got._loads).toBe(0);
    // sentiment DOUBLE columns: never inlined
    expect(got.story_metrics).toBe(0);
    expect(got.stories).toBe(0);
    for (const t of ['articles', 'article_entities', 'article_keywords', 'article_classifications']) expect(parquetFiles(dir, t), t).toEqual([]);

    const l = await openLake({ dir });
    try {
      const [r] = (await l.conn.runAndReadAll(`SELECT count(*) AS n, count(*) FILTER (WHERE title LIKE '%(updated)') AS upd FROM articles`)).getRowObjectsJS();
      expect({ n: Number(r!.n), upd: Number(r!.upd) }).toEqual({ n: 50, upd: 20 });
      await l.conn.run(`CALL lake.set_option('data_inlining_row_limit', 10, table_name => 'articles')`);
    } finally {
      l.close();
    }
    (await Warehouse.open(dir)).close();
    expect((await limits(dir)).articles).toBe(10);
  }, 120_000);

  it('a custom table gets the same rule: 1000, or 0 with a float column', async () => {
    const dir = tempDir('newsflow-inline-custom-');
    const w = await Warehouse.open(dir);
    await w.ensureTables([
      defineTable({
        name: 'query_counts',
        description: 'counts',
        columns: [
          ['query', 'VARCHAR', 'varchar'],
          ['n', 'BIGINT', 'bigint'],
        ],
        mergeKey: ['query'],
      }),
      defineTable({
        name: 'scores',
        description: 'scores',
        columns: [
          ['k', 'VARCHAR', 'varchar'],
          ['score', 'DOUBLE', 'double'],
        ],
        mergeKey: ['k'],
      }),
    ]);
    w.close();
    const got = await limits(dir);
    expect(got.query_counts).toBe(INLINE_ROW_LIMIT);
    expect(got.scores).toBe(0);
  }, 120_000);
});
