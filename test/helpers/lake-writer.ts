/**
 * A writer process for lake tests: lands `days` days of article pages (one page of `perDay`
 * articles with their entities, keywords and categories per day, one load per day, recorded in
 * `_loads`) into the warehouse folder, printing `landed <day> <articles so far>` after each.
 * Usage: node --import tsx test/helpers/lake-writer.ts DIR DAYS PER_DAY
 */
import { Warehouse } from '../../warehouse/warehouse.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS } from '../../warehouse/tables/index.js';
import { articlePage } from './articles.js';

const [dir, days = '40', perDay = '100'] = process.argv.slice(2);
const w = await Warehouse.open(dir!);
let total = 0;
for (let d = 0; d < Number(days); d++) {
  const p = articlePage(d, Number(perDay));
  const startedAt = new Date();
  const loadId = `day-${String(d).padStart(2, '0')}`;
  const counts = await w.land(
    ARTICLES,
    p.rows,
    [
      { table: ARTICLE_ENTITIES, rows: p.entities },
      { table: ARTICLE_KEYWORDS, rows: p.keywords },
      { table: ARTICLE_CLASSIFICATIONS, rows: p.classes },
    ],
    loadId,
  );
  await w.recordLoad(
    { loadId, pipeline: 'news_ingest', kind: 'news', workflowId: 'lake-writer', runId: String(process.pid), windowStart: null, windowEnd: null },
    counts,
    startedAt,
  );
  total += counts.inserted;
  console.log(`landed ${d} ${total}`);
}
w.close();
