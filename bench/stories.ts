/**
 * Story clustering (service/stories/cluster.ts) scored on labelled events, in one run: the
 * assignment alone (the previous default: an article joins the story whose centroid it is
 * closest to at score >= 0.60, else founds one) and the chosen method (the same assignment, then
 * the average-linkage merge at `mergeThreshold`), both given no number of stories. The
 * assignment-only rows run this code with the merge off: the previous default's decisions, at
 * this code's speed (its centroid scan runs in WebAssembly; the previous code's JS loop was slower).
 *
 * Data: the MStream "Tweets" set of the shared folder (30,322 texts, 269 events; see
 * bench/stories-data.ts), embedded with the service's MiniLM. It has no dates and no entities:
 * every text gets the same pub_date (every story is active for every text) and no entities, and
 * the texts go to the clusterer in the order of their ids. Sets:
 * - `stream`: all texts in the set's stream order; `shuffled`: in a seeded random order;
 * - `150 events, 11k` and `50 events, 3k`: texts of events drawn at random (seeded), subsampled to
 *   about the size of an outside set of 11k headlines in 150 stories (and a smaller one);
 * - `11k, batches of 100` and `one at a time`: the 11k set given to one clusterer 100 texts (one
 *   text) at a time, as a stream: each batch joins or merges into the stories of the batches
 *   before it, which never merge with each other;
 * - held-out calibration: the events split in two halves (seeded); `mergeThreshold` is chosen on
 *   the tuning half (the best B-cubed F1 with B-cubed precision >= 0.85, over a grid) and scored
 *   on the other half beside the default.
 *
 * Scores (bench/cluster-metrics.ts): B-cubed precision, recall and F1, pairwise precision and
 * recall, ARI, NMI (geometric mean, as the set's README quotes), the number of clusters, and the
 * clusterer's CPU and wall seconds.
 *
 * `node --import tsx bench/stories.ts` prints the tables and a JSON line; `--quick` skips the
 * full-size sets.
 */
import os from 'node:os';
import { CLUSTER_PARAMS, StoryClusterer, type ClusterInput, type ClusterParams } from '../service/stories/cluster.js';
import { mulberry32 } from '../lib/random.js';
import { scoreClustering, type ClusterScores } from './cluster-metrics.js';
import { loadMstream, type LabelledText } from './stories-data.js';

interface Method {
  name: string;
  params: ClusterParams;
}

/** the previous default: assignment alone */
const CURRENT: Method = { name: 'assignment only (previous)', params: { ...CLUSTER_PARAMS, mergeThreshold: Infinity } };
const CHOSEN: Method = { name: `chosen (merge ${CLUSTER_PARAMS.mergeThreshold})`, params: CLUSTER_PARAMS };

interface Run extends ClusterScores {
  set: string;
  method: string;
  cpuSeconds: number;
  wallSeconds: number;
}

/** Cluster texts (in the given order) and score them; `batch` > 0 gives them `batch` at a time. */
function run(set: string, method: Method, texts: LabelledText[], batch = 0): Run {
  const inputs: ClusterInput[] = texts.map((t, i) => ({ id: String(i).padStart(6, '0'), pubMs: 0, vector: t.vector, entities: [] }));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const c = new StoryClusterer(method.params);
  const storyOf = new Map<string, string>();
  const size = batch > 0 ? batch : inputs.length;
  for (let i = 0; i < inputs.length; i += size) for (const a of c.assign(inputs.slice(i, i + size))) storyOf.set(a.articleId, a.storyId);
  const cpu = process.cpuUsage(cpu0);
  const wallSeconds = (performance.now() - t0) / 1000;
  // a story of an earlier batch is never merged away, so each article's last assignment is final
  const scores = scoreClustering(
    inputs.map((a) => storyOf.get(a.id)!),
    texts.map((t) => t.label),
  );
  return { set, method: method.name, ...scores, cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds };
}

