/**
 * The cost of one caller page joining the stories (issue 32, deliver 2: clustering of
 * caller-supplied text), and what running it in a thread would cost instead.
 *
 * An index_urls page in the shared corpus reaches StoryService.ingest one at a time
 * (NewsService.addArticles of one page), and StoryClusterer.assign of one article is one scan of
 * the active stories' unit centroids (those within `horizonMs` of its date; the dot products in
 * WebAssembly), a Jaccard per story above the floor, and a merge pass over the one story it may
 * found: linear in the active stories, with no other input from the caller than one 384-d vector
 * and its entities. The clusterer's state lives in the service's thread (every story's running sum,
 * span and entity counts); a thread that assigned for it would need that state each time (or a
 * copy of the clusterer kept in step, rebuilt when a budget replaces the thread), and the
 * structured clone of the active stories alone costs more than the assignment it would move.
 *
 * `node --import tsx bench/stories-assign.ts [stories]` (default 5,000, all active) prints one JSON line.
 */
import os from 'node:os';
import { StoryClusterer, type ClusterInput } from '../service/stories/cluster.js';
import { mulberry32 } from '../lib/random.js';
import { pct, round } from './stats.js';

const DIM = 384;

export function benchStoriesAssign(stories = 5_000, pages = 300): Record<string, unknown> {
  const loadBefore = os.loadavg()[0]!;
  const rnd = mulberry32(32);
  const unit = () => {
    const v = Float32Array.from({ length: DIM }, () => rnd() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const now = Date.UTC(2026, 0, 10);
  const c = new StoryClusterer();
  for (let i = 0; i < stories; i++)
    c.restore(`s${i}`, `a${i}`, [{ id: `a${i}`, pubMs: now - (i % 48) * 3_600_000, vector: unit(), entities: [`e${i % 97}`, `p${i % 13}`] }]);
  const assign: number[] = [];
  for (let j = 0; j < pages; j++) {
    const a: ClusterInput = { id: `page${j}`, pubMs: now, vector: unit(), entities: ['e1', 'p2'] };
    const t0 = performance.now();
    c.assign([a]);
    assign.push(performance.now() - t0);
  }
  // what one assignment in a thread would carry there: every active story's sum, size, span and entities
  const state = c.stories.map((s) => ({ id: s.id, sum: s.sum, n: s.n, first: s.first, last: s.last, entities: [...s.entities] }));
  const clone: number[] = [];
  for (let j = 0; j < 20; j++) {
    const t0 = performance.now();
    structuredClone(state);
    clone.push(performance.now() - t0);
  }
  return {
    bench: `stories: one caller page assigned against ${c.stories.length} active stories, and the structured clone of their state`,
    stories: c.stories.length,
    assign_p50_ms: round(pct(assign, 50), 2),
    assign_p99_ms: round(pct(assign, 99), 2),
    assign_max_ms: round(Math.max(...assign), 2),
    clone_state_p50_ms: round(pct(clone, 50), 2),
    clone_state_min_ms: round(Math.min(...clone), 2),
    loadavg_1m_before: loadBefore,
    loadavg_1m: os.loadavg()[0],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(benchStoriesAssign(Number(process.argv[2] ?? 5_000))));
