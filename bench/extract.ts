/**
 * Article extraction: quality and speed of each candidate extractor and of the chosen pipeline
 * (service/fetch/extract.ts, `extractArticle`), in one run.
 *
 * Pages (bench/extract-pages.ts, which prints where each set comes from and its license): the 35
 * Readability test pages of the shared folder, and the gathered sets (real pages that extraction
 * libraries ship with their expected text or snippets, fetched from the registries into the OS temp
 * dir by `node --import tsx bench/extract-pages.ts`). The bench runs on the shared pages alone
 * while the gathered sets are absent.
 *
 * Scores:
 * - a page with an expected text: the article-extraction-benchmark's (scrapinghub): shingles of 4
 *   `\w+` tokens, per page tp/fp/fn normalised to sum 1, precision and recall averaged over pages
 *   (a page with no output counts for recall with 0), F1 the harmonic mean of the two means;
 * - a page with snippets (trafilatura's evaluation): each `with` snippet found is a true positive,
 *   missed a false negative, each `without` snippet found a false positive; counts summed over the
 *   pages, then precision, recall and F1 (trafilatura's tests/comparison.py; whitespace collapsed in
 *   snippets and texts alike).
 * An extractor that gives HTML has it read to text with a line break after each block (htmlText).
 *
 * Each set is printed, then the outside pages (every set but shared) as the pages to tune on and the
 * held-out pages (the goose set and the odd half of each other set; bench/extract-pages.ts).
 *
 * Speed: pages per CPU second (one core; the machine is shared, so wall time says little), on the
 * shared pages (each page's least CPU time of 3 passes) and on all pages (one pass), each candidate
 * on every page in turn; trafilatura's is its own process time (one pass). The chosen pipeline is also read through the reader pool URL indexing uses.
 *
 * `node --import tsx bench/extract.ts [--pages] [--only=name,name] [--sets=set,set] [--before=REV]`:
 * `--pages` adds the per-page F1 of every candidate; `--before=REV` adds the pipeline as it was at
 * git revision REV (service/fetch/extract.ts at REV) as the candidate `before`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../service/fetch/extract.js';
import { ReaderPool, readerCount } from '../service/indexing/reader-pool.js';
import { type BenchPage, gatheredPages, htmlText, SETS, sharedPages, trafilaturaPython } from './extract-pages.js';
import { meanScores, pageF1, type PageScore, readabilityAlone, shingleScore, snippetScore, type SnippetScore, sumSnippets } from './extract-score.js';

// ---------- the candidates ----------

type Extract = (html: string, url: string) => string | Promise<string>;
type ExtractFn = typeof extractArticle;

const textOf =
  (fn: ExtractFn): Extract =>
  (html, url) => {
    const r = fn(html, url);
    return 'skipped' in r ? '' : r.text;
  };

/** extractArticle as service/fetch/extract.ts was at git revision `rev` (its imports resolved from here). */
async function pipelineAt(rev: string): Promise<ExtractFn> {
  const root = path.resolve(import.meta.dirname, '..');
  const source = execFileSync('git', ['show', `${rev}:service/fetch/extract.ts`], { cwd: root, encoding: 'utf8' }).replace(
    /from '([^']+)'/g,
    (_, spec: string) =>
      `from '${spec.startsWith('.') ? pathToFileURL(path.join(root, 'service', 'fetch', spec.replace(/\.js$/, '.ts'))).href : import.meta.resolve(spec)}'`,
  );
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-extract-before-')), 'extract.mts');
  fs.writeFileSync(file, source);
  return ((await import(pathToFileURL(file).href)) as { extractArticle: ExtractFn }).extractArticle;
}

async function loadCandidates(before?: string): Promise<Record<string, Extract>> {
  // the candidates read the page given, nothing else: no fetch reaches the network
  globalThis.fetch = () => Promise.reject(new Error('bench/extract.ts: candidates do not fetch'));
  const { Defuddle } = await import('defuddle/node');
  const { extractFromHtml } = await import('@extractus/article-extractor');
  // @ts-expect-error: the package has no types
  const postlight = (await import('@postlight/parser')).default as unknown as {
    parse(url: string, opts: { html: string; contentType: string; fetchAllPages: boolean }): Promise<{ content?: string } | null>;
  };
  return {
    readability: readabilityAlone,
    defuddle: async (html, url) => {
      const { document } = parseHTML(html);
      // no async extractors: they would fetch from third-party APIs
      const r = await Defuddle(document as unknown as Document, url, { useAsync: false });
      return r?.content ? htmlText(r.content) : '';
    },
    'article-extractor': async (html, url) => {
      const r = await extractFromHtml(html, url);
      return r?.content ? htmlText(r.content) : '';
    },
    postlight: async (html, url) => {
      const r = await postlight.parse(url, { html, contentType: 'html', fetchAllPages: false }); // no fetching of next pages
      return r?.content ? htmlText(r.content) : '';
    },
    ...(before ? { before: textOf(await pipelineAt(before)) } : {}),
    chosen: textOf(extractArticle),
  };
}

