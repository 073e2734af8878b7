/**
 * A writer process for the maintenance tests: lands `runs` runs of one pipeline into the
 * warehouse folder, as a 15-minute news pipeline does: each run one page of `perRun` articles
 * from index `from` of its day (run r is day r), plus `updates` articles of the previous run's
 * window from index `updFrom` with changed titles (an overlapping window), with their entities,
 * keywords and categories, one `_loads` row per run. Prints `landed <run> <epoch ms>` after each.
 * Usage: node --import tsx test/helpers/lake-updater.ts DIR NAME RUNS PER_RUN FROM UPDATES UPD_FROM
 */
import { Warehouse } from '../../warehouse/warehouse.js';
import { articlePage, landPage, type ArticlePage } from './articles.js';

/** The rows of pages `ps` as one page. */
export const joinPages = (...ps: ArticlePage[]): ArticlePage => ({
  rows: ps.flatMap((p) => p.rows),
  entities: ps.flatMap((p) => p.entities),
  keywords: ps.flatMap((p) => p.keywords),
  classes: ps.flatMap((p) => p.classes),
});

/** Run `r`'s page: `perRun` new articles of day r, and `updates` of day r-1 changed. */
export const runPage = (r: number, perRun: number, from: number, updates: number, updFrom: number): ArticlePage =>
  r > 0 && updates > 0 ? joinPages(articlePage(r, perRun, from), articlePage(r - 1, updates, updFrom, ' (updated)')) : articlePage(r, perRun, from);

if (process.argv[1]?.endsWith('lake-updater.ts')) {
  const [dir, name = 'w', runs = '20', perRun = '40', from = '0', updates = '10', updFrom = '0'] = process.argv.slice(2);
  const w = await Warehouse.open(dir!);
  for (let r = 0; r < Number(runs); r++) {
    const loadId = `${name}-${String(r).padStart(3, '0')}`;
    const startedAt = new Date();
    const counts = await landPage(w, runPage(r, Number(perRun), Number(from), Number(updates), Number(updFrom)), loadId);
    await w.recordLoad({ loadId, pipeline: name, kind: 'news', workflowId: null, runId: null, windowStart: null, windowEnd: null }, counts, startedAt);
    console.log(`landed ${r} ${Date.now()}`);
  }
  w.close();
}
