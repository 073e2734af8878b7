/**
 * Autofilter latency (p50/p95): the 40 written descriptions of the test fixture, each read 25
 * times after a warm-up (the gazetteer and entity models load once), engine level, one run.
 */
import fs from 'node:fs';
import { autofilter } from '../service/autofilter/index.js';
import { pct, round } from './stats.js';

export async function benchAutofilter(): Promise<Record<string, unknown>> {
  const file = new URL('../test/fixtures/autofilter/descriptions.json', import.meta.url);
  const { now, cases } = JSON.parse(fs.readFileSync(file, 'utf8')) as { now: string; cases: { description: string }[] };
  const clock = Date.parse(now);
  const t0 = performance.now();
  autofilter(cases[0]!.description, clock);
  const firstMs = performance.now() - t0;
  for (const c of cases) autofilter(c.description, clock); // warm up
  const times: number[] = [];
  for (let round = 0; round < 25; round++) {
    for (const c of cases) {
      const t = performance.now();
      autofilter(c.description, clock);
      times.push(performance.now() - t);
    }
  }
  const p50 = round(pct(times, 50), 2);
  return {
    bench: 'autofilter: description -> search filters',
    descriptions: cases.length,
    runs: times.length,
    first_call_ms: Math.round(firstMs),
    p50_ms: p50,
    p95_ms: round(pct(times, 95), 2),
    goal_p50_ms: 20,
    met: p50 < 20,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchAutofilter()));