/** trafilatura (PyPI) in one python process over all pages: texts and its own CPU seconds per page. */
function runTrafilatura(pages: BenchPage[]): { texts: string[]; cpu: number[] } | null {
  const py = trafilaturaPython();
  if (!py) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-trafilatura-'));
  try {
    pages.forEach((p, i) => fs.writeFileSync(path.join(dir, `${i}.html`), p.html));
    const script = [
      'import json, sys, time, trafilatura',
      'n = int(sys.argv[2]); out = []; cpu = []',
      'docs = [open(f"{sys.argv[1]}/{i}.html", encoding="utf-8").read() for i in range(n)]',
      'for d in docs[:5]: trafilatura.extract(d)',
      'for d in docs:',
      '    t = time.process_time(); out.append(trafilatura.extract(d, include_comments=False) or ""); cpu.append(time.process_time() - t)',
      'print(json.dumps({"texts": out, "cpu": cpu}))',
    ].join('\n');
    return JSON.parse(execFileSync(py, ['-c', script, dir, String(pages.length)], { maxBuffer: 1 << 28, encoding: 'utf8' })) as {
      texts: string[];
      cpu: number[];
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------- scoring ----------

interface PageResult {
  shingles?: PageScore;
  snippets?: SnippetScore;
  empty: boolean;
  cpu: number;
}

interface Row {
  name: string;
  results: Map<string, PageResult>;
}

const score = (p: BenchPage, text: string, cpu: number): PageResult => ({
  shingles: p.snippets ? undefined : shingleScore(p.reference, text),
  snippets: p.snippets ? snippetScore(p.snippets, text) : undefined,
  empty: !text.trim(),
  cpu,
});

const SPEED_PASSES = 3;
const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '-');
const words = (text: string) => (text.match(/\p{L}+|\p{N}+/gu) ?? []).length;

interface Group {
  label: string;
  pages: BenchPage[];
}

function printGroup(g: Group, rows: Row[], summary: Record<string, number | string>, key: string): void {
  const text = g.pages.filter((p) => !p.snippets);
  const snip = g.pages.filter((p) => p.snippets);
  const long = new Set(text.filter((p) => words(p.reference) > 200).map((p) => p.id));
  const head = `${'candidate'.padEnd(18)} ${'F1'.padStart(6)} ${'P'.padStart(6)} ${'R'.padStart(6)} ${'empty'.padStart(6)}`;
  if (text.length) {
    console.log(`\n${g.label}: ${text.length} pages with an expected text (shingle F1; ${long.size} with more than 200 words)`);
    console.log(`${head} ${'>200w empty'.padStart(12)}`);
    for (const r of rows) {
      const res = text.map((p) => r.results.get(p.id)!);
      const m = meanScores(res.map((x) => x.shingles!));
      const empty = text.filter((p) => r.results.get(p.id)!.empty);
      const longEmpty = empty.filter((p) => long.has(p.id));
      console.log(
        `${r.name.padEnd(18)} ${fmt(m.f1).padStart(6)} ${fmt(m.precision).padStart(6)} ${fmt(m.recall).padStart(6)} ${String(empty.length).padStart(6)} ${String(longEmpty.length).padStart(12)}`,
      );
      summary[`${key}_${r.name}_f1`] = Number(fmt(m.f1));
      if (r.name === 'chosen' && longEmpty.length) summary[`${key}_chosen_long_empty`] = longEmpty.map((p) => p.id).join(' ');
    }
  }
  if (snip.length) {
    console.log(`\n${g.label}: ${snip.length} pages with snippets (trafilatura's evaluation: with/without counts summed)`);
    console.log(head);
    for (const r of rows) {
      const s = sumSnippets(snip.map((p) => r.results.get(p.id)!.snippets!));
      const empty = snip.filter((p) => r.results.get(p.id)!.empty).length;
      console.log(`${r.name.padEnd(18)} ${fmt(s.f1).padStart(6)} ${fmt(s.precision).padStart(6)} ${fmt(s.recall).padStart(6)} ${String(empty).padStart(6)}`);
      summary[`${key}_snippets_${r.name}_f1`] = Number(fmt(s.f1));
    }
  }
}

export async function benchExtract(
  opts: { pages?: boolean; only?: string[]; sets?: string[]; before?: string } = {},
): Promise<Record<string, number | string>> {
  let pages = [...sharedPages(), ...gatheredPages()];
  if (opts.sets) pages = pages.filter((p) => opts.sets!.includes(p.set));
  const loadBefore = os.loadavg()[0]!;
  let candidates = await loadCandidates(opts.before);
  if (opts.only) candidates = Object.fromEntries(Object.entries(candidates).filter(([n]) => opts.only!.includes(n)));
  const rows: Row[] = [];
  for (const [name, fn] of Object.entries(candidates)) {
    for (const p of pages.slice(0, 5)) await fn(p.html, p.url); // warm up
    const results = new Map<string, PageResult>();
    for (const p of pages) {
      const cpu0 = process.cpuUsage();
      const text = await Promise.resolve(fn(p.html, p.url)).catch(() => '');
      const cpu = process.cpuUsage(cpu0);
      results.set(p.id, score(p, text, (cpu.user + cpu.system) / 1e6));
    }
    // the shared pages' speed: the least CPU time of SPEED_PASSES passes over them, so that the
    // other work of a shared machine weighs less
    for (let pass = 1; pass < SPEED_PASSES; pass++)
      for (const p of pages.filter((x) => x.set === 'shared')) {
        const cpu0 = process.cpuUsage();
        await Promise.resolve(fn(p.html, p.url)).catch(() => '');
        const cpu = process.cpuUsage(cpu0);
        const r = results.get(p.id)!;
        r.cpu = Math.min(r.cpu, (cpu.user + cpu.system) / 1e6);
      }
    rows.push({ name, results });
  }
  if (!opts.only || opts.only.includes('trafilatura')) {
    const tr = runTrafilatura(pages);
    if (tr) {
      const results = new Map<string, PageResult>();
      pages.forEach((p, i) => results.set(p.id, score(p, tr.texts[i]!, tr.cpu[i]!)));
      rows.push({ name: 'trafilatura', results });
    } else console.log('trafilatura: no python with trafilatura (run bench/extract-pages.ts, or set NEWSFLOW_TRAFILATURA_PYTHON)');
  }

  const summary: Record<string, number | string> = { bench: 'extract: candidates and the chosen pipeline (shingle F1; snippets for trafilatura-eval)' };
  const sets = [...new Set(pages.map((p) => p.set))];
  console.log('sets:');
  for (const s of sets)
    console.log(
      `  ${s.padEnd(18)} ${String(pages.filter((p) => p.set === s).length).padStart(4)}  ${SETS[s]!.source}; ${SETS[s]!.license}; reference: ${SETS[s]!.reference}`,
    );
  for (const s of sets) printGroup({ label: `set ${s}`, pages: pages.filter((p) => p.set === s) }, rows, summary, s);
  const outside = pages.filter((p) => p.set !== 'shared');
  if (outside.length) {
    printGroup({ label: 'OUTSIDE, tune half', pages: outside.filter((p) => !p.heldOut) }, rows, summary, 'tune');
    printGroup({ label: 'OUTSIDE, HELD-OUT half', pages: outside.filter((p) => p.heldOut) }, rows, summary, 'heldout');
  }

  const speed = (r: Row, ps: BenchPage[]) => ps.length / ps.reduce((a, p) => a + r.results.get(p.id)!.cpu, 0);
  const shared = pages.filter((p) => p.set === 'shared');
  console.log(`\npages per CPU second, one thread`);
  console.log(`${'candidate'.padEnd(18)} ${`shared (${shared.length})`.padStart(12)} ${`all (${pages.length})`.padStart(12)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(18)} ${(shared.length ? speed(r, shared).toFixed(1) : '-').padStart(12)} ${speed(r, pages).toFixed(1).padStart(12)}`);
    if (shared.length) summary[`${r.name}_shared_pages_per_s`] = Number(speed(r, shared).toFixed(1));
    summary[`${r.name}_pages_per_s`] = Number(speed(r, pages).toFixed(1));
  }
  if (opts.pages) {
    console.log(
      `\nper-page F1 (snippet pages: with found / with, without found)\n${'page'.padEnd(44)} ${rows.map((r) => r.name.slice(0, 9).padStart(9)).join(' ')}`,
    );
    for (const p of pages) {
      const cell = (r: Row) => {
        const x = r.results.get(p.id)!;
        return x.snippets ? `${x.snippets.tp}/${x.snippets.tp + x.snippets.fn},${x.snippets.fp}` : fmt(pageF1(x.shingles!));
      };
      console.log(`${`${p.heldOut ? '*' : ' '}${p.id}`.slice(0, 44).padEnd(44)} ${rows.map((r) => cell(r).padStart(9)).join(' ')}`);
    }
  }

  // the chosen pipeline through the reader pool URL indexing uses
  if (!opts.only || opts.only.includes('chosen')) {
    const pool = new ReaderPool(readerCount());
    await Promise.all(pages.map((p) => pool.read(p.html, p.url))); // threads started and warm
    const tp = performance.now();
    await Promise.all(pages.map((p) => pool.read(p.html, p.url)));
    summary.pool_pages_per_s = Number((pages.length / ((performance.now() - tp) / 1000)).toFixed(1));
    summary.readers = readerCount();
    await pool.close();
  }
  summary.loadavg_1m = `${loadBefore.toFixed(2)} before / ${os.loadavg()[0]!.toFixed(2)} after`;
  return summary;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const list = (flag: string) =>
    process.argv
      .find((a) => a.startsWith(`--${flag}=`))
      ?.slice(flag.length + 3)
      .split(',');
  console.log(
    JSON.stringify(await benchExtract({ pages: process.argv.includes('--pages'), only: list('only'), sets: list('sets'), before: list('before')?.[0] })),
  );
}
