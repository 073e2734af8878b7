/**
 * Pages for the extraction bench (bench/extract.ts), with references written by others. Each set
 * is printed with its source and license (SETS). The reference is a text (scored by shingle F1)
 * or, for trafilatura's evaluation, snippets the page's text must and must not hold:
 *
 * - `shared`: the 35 Readability test pages of the shared folder (reference: expected.html);
 * - `newspaper4k` (PyPI sdist, MIT): tests/data/html with tests/data/txt, many languages;
 * - `unfluff` (npm, Apache-2.0): fixtures/test_*.html with the `cleaned_text` of the .json, kept
 *   only where that text is whole (over 1,000 characters: most are a first sentence);
 * - `goose` (Go module github.com/advancedlogic/GoOse, Apache-2.0): sites/*.html with the
 *   `CleanedText` its crawler_test.go expects, over 500 characters (the social sites give less);
 * - `readability-tests` (Go module github.com/go-shiori/go-readability, MIT; the pages are
 *   Mozilla Readability's test pages, Apache-2.0): the pages that are not among the shared ones,
 *   with over 150 words of expected text (the rest are markup unit tests); the reference is
 *   Readability's own output, so it says how close a candidate stays to Readability;
 * - `trafilatura-eval` (Go module github.com/markusmobius/go-trafilatura, Apache-2.0; trafilatura's
 *   evaluation set: the BBAW collection and Polish news, annotated by hand, each page under its own
 *   license): test-files/comparison with the `With`/`Without` snippets of scripts/comparison/data.go.
 *
 * Held out: the whole `goose` set (never looked at while tuning) and, in every other gathered set,
 * the pages whose name hashes odd (FNV-1a); the shared pages are never held out. Tune on the rest,
 * report on the held-out pages.
 *
 * `node --import tsx bench/extract-pages.ts` gathers them (pip, npm and go from the registries, into
 * a cache folder in the OS temp dir, never into the repository; also a venv with trafilatura for
 * the bench's trafilatura candidate); the bench runs on the shared pages alone while the cache is
 * absent.
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
const GOOSE = 'github.com/advancedlogic/GoOse@v0.0.0-20191112112754-e742535969c1';
const GO_READABILITY = 'github.com/go-shiori/go-readability@v0.0.0-20251205110129-5db1dc9836f0';
const GO_TRAFILATURA = 'github.com/markusmobius/go-trafilatura@v1.12.2';

/** The sets, with where they come from and under which license. */
export const SETS: Record<string, { source: string; license: string; reference: string }> = {
  shared: {
    source: '../shared/data/html/readability (Mozilla Readability test pages)',
    license: 'Apache-2.0',
    reference: 'Readability output (expected.html)',
  },
  newspaper4k: { source: `PyPI ${NEWSPAPER} sdist, tests/data`, license: 'MIT', reference: 'newspaper4k expected text (tests/data/txt)' },
  unfluff: { source: `npm ${UNFLUFF}, fixtures/`, license: 'Apache-2.0', reference: 'cleaned_text of the fixture, whole ones only' },
  goose: { source: `Go module ${GOOSE}, sites/ + crawler_test.go`, license: 'Apache-2.0', reference: 'CleanedText GoOse expects' },
  'readability-tests': {
    source: `Go module ${GO_READABILITY}, test-pages/ not in shared`,
    license: 'MIT (pages: Mozilla Readability, Apache-2.0)',
    reference: 'Readability output (expected.html)',
  },
  'trafilatura-eval': {
    source: `Go module ${GO_TRAFILATURA}, test-files/comparison + scripts/comparison/data.go (BBAW collection, Polish news)`,
    license: 'Apache-2.0 (each page its own, mostly CC)',
    reference: 'hand-picked snippets: with / without',
  },
};

export interface BenchPage {
  /** `set/name` */
  id: string;
  set: string;
  /** not to tune on: reported apart */
  heldOut: boolean;
  url: string;
  html: string;
  /** the expected text ('' where the reference is snippets) */
  reference: string;
  /** trafilatura's evaluation: snippets the text must hold, and must not */
  snippets?: { with: string[]; without: string[] };
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
      set: 'shared',
      heldOut: false,
      url: `https://pages.example/${n}/`,
      html: decodeHtml(fs.readFileSync(path.join(dir, n, 'source.html'))).text,
      reference: htmlText(fs.readFileSync(path.join(dir, n, 'expected.html'), 'utf8')),
    }));
}

interface ManifestEntry {
  set: string;
  name: string;
  url: string;
  /** relative to cacheDir */
  html: string;
  reference: string;
  snippets?: { with: string[]; without: string[] };
}

