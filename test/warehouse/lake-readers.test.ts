/**
 * Readers never block the writer nor are blocked: 20 `newsflow sql` processes (REPLs on stdin,
 * each query at the lake's newest snapshot) read while a writer process lands 40 days of article
 * pages into the same lake. Every query answers, a newer snapshot never shows fewer articles, the
 * writer finishes with every row, and no snapshot file is ever written.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { bin } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/service.js';
import { waitUntil } from '../helpers/wait-until.js';

const DAYS = Number(process.env.LAKE_READERS_DAYS ?? 40);
const PER_DAY = 50;
const READERS = 20;

describe('lake readers during an ingest', () => {
  it('20 newsflow sql readers during a 40-day landing: none blocked or failed, counts never go back, no snapshot file', async () => {
    const dir = tempDir('newsflow-lake-readers-');
    // the lake exists before the readers start (a reader of a folder without one gets a clear error)
    (await Warehouse.open(dir)).close();

    const writer = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/helpers/lake-writer.ts'), dir, String(DAYS), String(PER_DAY)], {
      cwd: repoRoot,
    });
    let landedDays = 0;
    let writerErr = '';
    let writerDone = false;
    writer.stdout.on('data', (d: Buffer) => {
      for (const m of String(d).matchAll(/landed (\d+)/g)) landedDays = Number(m[1]) + 1;
    });
    writer.stderr.on('data', (d) => (writerErr += d));
    const writerExit = new Promise<number | null>((res) =>
      writer.on('close', (code) => {
        writerDone = true;
        res(code);
      }),
    );

    const q = 'SELECT (SELECT id FROM lake.current_snapshot()) AS s, (SELECT count(*) FROM articles) AS n, (SELECT count(*) FROM _loads) AS loads';
    const readings: { reader: number; s: number; n: number; loads: number; duringIngest: boolean }[] = [];
    const readerErrs: string[] = [];
    const reader = (i: number) =>
      new Promise<number | null>((resolve) => {
        const p = spawn(process.execPath, [bin, 'sql', '--format', 'json', '--warehouse', dir], { cwd: repoRoot });
        let buf = '';
        p.stdout.on('data', (d: Buffer) => {
          buf += String(d);
          for (let m = buf.match(/\[\{[^\n]*\}\]/); m; m = buf.match(/\[\{[^\n]*\}\]/)) {
            const [row] = JSON.parse(m[0]) as { s: number; n: number; loads: number }[];
            readings.push({ reader: i, s: Number(row!.s), n: Number(row!.n), loads: Number(row!.loads), duringIngest: !writerDone });
            buf = buf.slice(m.index! + m[0].length);
          }
        });
        p.stderr.on('data', (d) => readerErrs.push(`reader ${i}: ${d}`));
        p.on('close', resolve);
        // a query every ~2 s while the writer lands, then one more after it finished
        const tick = async () => {
          const done = writerDone;
          p.stdin.write(`${q}\n`);
          if (done) p.stdin.end();
          else setTimeout(tick, 1500 + Math.random() * 1000);
        };
        setTimeout(tick, i * 50);
      });
    // start the readers once the writer is landing
    await waitUntil(() => landedDays >= 1 || writerDone, { what: 'the writer landing its first day', timeoutMs: 120_000, intervalMs: 50 });
    const progress = setInterval(() => console.log(`progress: writer ${writerDone ? 'done' : `at day ${landedDays}`}, ${readings.length} answers`), 15_000);
    const readerCodes = await Promise.all(Array.from({ length: READERS }, (_, i) => reader(i)));
    const writerCode = await writerExit;
    clearInterval(progress);

    const during = readings.filter((r) => r.duringIngest);
    const byReader = Array.from({ length: READERS }, (_, i) => readings.filter((r) => r.reader === i).length);
    console.log(
      `writer: exit ${writerCode}, ${landedDays} days; readers: exit codes ${[...new Set(readerCodes)].join(',')}, ${readings.length} queries answered (${during.length} during the ingest; per reader min ${Math.min(...byReader)} max ${Math.max(...byReader)}); counts seen during the ingest: ${[...new Set(during.map((r) => r.n))].sort((a, b) => a - b).length} distinct, ${Math.min(...during.map((r) => r.n))}..${Math.max(...during.map((r) => r.n))}; reader errors: ${readerErrs.length}`,
    );
    expect(writerCode, writerErr).toBe(0);
    expect(landedDays).toBe(DAYS);
    expect(readerErrs).toEqual([]);
    expect(readerCodes.every((c) => c === 0)).toBe(true);
    expect(byReader.every((n) => n >= 2)).toBe(true);
    // the readers read while the writer landed, and saw it progress
    expect(new Set(during.map((r) => r.n)).size).toBeGreaterThan(1);
    // counts never go back: per reader in order, and across readers by snapshot
    for (let i = 0; i < READERS; i++) {
      const mine = readings.filter((r) => r.reader === i).map((r) => r.n);
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    const bySnap = [...readings].sort((a, b) => a.s - b.s);
    for (let k = 1; k < bySnap.length; k++) expect(bySnap[k]!.n).toBeGreaterThanOrEqual(bySnap[k - 1]!.n);
    // every reader's last query (after the writer finished) sees every row
    for (let i = 0; i < READERS; i++) expect(readings.filter((r) => r.reader === i).at(-1)).toMatchObject({ n: DAYS * PER_DAY, loads: DAYS });
    expect(fs.readdirSync(dir).filter((f) => /snapshot|warehouse\.duckdb/.test(f))).toEqual([]);
  }, 420_000);
});
