/**
 * Page reading speed: the 35 Readability test pages of the shared folder, each read as URL
 * indexing reads it (service/indexing/page.ts: Readability on linkedom, metadata, or the outline
 * of a page that is not an article), in one process. Goal: >= 20 pages/s on 2 cores.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readPage } from '../service/indexing/page.js';

const sharedDir = path.resolve(process.env.NEWSFLOW_SHARED_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared'));

export async function benchExtract(): Promise<Record<string, number | string>> {
  const dir = path.join(sharedDir, 'data', 'html', 'readability');
  const pages = fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, 'source.html'))).sort()
    .map((n) => ({ name: n, html: fs.readFileSync(path.join(dir, n, 'source.html'), 'utf8'), url: `https://pages.example/${n}/` }));
  const loadBefore = os.loadavg()[0]!;
  for (const p of pages) readPage(p.html, p.url); // warm up
  const rounds = 3;
  const times: number[] = [];
  let articles = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const p of pages) {
      const t = performance.now();
      const read = readPage(p.html, p.url);
      times.push(performance.now() - t);
      if (r === 0 && read.article) articles++;
    }
  }
  const total = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  times.sort((a, b) => a - b);
  const q = (f: number) => Number(times[Math.min(times.length - 1, Math.floor(f * times.length))]!.toFixed(2));
  return {
    bench: 'extract: read the 35 Readability pages (article or outline)',
    pages: pages.length,
    articles,
    rounds,
    pages_per_s: Number(((pages.length * rounds) / total).toFixed(1)),
    goal_pages_per_s: 20,
    // wall time depends on what else runs; CPU time is what the reading costs (one core)
    pages_per_cpu_s: Number(((pages.length * rounds) / cpuSeconds).toFixed(1)),
    ms_p50: q(0.5),
    ms_p95: q(0.95),
    ms_max: q(1),
    bytes_total: pages.reduce((a, p) => a + Buffer.byteLength(p.html), 0),
    loadavg_1m: `${loadBefore.toFixed(2)} before / ${os.loadavg()[0]!.toFixed(2)} after`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchExtract()));
