/**
 * Lake maintenance (warehouse/maintain.ts, `newsflow warehouse maintain`):
 * - run again and again while two worker processes land overlapping pages with updates, it loses,
 *   doubles and blocks nothing: every row and row_hash equals a lake the same pages were landed
 *   into without maintenance, and landings finished while maintenance ran;
 * - the dry run changes nothing and lists per table (small pages inlined in the catalog, _loads' files); the
 *   real run flushes and merges them into one file a table; `sql --at` a
 *   load whose snapshot expired is one line naming the retention and the oldest reachable load.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Warehouse, type MaintainReport } from '../../warehouse/warehouse.js';
import { openLake } from '../../warehouse/lake.js';
import { landPage } from '../helpers/articles.js';
import { runPage } from '../helpers/lake-updater.js';
import { runCli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';
import { tempDirsPerTest } from '../helpers/temp-dirs.js';
import { waitUntil } from '../helpers/wait-until.js';

const made = tempDirsPerTest();
const RUNS = 8;
/** the two writers: 40 new articles a run from index 0 and from 20 (20 overlap, landed alike by both), 10 updates each of articles only it lands */
const WRITERS = [
  { name: 'a', from: 0, updFrom: 0 },
  { name: 'b', from: 20, updFrom: 50 },
];

/** Per news table: rows, distinct keys, and an order-free hash of every row's content (the parent's row_hash covers its children). */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const l = await openLake({ dir, readOnly: true });
  const one = async (sql: string) => {
    const r = (await l.conn.runAndReadAll(sql)).getRowObjectsJS()[0]!;
    return Object.values(r).map(String).join(' ');
  };
  try {
    return {
      articles: await one(
        'SELECT count(*), count(DISTINCT article_id), sum(hash(article_id, row_hash)::HUGEINT), sum(hash(article_id, title, raw::VARCHAR)::HUGEINT) FROM articles',
      ),
      article_entities: await one(
        'SELECT count(*), count(DISTINCT (article_id, type, value)), sum(hash(article_id, type, value)::HUGEINT) FROM article_entities',
      ),
      article_keywords: await one('SELECT count(*), count(DISTINCT (article_id, keyword)), sum(hash(article_id, keyword)::HUGEINT) FROM article_keywords'),
      article_classifications: await one(
        'SELECT count(*), count(DISTINCT (article_id, category)), sum(hash(article_id, category)::HUGEINT) FROM article_classifications',
      ),
    };
  } finally {
    l.close();
  }
}

const files = (r: MaintainReport, t: string, when: 'before' | 'after') => r[when].find((x) => x.table === t)?.files ?? 0;

