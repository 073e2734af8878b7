/**
 * `npm run bench`: runs every benchmark, prints one JSON line each (ratios measured in one run)
 * and records each in bench/results.json (its date, the load before and after, the figures).
 * `npm run bench -- landing walk` runs only those. Then `npm run bench:report` writes
 * docs/benchmarks.md from the results.
 */
import os from 'node:os';
import { benchAuth } from './auth.js';
import { benchSearch } from './search.js';
import { benchChat } from './chat.js';
import { benchGraph } from './graph.js';
import { benchExtract } from './extract.js';
import { benchStories } from './stories.js';
import { benchDeepNews } from './deepnews.js';
import { benchAutofilter } from './autofilter.js';
import { benchForum } from './forum.js';
import { benchWiki } from './wiki.js';
import { benchLanding } from './landing.js';
import { benchRowHashWhere } from './row-hash-where.js';
import { benchColdStart } from './coldstart.js';
import { benchWalk } from './walk.js';
import { benchCliStart } from './cli-start.js';
import { benchFeeds } from './feeds.js';
import { benchHttp } from './http.js';
import { benchMix } from './mix.js';
import { benchDay100 } from './day100.js';
import { benchScale } from './scale.js';
import { benchMetrics } from './metrics.js';
import { benchNoisyNeighbour } from './noisy-neighbour.js';
import { benchAnn } from './ann.js';
import { loadAvg1m, recordResult } from './results.js';

const benches: [id: string, run: () => Promise<Record<string, unknown>>][] = [
  ['auth', benchAuth],
  ['search', benchSearch],
  ['chat', benchChat],
  ['graph', benchGraph],
  ['extract', benchExtract],
  ['stories', benchStories],
  ['deepnews', benchDeepNews],
  ['autofilter', benchAutofilter],
  ['forum', benchForum],
  ['wiki', benchWiki],
  ['landing', benchLanding],
  ['row-hash-where', benchRowHashWhere],
  ['coldstart', benchColdStart],
  ['walk', benchWalk],
  ['http', benchHttp],
  ['mix', benchMix],
  ['cli-start', benchCliStart],
  ['feeds', benchFeeds],
  ['day100', benchDay100],
  ['scale', benchScale],
  ['metrics', benchMetrics],
  ['noisy-neighbour', benchNoisyNeighbour],
  ['ann', benchAnn],
];

/** The result's key: the bench's id, and for the walk its rate factor (NEWSFLOW_BENCH_WALK_FACTOR), whose runs are kept apart. */
const keyOf = (id: string, figures: Record<string, unknown>) => (typeof figures.factor === 'number' ? `${id}-x${figures.factor}` : id);

const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !benches.some(([id]) => id === a));
if (unknown.length) {
  console.error(`error: unknown bench ${unknown.join(', ')}; benches: ${benches.map(([id]) => id).join(', ')}`);
  process.exit(1);
}
for (const [id, run] of benches) {
  if (asked.length && !asked.includes(id)) continue;
  const date = new Date().toISOString();
  const before = loadAvg1m();
  const figures = await run();
  console.log(JSON.stringify(figures));
  recordResult(keyOf(id, figures), { date, machine: { cpus: os.cpus().length, load_avg_1m: { before, after: loadAvg1m() } }, figures });
}
