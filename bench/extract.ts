/**
 * Page reading speed: the 35 Readability test pages of the shared folder, each read as URL
 * indexing reads it (service/indexing/page.ts: Readability on linkedom, metadata, or the outline
 * of a page that is not an article): through the reader pool URL indexing and web search use
 * (service/indexing/reader-pool.ts, one worker thread per core), all pages of a round at once;
 * and, for the cost per page, in this thread. Goal: >= 20 pages/s on 2 cores.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readPage } from '../service/indexing/page.js';
import { ReaderPool, readerCount } from '../service/indexing/reader-pool.js';

const sharedDir = path.resolve(process.env.NEWSFLOW_SHARED_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared'));

export async function benchExtract(): Promise<Record<string, number | string>> {
  const dir = path.join(sharedDir, 'data', 'html', 'readability');
  const pages = fs
    .readdirSync(dir)
    .filter((n) => fs.existsSync(path.join(dir, n, 'source.html')))
    .sort()
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
  // the pool: every page of a round queued at once, as a job of many URLs does
  const pool = new ReaderPool(readerCount());
  await Promise.all(pages.map((p) => pool.read(p.html, p.url))); // threads started and warm
  const tp = performance.now();
  for (let r = 0; r < rounds; r++) await Promise.all(pages.map((p) => pool.read(p.html, p.url)));
  const pooled = (performance.now() - tp) / 1000;
  await pool.close();
  times.sort((a, b) => a - b);
  const q = (f: number) => Number(times[Math.min(times.length - 1, Math.floor(f * times.length))]!.toFixed(2));
  return {
    bench: 'extract: read the 35 Readability pages (article or outline)',
    pages: pages.length,
    articles,
    rounds,
    readers: readerCount(),
    pages_per_s: Number(((pages.length * rounds) / pooled).toFixed(1)),
    goal_pages_per_s: 20,
    pages_per_s_one_thread: Number(((pages.length * rounds) / total).toFixed(1)),
    // wall time depends on what else runs; CPU time is what the reading costs (one core)
    pages_per_cpu_s: Number(((pages.length * rounds) / cpuSeconds).toFixed(1)),
    // per page, in this thread
    ms_p50: q(0.5),
    ms_p95: q(0.95),
    ms_max: q(1),
    bytes_total: pages.reduce((a, p) => a + Buffer.byteLength(p.html), 0),
    loadavg_1m: `${loadBefore.toFixed(2)} before / ${os.loadavg()[0]!.toFixed(2)} after`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchExtract()));