describe('lake maintenance', () => {
  it('run again and again while two workers land pages with updates: every row and row_hash equal a lake landed without it; landings went on during it', async () => {
    // the reference: the same pages landed in one process, no maintenance
    const ref = made('newsflow-maint-ref-');
    const w0 = await Warehouse.open(ref);
    for (let r = 0; r < RUNS; r++)
      for (const x of WRITERS) await landPage(w0, runPage(r, 40, x.from, 10, x.updFrom), `${x.name}-${String(r).padStart(3, '0')}`);
    w0.close();

    const dir = made('newsflow-maint-');
    const w = await Warehouse.open(dir);
    const landed: number[] = [];
    const errs: string[] = [];
    let running = 0;
    const writers = WRITERS.map(
      (x) =>
        new Promise<number | null>((resolve) => {
          running++;
          const p = spawn(
            process.execPath,
            ['--import', 'tsx', path.join(repoRoot, 'test/helpers/lake-updater.ts'), dir, x.name, String(RUNS), '40', String(x.from), '10', String(x.updFrom)],
            { cwd: repoRoot },
          );
          p.stdout.on('data', (d: Buffer) => {
            for (const m of String(d).matchAll(/landed \d+ (\d+)/g)) landed.push(Number(m[1]));
          });
          p.stderr.on('data', (d) => errs.push(String(d)));
          p.on('close', (code) => {
            running--;
            resolve(code);
          });
        }),
    );
    // maintenance, run after run, while they land (every snapshot but the last expires at once)
    const runs: { start: number; end: number; r: MaintainReport }[] = [];
    // from the writers' fourth landing on: there are files to rewrite and merge
    await waitUntil(() => landed.length >= 4 || running === 0, { what: 'four landings', timeoutMs: 300_000 });
    while (running > 0) {
      const start = Date.now();
      const r = await w.maintain({ retentionDays: 0, log: (line) => console.log(`maintenance ${runs.length + 1}: ${line}`) });
      runs.push({ start, end: Date.now(), r });
    }
    const codes = await Promise.all(writers);
    expect(errs.join(''), 'the writers fail on nothing').not.toMatch(/Error/);
    expect(codes).toEqual([0, 0]);
    // after the landings: files nothing references any more are deleted too
    const last = await w.maintain({ retentionDays: 0, cleanupGraceMs: 0 });
    w.close();

    const during = landed.filter((t) => runs.some((m) => t > m.start && t < m.end)).length;
    console.log(
      `maintenance runs during the landings: ${runs.length}; landings finished during one: ${during} of ${landed.length}; ` +
        `articles files ${files(last, 'articles', 'before')} -> ${files(last, 'articles', 'after')}, files deleted ${last.filesDeleted.length}`,
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(
      runs.some((m) => m.r.steps.some((x) => x.step === 'rewrite' && x.count > 0)),
      'a run rewrote files the writers had landed',
    ).toBe(true);
    expect(landed).toHaveLength(2 * RUNS);
    expect(during, 'landings are not blocked while maintenance runs').toBeGreaterThan(0);
    const [got, want] = [await fingerprint(dir), await fingerprint(ref)];
    console.log('with maintenance   ', JSON.stringify(got));
    console.log('without maintenance', JSON.stringify(want));
    expect(got).toEqual(want);
    // 2 writers x RUNS runs x (40 - the 20 the other writer lands too) distinct articles, no key twice
    expect(got.articles!.split(' ').slice(0, 2)).toEqual([String(RUNS * 60), String(RUNS * 60)]);
    expect(files(last, 'articles', 'after')).toBeLessThanOrEqual(2);

    // one _loads row per maintenance run, kind maintenance, its steps' figures kept
    const l = await openLake({ dir, readOnly: true });
    const [row] = (
      await l.conn.runAndReadAll("SELECT count(*) AS n, max(invariants->>'$.steps.merge.ms') AS ms FROM _loads WHERE kind = 'maintenance'")
    ).getRowObjectsJS();
    l.close();
    expect(Number(row!.n)).toBe(runs.length + 1);
    expect(row!.ms).not.toBeNull();
  }, 600_000);

  it('--dry-run lists per table and changes nothing; the real run merges the files; sql --at an expired load is one line naming the retention and the oldest load still reachable', async () => {
    const dir = made('newsflow-maint-cli-');
    const w = await Warehouse.open(dir);
    for (let r = 0; r < 6; r++) {
      const loadId = `run-${r}`;
      const counts = await landPage(w, runPage(r, 40, 0, 10, 0), loadId);
      await w.recordLoad({ loadId, pipeline: 'p', kind: 'news', workflowId: null, runId: null, windowStart: null, windowEnd: null }, counts, new Date());
    }
    w.close();

    const dry = await runCli(['warehouse', 'maintain', '--dry-run', '--retention', '0', '--warehouse', dir]);
    expect(dry.err).toBe('');
    expect(dry.code).toBe(0);
    // the pages (40 articles) went into the catalog (under the inlining limit): no file, 240 inlined
    // rows; _loads is never inlined: its 6 files would be merged
    expect(dry.out).toMatch(/^articles\s+0\s+240\s+0\s+0\s+0$/m);
    expect(dry.out).toMatch(/^_loads\s+6\s+0\s+0\s+6\s+0$/m);
    expect(dry.out).toMatch(/dry run: \d+ files; would expire \d+ snapshots \(retention 0 days\)/);
    const again = await runCli(['warehouse', 'maintain', '--dry-run', '--retention', '0', '--warehouse', dir]);
    expect(again.out.replace(/\s+\d+ ms/g, '')).toBe(dry.out.replace(/\s+\d+ ms/g, ''));

    const real = await runCli(['warehouse', 'maintain', '--retention', '0', '--grace', '0', '--warehouse', dir]);
    expect(real.err).toBe('');
    expect(real.code).toBe(0);
    // flushed into one file; _loads' files merged into one
    expect(real.out).toMatch(/^articles\s+0\s+1\s+240$/m);
    expect(real.out).toMatch(/^_loads\s+6\s+1\s+6$/m);
    expect(real.out).toMatch(/snapshots expired \(retention 0 days\); [1-9]\d* files deleted/);

    const at = await runCli(['sql', '--at', 'run-1', '--warehouse', dir, 'SELECT count(*) AS n FROM articles']);
    console.log(at.err.trim());
    expect(at.code).toBe(1);
    expect(at.err.trim().split('\n')).toHaveLength(1);
    expect(at.err).toMatch(
      /^error: load "run-1" has expired: the warehouse keeps snapshots for 0 days \(newsflow warehouse maintain\); the oldest load still reachable is "maintenance-[^"]+" \(finished \d{4}-/,
    );
    // the newest data is all there
    const now = await runCli(['sql', '--format', 'json', '--warehouse', dir, 'SELECT count(*) AS n FROM articles']);
    expect(JSON.parse(now.out)).toEqual([{ n: 240 }]);
  }, 300_000);
});
