/**
 * The bench results kept as data (bench/results.json): one entry per bench, the last run's, with
 * its date, the machine's load and the figures the bench printed. `npm run bench` writes them
 * (bench/run.ts); `npm run bench:report` makes docs/benchmarks.md from them (bench/report.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));

export interface BenchEntry {
  /** when the bench started (ISO, UTC); a day alone when only the day is known */
  date: string;
  machine: {
    cpus: number;
    /** 1-minute load average before and after the run (other work shares the machine) */
    load_avg_1m: { before?: number; after?: number };
  };
  /** set on figures written by hand from an earlier record, not by a run of bench/run.ts: where they come from */
  seeded?: string;
  /** the JSON line the bench printed */
  figures: Record<string, unknown>;
}

export interface Results {
  about: string;
  benches: Record<string, BenchEntry>;
}

export function readResults(file = RESULTS_FILE): Results {
  if (!fs.existsSync(file)) return { about: 'bench results: npm run bench writes them, npm run bench:report makes docs/benchmarks.md', benches: {} };
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Results;
}

/** Replace the entry of `id` (keys kept in order, so a diff shows what changed). */
export function recordResult(id: string, entry: BenchEntry, file = RESULTS_FILE): void {
  const results = readResults(file);
  results.benches[id] = entry;
  results.benches = Object.fromEntries(Object.entries(results.benches).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

export const loadAvg1m = (): number => Number(os.loadavg()[0]!.toFixed(2));