/** FNV-1a of a name: the held-out half is the odd one. */
const fnv = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

export const isHeldOut = (set: string, name: string): boolean => set === 'goose' || (set !== 'shared' && (fnv(name) & 1) === 1);

export function gatheredPages(): BenchPage[] {
  const file = path.join(cacheDir, 'pages.json');
  if (!fs.existsSync(file)) return [];
  const entries = JSON.parse(fs.readFileSync(file, 'utf8')) as ManifestEntry[];
  if (entries.some((e) => !e.set)) return []; // a manifest of an older gather: gather again
  return entries.map((e) => ({
    id: `${e.set}/${e.name}`,
    set: e.set,
    heldOut: isHeldOut(e.set, e.name),
    url: e.url,
    // the page's bytes, decoded as the fetcher decodes a page served without a charset header
    html: decodeHtml(fs.readFileSync(path.join(cacheDir, e.html))).text,
    reference: e.reference,
    snippets: e.snippets,
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

// ---------- reading Go sources (string literals) ----------

/** The Go string literal at `s[i]` (interpreted "..." or raw `...`): its value and the index after it. */
export function goString(s: string, i: number): { value: string; end: number } {
  if (s[i] === '`') {
    const end = s.indexOf('`', i + 1);
    return { value: s.slice(i + 1, end).replace(/\r/g, ''), end: end + 1 };
  }
  if (s[i] !== '"') throw new Error(`no Go string at ${i}: ${s.slice(i, i + 20)}`);
  let out = '';
  let j = i + 1;
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'" };
  const bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += Buffer.from(bytes.splice(0)).toString('utf8');
  };
  for (; s[j] !== '"'; j++) {
    if (s[j] !== '\\') {
      flush();
      out += s[j];
      continue;
    }
    const c = s[++j]!;
    if (c === 'x') {
      bytes.push(Number.parseInt(s.slice(j + 1, j + 3), 16));
      j += 2;
    } else if (/[0-7]/.test(c)) {
      bytes.push(Number.parseInt(s.slice(j, j + 3), 8));
      j += 2;
    } else if (c === 'u' || c === 'U') {
      const n = c === 'u' ? 4 : 8;
      flush();
      out += String.fromCodePoint(Number.parseInt(s.slice(j + 1, j + 1 + n), 16));
      j += n;
    } else {
      flush();
      out += simple[c] ?? c;
    }
  }
  flush();
  return { value: out, end: j + 1 };
}

/** The strings of `field: []string{"a", "b"}` from `at` on, or []. */
function goStrings(s: string, field: string, from: number, to: number): string[] {
  const m = new RegExp(`\\b${field}:\\s*\\[\\]string\\{`, 'g');
  m.lastIndex = from;
  const hit = m.exec(s);
  if (!hit || hit.index >= to) return [];
  const out: string[] = [];
  let i = hit.index + hit[0].length;
  for (;;) {
    while (/[\s,]/.test(s[i]!)) i++;
    if (s[i] === '}') return out;
    const g = goString(s, i);
    out.push(g.value);
    i = g.end;
  }
}

/** The string of `field: "..."` between from and to, or null. */
function goField(s: string, field: string, from: number, to: number): string | null {
  const m = new RegExp(`\\b${field}:\\s*(?=["\`])`, 'g');
  m.lastIndex = from;
  const hit = m.exec(s);
  if (!hit || hit.index >= to) return null;
  return goString(s, hit.index + hit[0].length).value;
}

// ---------- gathering ----------

const words = (text: string) => (text.match(/\p{L}+|\p{N}+/gu) ?? []).length;

function gather(): void {
  const dl = path.join(cacheDir, 'dl');
  fs.mkdirSync(dl, { recursive: true });
  const run = (cmd: string, args: string[], cwd = dl, env?: NodeJS.ProcessEnv) =>
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const entries: ManifestEntry[] = [];
  const rel = (p: string) => path.relative(cacheDir, p);

  // newspaper4k: tests/data/html/<name>.html with tests/data/txt/<name>.txt
  if (!fs.readdirSync(dl).some((f) => /^newspaper4k-.*\.tar\.gz$/.test(f)))
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
      set: 'newspaper4k',
      name,
      url: url || `https://newspaper4k.example/${name}/`,
      html: rel(path.join(np, 'html', f)),
      reference: fs.readFileSync(txt, 'utf8'),
    });
  }

  // unfluff: fixtures/test_<name>.html with the cleaned_text of test_<name>.json, when whole
  if (!fs.readdirSync(dl).some((f) => /^unfluff-.*\.tgz$/.test(f))) run('npm', ['pack', '--silent', UNFLUFF, '--pack-destination', dl]);
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
      set: 'unfluff',
      name: f.replace(/^test_|\.json$/g, ''),
      url: j.url ?? `https://unfluff.example/${f}/`,
      html: rel(path.join(fx, f.replace(/\.json$/, '.html'))),
      reference: text,
    });
  }

  // the Go modules, into a module cache of our own
  const goEnv = { GOMODCACHE: path.join(cacheDir, 'gomod'), GOFLAGS: '-modcacherw', GO111MODULE: 'on' };
  const goDir = (mod: string) => (JSON.parse(run('go', ['mod', 'download', '-json', mod], dl, goEnv)) as { Dir: string }).Dir;

  // GoOse: sites/<Domain>.html with the CleanedText of crawler_test.go
  const goose = goDir(GOOSE);
  const tests = fs.readFileSync(path.join(goose, 'crawler_test.go'), 'utf8');
  const blocks = [...tests.matchAll(/article := Article\{/g)].map((m) => m.index!);
  blocks.forEach((at, k) => {
    const to = blocks[k + 1] ?? tests.length;
    const domain = goField(tests, 'Domain', at, to);
    const text = goField(tests, 'CleanedText', at, to) ?? '';
    const file = domain && path.join(goose, 'sites', `${domain}.html`);
    if (!file || !fs.existsSync(file) || text.length < 500) return;
    entries.push({
      set: 'goose',
      name: domain,
      url: goField(tests, 'CanonicalLink', at, to) || `https://${domain.includes('.') ? domain : `${domain}.example`}/`,
      html: rel(file),
      reference: text,
    });
  });

  // go-readability: Mozilla's test pages that are not among the shared ones, with a text
  const shared = new Set(fs.readdirSync(path.join(sharedDir, 'data', 'html', 'readability')));
  const tp = path.join(goDir(GO_READABILITY), 'test-pages');
  for (const name of fs.readdirSync(tp).sort()) {
    if (shared.has(name) || !fs.existsSync(path.join(tp, name, 'expected.html'))) continue;
    const reference = htmlText(fs.readFileSync(path.join(tp, name, 'expected.html'), 'utf8'));
    if (words(reference) < 150) continue;
    entries.push({ set: 'readability-tests', name, url: `http://fakehost/${name}/`, html: rel(path.join(tp, name, 'source.html')), reference });
  }

  // trafilatura's evaluation: the pages of scripts/comparison/data.go with their snippets
  const tr = goDir(GO_TRAFILATURA);
  const data = fs.readFileSync(path.join(tr, 'scripts', 'comparison', 'data.go'), 'utf8');
  const starts = [...data.matchAll(/^\t"([^"\n]+)": \{$/gm)];
  starts.forEach((m, k) => {
    const at = m.index!;
    const to = starts[k + 1]?.index ?? data.length;
    const fileName = goField(data, 'File', at, to);
    const file = [path.join(tr, 'test-files', 'comparison'), path.join(tr, 'test-files', 'mock')]
      .map((d) => path.join(d, fileName ?? ''))
      .find((f) => fileName && fs.existsSync(f));
    const snippets = { with: goStrings(data, 'With', at, to), without: goStrings(data, 'Without', at, to) };
    if (!file || !snippets.with.length) return;
    entries.push({ set: 'trafilatura-eval', name: fileName!.replace(/\.html?$/, ''), url: m[1]!, html: rel(file), reference: '', snippets });
  });

  fs.writeFileSync(path.join(cacheDir, 'pages.json'), JSON.stringify(entries, null, 1));
  const count = new Map<string, number>();
  for (const e of entries) count.set(e.set, (count.get(e.set) ?? 0) + 1);
  console.log(`gathered ${entries.length} pages with references into ${cacheDir}`);
  for (const [set, n] of count)
    console.log(`  ${set.padEnd(18)} ${String(n).padStart(4)}  ${SETS[set]!.source}; license ${SETS[set]!.license}; reference: ${SETS[set]!.reference}`);

  // trafilatura for the bench's trafilatura candidate
  if (!trafilaturaPython()) {
    run('python3', ['-m', 'venv', path.join(cacheDir, 'venv')], cacheDir);
    run(path.join(cacheDir, 'venv', 'bin', 'pip'), ['install', '-q', 'trafilatura==2.0.0', 'lxml_html_clean'], cacheDir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) gather();
