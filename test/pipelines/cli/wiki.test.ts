/**
 * `newsflow wiki load` on MediaWiki XML exports written here (plain and bzip2-compressed by the
 * real bzip2): only main-namespace articles are loaded, redirects and other namespaces skipped;
 * loading twice changes nothing; a corrupt dump names file and line, loads the rest, exits 1;
 * a store held by a running service stops the command with a lock message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { api, startTestService, tempDir } from '../../helpers/service.js';
import { publishService } from '../../../service/admin/token.js';
import { Db } from '../../../service/store/db.js';
import { readDumpStream } from '../../../service/wiki/dump.js';

const NONE = { NEWSFLOW_EMBEDDINGS: 'none' };

const page = (title: string, ns: number, id: number, text: string, extra = '', revs: [number, string][] = [[id * 10, '2024-03-01T10:00:00Z']]) => `  <page>
    <title>${title}</title>
    <ns>${ns}</ns>
    <id>${id}</id>${extra}
${revs
  .map(
    ([rid, ts]) => `    <revision>
      <id>${rid}</id>
      <timestamp>${ts}</timestamp>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text bytes="${Buffer.byteLength(text)}" xml:space="preserve">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</text>
    </revision>`,
  )
  .join('\n')}
  </page>`;

const HEAD = `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="0.11" xml:lang="en">
  <siteinfo>
    <sitename>Wikipedia</sitename>
    <dbname>simplewiki</dbname>
    <base>https://simple.wikipedia.org/wiki/Main_Page</base>
    <generator>MediaWiki 1.42.0</generator>
  </siteinfo>`;

const ALPHA = `{{Infobox star|name=Alpha Centauri}}
'''Alpha Centauri''' is the closest [[star system]] to the [[Solar System]].<ref>NASA</ref>

== Distance ==
It is about 4.37 [[light-year]]s away.

== Components ==
=== Proxima ===
Proxima Centauri is the closest single star.

[[Category:Stars]]
[[Category:Centaurus]]`;

const PAGES = [
  page('Alpha Centauri', 0, 1, ALPHA, '', [
    [100, '2003-05-01T00:00:00Z'],
    [101, '2024-03-01T10:00:00Z'],
  ]),
  page('Old Alpha', 0, 2, '#REDIRECT [[Alpha Centauri]]', '\n    <redirect title="Alpha Centauri" />'),
  page('Talk:Alpha Centauri', 1, 3, 'Is it really the closest? ~~~~'),
  page('Category:Stars', 14, 4, 'Stars are balls of gas.'),
  page(
    'Gamma ray',
    0,
    5,
    "'''Gamma rays''' are [[electromagnetic radiation]] of high energy.\n\n== Sources ==\nThey come from [[supernova]]e.\n[[Category:Radiation]]",
  ),
  page('Beta Pictoris', 0, 6, "'''Beta Pictoris''' is a star in the [[constellation]] Pictor.\n== Planets ==\nIt has two known planets."),
];
const DUMP = `${HEAD}\n${PAGES.join('\n')}\n</mediawiki>\n`;

const dirs: string[] = [];
const dir = () => {
  const d = tempDir('newsflow-wiki-');
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function rows(dataDir: string) {
  const db = await Db.open(path.join(dataDir, 'service.duckdb'));
  try {
    const articles = await db.all<Record<string, unknown>>(
      'SELECT url, title, page_id, revision_id, categories, epoch_ms(ts) AS ts, epoch_ms(created_at) AS created, text_bytes, content_hash FROM wiki_articles ORDER BY url',
    );
    const chunks = await db.all<Record<string, unknown>>('SELECT point_id, url, seq, section, level, content FROM wiki_chunks ORDER BY url, seq');
    return { articles: JSON.parse(JSON.stringify(articles, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))), chunks };
  } finally {
    db.close();
  }
}

describe('newsflow wiki load (MediaWiki XML export)', () => {
  const src = dir();
  const xml = path.join(src, 'simplewiki-pages-articles.xml');
  fs.writeFileSync(xml, DUMP);
  execFileSync('bzip2', ['-k', xml]);
  const bz2 = `${xml}.bz2`;

  it('loads only the main-namespace articles: redirects and talk/category pages are skipped', async () => {
    const data = dir();
    const r = await runCli(['wiki', 'load', xml, '--data-dir', data, '--json'], NONE);
    expect(r.code, r.err).toBe(0);
    const rep = JSON.parse(r.out);
    expect(rep).toMatchObject({ files: 1, pages: 6, loaded: 3, unchanged: 0, redirects: 1, otherNamespaces: 2, problems: [] });
    const { articles, chunks } = await rows(data);
    expect(articles.map((a: { title: string }) => a.title)).toEqual(['Alpha Centauri', 'Beta Pictoris', 'Gamma ray']);
    const alpha = articles[0];
    expect(alpha.url).toBe('https://simple.wikipedia.org/wiki/Alpha_Centauri');
    expect(alpha.categories).toEqual(['Stars', 'Centaurus']);
    // a history export: the last revision is loaded, the first one's time is the creation time
    expect(alpha.revision_id).toBe(101);
    expect(new Date(alpha.created).toISOString()).toBe('2003-05-01T00:00:00.000Z');
    expect(new Date(alpha.ts).toISOString()).toBe('2024-03-01T10:00:00.000Z');
    // plain text by section, headings kept as chunk metadata; templates, references, markup gone
    const a = chunks.filter((c) => c.url === alpha.url);
    expect(a.map((c) => c.section)).toEqual(['', 'Distance', 'Components > Proxima']);
    expect(a[0]!.content).toBe('Alpha Centauri is the closest star system to the Solar System.');
    expect(a[1]!.content).toBe('It is about 4.37 light-years away.');
    expect(chunks.some((c) => /REDIRECT|~~~~|balls of gas|\{\{|<ref>|\[\[/.test(String(c.content)))).toBe(false);
  });

  it('loads the same articles from the bzip2-compressed export', async () => {
    const a = dir();
    const b = dir();
    const r1 = await runCli(['wiki', 'load', xml, '--data-dir', a, '--json'], NONE);
    const r2 = await runCli(['wiki', 'load', bz2, '--data-dir', b, '--json'], NONE);
    expect(r1.code, r1.err).toBe(0);
    expect(r2.code, r2.err).toBe(0);
    expect(JSON.parse(r2.out)).toMatchObject({ pages: 6, loaded: 3, redirects: 1, otherNamespaces: 2 });
    expect(await rows(b)).toEqual(await rows(a));
  });

  it('loading twice changes no row', async () => {
    const data = dir();
    expect((await runCli(['wiki', 'load', bz2, '--data-dir', data], NONE)).code).toBe(0);
    const before = await rows(data);
    const r = await runCli(['wiki', 'load', bz2, '--data-dir', data, '--json'], NONE);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ loaded: 0, unchanged: 3 });
    expect(await rows(data)).toEqual(before);
  });

  it('reads a page as soon as its bytes arrived (streamed: the rest of the dump is not read yet)', async () => {
    let served = 0;
    const pieces = DUMP.match(/[\s\S]{1,64}/g)!;
    async function* source() {
      for (const p of pieces) {
        served++;
        yield Buffer.from(p);
      }
    }
    const it = readDumpStream(source());
    const seen: string[] = [];
    let servedAtFirstPage = -1;
    for await (const ev of it) {
      if (ev.kind === 'page') {
        if (servedAtFirstPage < 0) servedAtFirstPage = served;
        seen.push(ev.page.title);
      }
    }
    expect(seen).toEqual(['Alpha Centauri', 'Old Alpha', 'Talk:Alpha Centauri', 'Category:Stars', 'Gamma ray', 'Beta Pictoris']);
    expect(servedAtFirstPage).toBeGreaterThan(0);
    expect(servedAtFirstPage).toBeLessThan(pieces.length / 2);
  });

  it('a corrupt dump: names the file and the line of each bad page, loads the rest, exits 1', async () => {
    const data = dir();
    const bad = path.join(src, 'corrupt.xml');
    const broken = page('Broken page', 0, 7, 'x').replace(
      '<text bytes="1" xml:space="preserve">x</text>',
      '<text xml:space="preserve">fish <b>and chips</text>',
    );
    const cut = page('Cut page', 0, 8, 'This page never ends').split('</text>')[0]!;
    const text = `${HEAD}\n${PAGES[0]}\n${broken}\n${PAGES[4]}\n${cut}`;
    fs.writeFileSync(bad, text);
    const lines = text.split('\n');
    const brokenLine = lines.findIndex((l) => l.includes('<title>Broken page</title>'));
    const cutLine = lines.findIndex((l) => l.includes('<title>Cut page</title>'));
    const r = await runCli(['wiki', 'load', bad, '--data-dir', data], NONE);
    expect(r.code).toBe(1);
    // the line of the error inside the page, and the page's first line for a truncated one
    const m = /corrupt\.xml:(\d+): page "Broken page": (.+)/.exec(r.err);
    expect(m, r.err).not.toBeNull();
    // the line of the fault: inside the broken page (1-based lines: its <page> line .. its </page> line)
    const brokenEnd = brokenLine + broken.split('\n').length - 1;
    expect(Number(m![1])).toBeGreaterThanOrEqual(brokenLine);
    expect(Number(m![1])).toBeLessThanOrEqual(brokenEnd);
    expect(r.err).toContain(`corrupt.xml:${cutLine}: page "Cut page": the file ends inside this page (truncated?)`);
    expect(r.err).toMatch(/2 page\(s\) or file\(s\) could not be read/);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect((await rows(data)).articles.map((a: { title: string }) => a.title)).toEqual(['Alpha Centauri', 'Gamma ray']);
  });

  it('a truncated .bz2: names the file, keeps the pages before the damage, exits 1', async () => {
    const data = dir();
    const cut = path.join(src, 'truncated.xml.bz2');
    const whole = fs.readFileSync(bz2);
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const r = await runCli(['wiki', 'load', cut, '--data-dir', data], NONE);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/truncated\.xml\.bz2: .*bzip2 data is corrupt or truncated/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('while a service runs on the data dir: the service loads (admin route), serves the articles at once, the command prints its report', async () => {
    const svc = await startTestService({ keys: { reader: { org: 'acme', scopes: ['news'], plan: 'enterprise' } } });
    const unpublish = publishService(svc.dataDir, svc.url);
    try {
      const r = await runCli(['wiki', 'load', xml, '--data-dir', svc.dataDir, '--json'], NONE);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({
        via: `the running service at ${svc.url}`,
        pages: 6,
        loaded: 3,
        redirects: 1,
        otherNamespaces: 2,
        problems: [],
      });
      const found = await api(svc.url, 'GET', '/v1/wiki/search?query=Proxima%20Centauri&n_documents=1&neighbor_chunks=0', svc.keys.reader);
      expect(found.status).toBe(200);
      expect(found.body.documents[0]).toMatchObject({
        title: 'Alpha Centauri',
        url: 'https://simple.wikipedia.org/wiki/Alpha_Centauri',
        section: 'Components > Proxima',
      });
      // an ordinary API key may not start a load
      const refused = await api(svc.url, 'POST', '/v1/admin/wiki/load', svc.keys.reader, { path: xml });
      expect(refused.status).toBe(403);
      // a path the service cannot see: 422 naming the field
      const bad = await api(svc.url, 'POST', '/v1/admin/wiki/load', fs.readFileSync(path.join(svc.dataDir, 'admin.token'), 'utf8').trim(), {
        path: path.join(src, 'no-such.xml'),
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'path']);
    } finally {
      unpublish();
      await svc.stop();
    }
  });

  it('stops with a lock message while another process (not a recorded service) holds the store', async () => {
    const data = dir();
    const db = await Db.open(path.join(data, 'service.duckdb'));
    try {
      const r = await runCli(['wiki', 'load', xml, '--data-dir', data], NONE);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/error: the store of .* is in use by another process .*stop it and run "newsflow wiki load" again/);
    } finally {
      db.close();
    }
  });
});
