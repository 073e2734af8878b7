/**
 * Article extraction: quality and speed of each candidate extractor and of the chosen pipeline
 * (service/fetch/extract.ts, `extractArticle`), in one run.
 *
 * Pages (bench/extract-pages.ts): the 35 Readability test pages of the shared folder, and the
 * gathered pages (real pages that extraction libraries ship with their expected text, fetched from
 * the registries into the OS temp dir by `node --import tsx bench/extract-pages.ts`); the two sets
 * are reported apart, and the bench runs on the shared pages alone while the gathered set is absent.
 *
 * Score: the article-extraction-benchmark's (scrapinghub): shingles of 4 `\w+` tokens, per page
 * tp/fp/fn normalised to sum 1, precision and recall averaged over pages (a page with no output
 * counts for recall with 0), F1 the harmonic mean of the two means. An extractor that gives HTML
 * has it read to text with a line break after each block (bench/extract-pages.ts, htmlText).
 *
 * Speed: pages per CPU second (one core; the machine is shared, so wall time says little), each
 * candidate on every page in turn; trafilatura's is its own process time. The
 * chosen pipeline is also read through the reader pool URL indexing uses (one worker per core).
 *
 * `node --import tsx bench/extract.ts` prints a table per set and a JSON line; `--pages` adds the
 * per-page F1 of every candidate; `--only=name,name` runs some candidates.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../service/fetch/extract.js';
import { ReaderPool, readerCount } from '../service/indexing/reader-pool.js';
import { type BenchPage, gatheredPages, htmlText, sharedPages, trafilaturaPython } from './extract-pages.js';
import { meanScores, pageF1, type PageScore, readabilityAlone, shingleScore } from './extract-score.js';

// ---------- the candidates ----------

type Extract = (html: string, url: string) => string | Promise<string>;

const chosen: Extract = (html, url) => {
  const r = extractArticle(html, url);
  return 'skipped' in r ? '' : r.text;
};

async function loadCandidates(): Promise<Record<string, Extract>> {
  const { Defuddle } = await import('defuddle/node');
  const { extractFromHtml } = await import('@extractus/article-extractor');
  // @ts-expect-error: the package has no types
  const postlight = (await import('@postlight/parser')).default as unknown as {
    parse(url: string, opts: { html: string; contentType: string }): Promise<{ content?: string } | null>;
  };
  return {
    readability: readabilityAlone,
    defuddle: async (html, url) => {
      const { document } = parseHTML(html);
      const r = await Defuddle(document as unknown as Document, url);
      return r?.content ? htmlText(r.content) : '';
    },
    'article-extractor': async (html, url) => {
      const r = await extractFromHtml(html, url);
      return r?.content ? htmlText(r.content) : '';
    },
    postlight: async (html, url) => {
      const r = await postlight.parse(url, { html, contentType: 'html' });
      return r?.content ? htmlText(r.content) : '';
    },
    chosen,
  };
}

/** trafilatura (PyPI) in one python process over all pages: texts and its own CPU seconds. */
function runTrafilatura(pages: BenchPage[]): { texts: string[]; cpuSeconds: number } | null {
  const py = trafilaturaPython();
  if (!py) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-trafilatura-'));
  try {
    pages.forEach((p, i) => fs.writeFileSync(path.join(dir, `${i}.html`), p.html));
    const script = [
      'import json, sys, time, trafilatura',
      'n = int(sys.argv[2]); out = []',
      'docs = [open(f"{sys.argv[1]}/{i}.html", encoding="utf-8").read() for i in range(n)]',
      't = time.process_time()',
      'for d in docs: out.append(trafilatura.extract(d, include_comments=False) or "")',
      'print(json.dumps({"texts": out, "cpu": time.process_time() - t}))',
    ].join('\n');
    const r = JSON.parse(execFileSync(py, ['-c', script, dir, String(pages.length)], { maxBuffer: 1 << 28, encoding: 'utf8' })) as {
      texts: string[];
      cpu: number;
    };
    return { texts: r.texts, cpuSeconds: r.cpu };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Row {
  name: string;
  perPage: Map<string, PageScore>;
  empty: string[];
  pagesPerS: number;
}

const fmt = (x: number) => x.toFixed(3);

export async function benchExtract(opts: { pages?: boolean; only?: string[] } = {}): Promise<Record<string, number | string>> {
  const pages = [...sharedPages(), ...gatheredPages()];
  const loadBefore = os.loadavg()[0]!;
  let candidates = await loadCandidates();
  if (opts.only) candidates = Object.fromEntries(Object.entries(candidates).filter(([n]) => opts.only!.includes(n)));
  const rows: Row[] = [];
  for (const [name, fn] of Object.entries(candidates)) {
    for (const p of pages.slice(0, 5)) await fn(p.html, p.url); // warm up
    const perPage = new Map<string, PageScore>();
    const empty: string[] = [];
    const cpu0 = process.cpuUsage();
    for (const p of pages) {
      const text = await Promise.resolve(fn(p.html, p.url)).catch(() => '');
      if (!text.trim()) empty.push(p.id);
      perPage.set(p.id, shingleScore(p.reference, text));
    }
    const cpu = process.cpuUsage(cpu0);
    rows.push({ name, perPage, empty, pagesPerS: pages.length / ((cpu.user + cpu.system) / 1e6) });
  }
  if (!opts.only || opts.only.includes('trafilatura')) {
    const tr = runTrafilatura(pages);
    if (tr) {
      const perPage = new Map<string, PageScore>();
      pages.forEach((p, i) => perPage.set(p.id, shingleScore(p.reference, tr.texts[i]!)));
      rows.push({
        name: 'trafilatura',
        perPage,
        empty: pages.filter((_, i) => !tr.texts[i]!.trim()).map((p) => p.id),
        pagesPerS: pages.length / tr.cpuSeconds,
      });
    } else console.log('trafilatura: no python with trafilatura (run bench/extract-pages.ts, or set NEWSFLOW_TRAFILATURA_PYTHON)');
  }

  const sets = (['shared', 'gathered'] as const).filter((s) => pages.some((p) => p.set === s));
  const summary: Record<string, number | string> = { bench: 'extract: candidates and the chosen pipeline, shingle F1 (article-extraction-benchmark)' };
  for (const set of sets) {
    const ids = pages.filter((p) => p.set === set).map((p) => p.id);
    console.log(`\n${set} pages: ${ids.length}`);
    console.log(`${'candidate'.padEnd(18)} ${'F1'.padStart(6)} ${'P'.padStart(6)} ${'R'.padStart(6)} ${'empty'.padStart(6)}`);
    for (const r of rows) {
      const m = meanScores(ids.map((id) => r.perPage.get(id)!));
      const empty = r.empty.filter((id) => ids.includes(id));
      console.log(
        `${r.name.padEnd(18)} ${fmt(m.f1).padStart(6)} ${fmt(m.precision).padStart(6)} ${fmt(m.recall).padStart(6)} ${String(empty.length).padStart(6)}`,
      );
      summary[`${set}_${r.name}_f1`] = Number(fmt(m.f1));
      if (r.name === 'chosen') {
        summary[`${set}_chosen_precision`] = Number(fmt(m.precision));
        summary[`${set}_chosen_recall`] = Number(fmt(m.recall));
        summary[`${set}_chosen_empty`] = empty.join(' ') || 'none';
      }
    }
  }
  console.log(`\npages per CPU second, one thread (${pages.length} pages): ${rows.map((r) => `${r.name} ${r.pagesPerS.toFixed(1)}`).join(', ')}`);
  for (const r of rows) summary[`${r.name}_pages_per_s`] = Number(r.pagesPerS.toFixed(1));
  if (opts.pages) {
    console.log(`\nper-page F1\n${'page'.padEnd(40)} ${rows.map((r) => r.name.slice(0, 9).padStart(9)).join(' ')}`);
    for (const p of pages) console.log(`${p.id.slice(0, 40).padEnd(40)} ${rows.map((r) => fmt(pageF1(r.perPage.get(p.id)!)).padStart(9)).join(' ')}`);
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
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice(7)
    .split(',');
  console.log(JSON.stringify(await benchExtract({ pages: process.argv.includes('--pages'), only })));
}
