/**
 * The documentation's links resolve: every relative link of README.md and docs/*.md names a file
 * or folder of the repository, and every `#anchor` a heading of its target (GitHub's heading ids).
 * Links inside code (fenced blocks, inline code) are not links; absolute URLs are not checked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

interface Link {
  file: string;
  line: number;
  target: string;
}

/** The lines of a Markdown text outside fenced code blocks. */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((l, i) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(l);
    if (m) {
      if (fence === null) fence = m[1]!;
      else if (m[1]!.startsWith(fence)) fence = null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: l });
  });
  return out;
}

/** Inline links `[text](target "title")`, images included, and reference definitions `[id]: target`. */
function linksOf(file: string, text: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    const l = prose.replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length)); // inline code is not a link
    for (const m of l.matchAll(/\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line, target: m[1]! });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(l);
    if (def) links.push({ file, line, target: def[1]! });
  }
  return links;
}

/** GitHub's id of a heading: lower case, markup and punctuation dropped, spaces to dashes, `-N` for repeats. */
function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: l } of proseLines(text)) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (!h) continue;
    const base = h[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Each broken link as one line `file:line: target: why`. */
function brokenLinks(root: string, files: string[]): string[] {
  const problems: string[] = [];
  const headings = new Map<string, Set<string>>();
  const idsOf = (f: string) => {
    if (!headings.has(f)) headings.set(f, headingIds(fs.readFileSync(f, 'utf8')));
    return headings.get(f)!;
  };
  for (const file of files) {
    for (const link of linksOf(file, fs.readFileSync(file, 'utf8'))) {
      const where = `${path.relative(root, file)}:${link.line}: ${link.target}`;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:: not a file of the repository
      const [rawPath, anchor] = link.target.split('#', 2) as [string, string | undefined];
      const target = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
      if (path.isAbsolute(rawPath)) {
        problems.push(`${where}: an absolute path (write it relative to the file)`);
        continue;
      }
      const rel = path.relative(root, target);
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        problems.push(`${where}: outside the repository`);
        continue;
      }
      if (!fs.existsSync(target)) {
        problems.push(`${where}: no such file or folder`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!target.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not Markdown`);
      else if (!idsOf(target).has(anchor.toLowerCase())) problems.push(`${where}: no heading "#${anchor}" in ${path.relative(root, target)}`);
    }
  }
  return problems;
}

const docs = () => [
  path.join(repoRoot, 'README.md'),
  ...fs
    .readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(repoRoot, 'docs', f)),
];

describe('the links of README.md and docs/*.md', () => {
  it('resolve to files of the repository and headings of their targets', () => {
    const files = docs();
    const links = files.flatMap((f) => linksOf(f, fs.readFileSync(f, 'utf8')));
    // the check has something to check: the README links into docs/, docs/ into each other and the code
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(links.filter((l) => !/^[a-z]+:/i.test(l.target)).length).toBeGreaterThan(30);
    expect(links.filter((l) => l.target.includes('#')).length).toBeGreaterThan(10);
    expect(brokenLinks(repoRoot, files)).toEqual([]);
  });

  it('every docs page is reachable from the README', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const linked = new Set(linksOf('README.md', readme).map((l) => l.target.split('#')[0]));
    const pages = docs()
      .slice(1)
      .map((f) => path.relative(repoRoot, f));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });
});

describe('the link check', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-links-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };

  it('names a missing file, a missing heading, a link out of the tree and an anchor into code, each with its line', () => {
    write('docs/b.md', '# B\n\n## Where `x` goes (twice), here\n\n## Where `x` goes (twice), here\n');
    write('src/code.ts', 'export {};\n');
    const a = write(
      'docs/a.md',
      [
        '# A',
        '[ok](b.md) [ok](b.md#b) [ok](b.md#where-x-goes-twice-here-1) [ok](#a) [ok](../src/code.ts) [ok](../src) [web](https://example.com/x.md)',
        '[gone](c.md)',
        '[no heading](b.md#nowhere)',
        '[out](../../elsewhere.md)',
        '[into code](../src/code.ts#L1)',
        '[own heading](#not-here)',
        '[ref]: missing.md',
      ].join('\n'),
    );
    expect(brokenLinks(dir, [a])).toEqual([
      'docs/a.md:3: c.md: no such file or folder',
      'docs/a.md:4: b.md#nowhere: no heading "#nowhere" in docs/b.md',
      'docs/a.md:5: ../../elsewhere.md: outside the repository',
      'docs/a.md:6: ../src/code.ts#L1: an anchor into a file that is not Markdown',
      'docs/a.md:7: #not-here: no heading "#not-here" in docs/a.md',
      'docs/a.md:8: missing.md: no such file or folder',
    ]);
  });

  it('skips links inside fenced code blocks and inline code, and headings inside code are not headings', () => {
    const a = write(
      'code.md',
      ['# Real', '```sh', '# not a heading', 'see [x](nowhere.md)', '```', 'run `[x](nowhere.md)` then [y](#not-a-heading)'].join('\n'),
    );
    expect(brokenLinks(dir, [a])).toEqual(['code.md:6: #not-a-heading: no heading "#not-a-heading" in code.md']);
  });

  it("gives headings GitHub's ids", () => {
    expect([
      ...headingIds('# The alert runner (`alertSync`, `alertRun`)\n## Encyclopedia (wiki)\n## Fidelity to the official SDKs\n## Mixed load\n## Mixed load'),
    ]).toEqual(['the-alert-runner-alertsync-alertrun', 'encyclopedia-wiki', 'fidelity-to-the-official-sdks', 'mixed-load', 'mixed-load-1']);
  });
});