function shuffled<T>(xs: T[], seed: number): T[] {
  const rnd = mulberry32(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Texts of `events` events drawn at random, subsampled to about `size` texts, in stream order. */
function sample(rows: LabelledText[], events: number, size: number, seed: number): LabelledText[] {
  const labels = shuffled(
    [...new Set(rows.map((r) => r.label))].sort((a, b) => a - b),
    seed,
  ).slice(0, events);
  const keep = new Set(labels);
  const pool = rows.filter((r) => keep.has(r.label));
  const rnd = mulberry32(seed + 1);
  const p = Math.min(1, size / pool.length);
  return pool.filter(() => rnd() < p);
}

/** The events split in two halves at random. */
function halves(rows: LabelledText[], seed: number): [LabelledText[], LabelledText[]] {
  const labels = shuffled(
    [...new Set(rows.map((r) => r.label))].sort((a, b) => a - b),
    seed,
  );
  const first = new Set(labels.slice(0, Math.ceil(labels.length / 2)));
  return [rows.filter((r) => first.has(r.label)), rows.filter((r) => !first.has(r.label))];
}

const f3 = (x: number) => x.toFixed(3);
const HEADER = `${'set'.padEnd(22)} ${'method'.padEnd(27)} ${'texts'.padStart(6)} ${'events'.padStart(6)} ${'clusters'.padStart(8)} ${'B3 P'.padStart(6)} ${'B3 R'.padStart(6)} ${'B3 F1'.padStart(6)} ${'pair P'.padStart(6)} ${'pair R'.padStart(6)} ${'ARI'.padStart(6)} ${'NMI'.padStart(6)} ${'cpu s'.padStart(6)} ${'wall s'.padStart(6)}`;
const line = (r: Run) =>
  `${r.set.padEnd(22)} ${r.method.padEnd(27)} ${String(r.n).padStart(6)} ${String(r.classes).padStart(6)} ${String(r.clusters).padStart(8)} ${f3(r.bcubedPrecision).padStart(6)} ${f3(r.bcubedRecall).padStart(6)} ${f3(r.bcubedF1).padStart(6)} ${f3(r.pairPrecision).padStart(6)} ${f3(r.pairRecall).padStart(6)} ${f3(r.ari).padStart(6)} ${f3(r.nmi).padStart(6)} ${r.cpuSeconds.toFixed(1).padStart(6)} ${r.wallSeconds.toFixed(1).padStart(6)}`;

export async function benchStories(opts: { quick?: boolean } = {}): Promise<Record<string, unknown>> {
  const loadBefore = os.loadavg()[0]!;
  const rows = await loadMstream();
  const summary: Record<string, unknown> = { bench: 'stories: MStream events, assignment only vs the chosen merge, no number of stories given' };
  const show = (r: Run) => {
    console.log(line(r));
    const method = r.method === CURRENT.name ? 'current' : r.method === CHOSEN.name ? 'chosen' : r.method;
    const key = `${r.set}:${method}`.replace(/[^a-z0-9:.]+/gi, '_');
    summary[key] = {
      b3_f1: Number(f3(r.bcubedF1)),
      b3_p: Number(f3(r.bcubedPrecision)),
      b3_r: Number(f3(r.bcubedRecall)),
      ari: Number(f3(r.ari)),
      nmi: Number(f3(r.nmi)),
      clusters: r.clusters,
      cpu_s: Number(r.cpuSeconds.toFixed(1)),
    };
    return r;
  };

  console.log(`MStream tweets: ${rows.length} texts, ${new Set(rows.map((r) => r.label)).size} events\n`);
  console.log(HEADER);
  const sets: [string, LabelledText[], number][] = [];
  if (!opts.quick) sets.push(['stream', rows, 0], ['shuffled', shuffled(rows, 7), 0]);
  const s11 = sample(rows, 150, 11_000, 11);
  sets.push(
    ['150 events, 11k', s11, 0],
    ['150 events, 11k, shuf', shuffled(s11, 12), 0],
    ['50 events, 3k', sample(rows, 50, 3_000, 3), 0],
    ['11k, batches of 100', s11, 100],
    ['11k, one at a time', s11, 1],
  );
  for (const [name, texts, batch] of sets) for (const m of [CURRENT, CHOSEN]) show(run(name, m, texts, batch));

  // held-out calibration of mergeThreshold
  const [tune, test] = halves(rows, 2018);
  console.log(`\nheld-out calibration: mergeThreshold chosen on one half of the events (${tune.length} texts), scored on the other (${test.length} texts)`);
  console.log(HEADER);
  const grid = [0.25, 0.275, 0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.5];
  let best: Run | null = null;
  let bestTau = CLUSTER_PARAMS.mergeThreshold;
  for (const tau of grid) {
    const r = show(run('tuning half', { name: `merge ${tau}`, params: { ...CLUSTER_PARAMS, mergeThreshold: tau } }, tune));
    if (r.bcubedPrecision >= 0.85 && (!best || r.bcubedF1 > best.bcubedF1)) {
      best = r;
      bestTau = tau;
    }
  }
  console.log(`chosen on the tuning half: mergeThreshold ${bestTau} (best B-cubed F1 with precision >= 0.85); the default is ${CLUSTER_PARAMS.mergeThreshold}`);
  show(run('held-out half', CURRENT, test));
  show(run('held-out half', { name: `merge ${bestTau} (tuned)`, params: { ...CLUSTER_PARAMS, mergeThreshold: bestTau } }, test));
  if (bestTau !== CLUSTER_PARAMS.mergeThreshold) show(run('held-out half', CHOSEN, test));
  summary.tuned_merge_threshold = bestTau;
  summary.default_merge_threshold = CLUSTER_PARAMS.mergeThreshold;
  summary.loadavg_1m = `${loadBefore.toFixed(2)} before / ${os.loadavg()[0]!.toFixed(2)} after`;
  return summary;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchStories({ quick: process.argv.includes('--quick') })));
