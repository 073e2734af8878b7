/**
 * The wiki store over the four saved Wikipedia pages of the shared data (Mozilla, New Zealand,
 * Hermitian matrix, List of films featuring time loops), embedded with the service's model:
 * questions written from the pages find their article and section, neighbours, the lead, whole
 * articles, MMR, string guarantees, hybrid search, and an unchanged reload.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDir } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/service.js';
import { Db } from '../../../service/store/db.js';
import { serviceConfig } from '../../../service/config.js';
import { makeEmbedder } from '../../../service/server.js';
import { WikiService } from '../../../service/wiki/service.js';
import type { LoadReport } from '../../../service/wiki/load.js';
import { TOOLS, type ToolContext } from '../../../service/agent/tools.js';
import type { Services } from '../../../service/context.js';

const PAGES = path.join(sharedDir, 'data', 'html', 'readability');
const NZ = 'https://en.wikipedia.org/wiki/New_Zealand';
const MOZILLA = 'https://en.wikipedia.org/wiki/Mozilla';
const HERMITIAN = 'https://en.wikipedia.org/wiki/Hermitian_matrix';
const FILMS = 'https://en.wikipedia.org/wiki/List_of_films_featuring_time_loops';

/** Written by reading the pages: the question, the article and the section ("" = the lead) that answers it. */
const QUESTIONS: [string, string, string][] = [
  ['What is the capital of New Zealand?', NZ, ''],
  ['What was the population of New Zealand in the 2013 census?', NZ, 'Demography'],
  ['What is the climate of New Zealand like?', NZ, 'Environment > Climate'],
  ['Which sport is considered the national sport of New Zealand?', NZ, 'Culture > Sports'],
  ['What are the official languages of New Zealand?', NZ, 'Demography > Language'],
  ['Who founded Mozilla?', MOZILLA, ''],
  ['Why did Brendan Eich step down as CEO of Mozilla?', MOZILLA, 'History > Eich CEO promotion controversy'],
  ['What is SpiderMonkey?', MOZILLA, 'Software > Components > SpiderMonkey'],
  ['What is the Mozilla Festival?', MOZILLA, 'Community > Conferences and events > Mozilla Festival'],
  ['Are the diagonal entries of a Hermitian matrix real?', HERMITIAN, 'Properties'],
  ['What is the Rayleigh quotient?', HERMITIAN, 'Rayleigh quotient'],
  ['Which film adapts the short story "12:01 PM" by Richard Lupoff?', FILMS, ''],
];

let dir: string;
let db: Db;
let wiki: WikiService;
let first: LoadReport;

async function snapshot() {
  const a = await db.all('SELECT * EXCLUDE (categories, links), categories::VARCHAR AS c, links::VARCHAR AS l FROM wiki_articles ORDER BY url');
  const c = await db.all('SELECT * FROM wiki_chunks ORDER BY url, seq');
  const e = await db.all('SELECT point_id, model, md5(vec::VARCHAR) AS h FROM wiki_embeddings ORDER BY point_id, model');
  return JSON.stringify([a, c, e], (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
}

beforeAll(async () => {
  dir = tempDir('newsflow-wiki-');
  db = await Db.open(path.join(dir, 'service.duckdb'));
  wiki = await WikiService.open(db, { embedder: await makeEmbedder(serviceConfig({ dataDir: dir })) });
  first = await wiki.load(PAGES);
}, 600_000);

afterAll(() => {
  db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('wiki store: the four shared Wikipedia pages', () => {
  it('loads the four article pages (and nothing of the 31 news pages or the expected.html extracts)', async () => {
    expect(first).toMatchObject({ pages: 4, loaded: 4, unchanged: 0, problems: [] });
    expect(first.notArticles).toBe(first.files - 4);
    const rows = await db.all<{ url: string; title: string; wikibase_item: string | null; revision_id: bigint | null }>(
      'SELECT url, title, wikibase_item, revision_id FROM wiki_articles ORDER BY url',
    );
    expect(rows.map((r) => r.url)).toEqual([HERMITIAN, FILMS, MOZILLA, NZ]);
    expect(rows.find((r) => r.url === NZ)).toMatchObject({ title: 'New Zealand', wikibase_item: 'Q664', revision_id: 917976458n });
    const sections = await db.all<{ section: string }>('SELECT DISTINCT section FROM wiki_chunks WHERE url = $1', [NZ]);
    expect(sections.map((s) => s.section)).toEqual(expect.arrayContaining(['', 'History', 'Environment > Climate', 'Culture > Sports']));
    // reference lists and navigation are not text
    expect(sections.map((s) => s.section)).not.toContain('References');
    const embedded = await db.one<{ c: bigint; e: bigint }>('SELECT (SELECT count(*) FROM wiki_chunks) AS c, (SELECT count(*) FROM wiki_embeddings) AS e');
    expect(embedded!.e).toBe(embedded!.c);
  });

  it('12 questions written from the pages find the right article and section in the top 3 chunks', async () => {
    let top3 = 0;
    let top1 = 0;
    const misses: string[] = [];
    for (const [q, url, section] of QUESTIONS) {
      const docs = await wiki.search({ query: q, neighbor_chunks: 0 });
      const at = docs.slice(0, 3).findIndex((d) => d.url === url && d.section === section);
      if (at >= 0) top3++;
      else
        misses.push(
          `${q} -> ${docs
            .slice(0, 3)
            .map((d) => `${d.title} / ${d.section}`)
            .join('; ')}`,
        );
      if (at === 0) top1++;
    }
    console.log(`wiki questions: ${top3}/${QUESTIONS.length} right article and section in the top 3 chunks, ${top1}/${QUESTIONS.length} at rank 1`);
    expect(misses).toEqual([]);
  });

  it('neighbor_chunks 2 returns the two chunks before and after the hit, in article order', async () => {
    const [hit] = await wiki.search({ query: 'What is SpiderMonkey?', neighbor_chunks: 2, n_documents: 1 });
    const chunks = await db.all<{ seq: number; content: string }>('SELECT seq, content FROM wiki_chunks WHERE url = $1 ORDER BY seq', [MOZILLA]);
    const s = hit!.chunk_index;
    expect(hit!.section).toBe('Software > Components > SpiderMonkey');
    expect(hit!.chunks.map((c) => c.index)).toEqual([s - 2, s - 1, s, s + 1, s + 2]);
    let from = -1;
    for (const c of chunks.filter((c) => c.seq >= s - 2 && c.seq <= s + 2)) {
      const at = hit!.content.indexOf(c.content);
      expect(at).toBeGreaterThan(from);
      from = at;
    }
    const [none] = await wiki.search({ query: 'What is SpiderMonkey?', neighbor_chunks: 0, n_documents: 1 });
    expect(none!.chunks.map((c) => c.index)).toEqual([s]);
  });

  it('diversify 0.5 returns chunks from more distinct sections than diversify 0', async () => {
    const sections = async (diversify: number) =>
      new Set((await wiki.search({ query: 'New Zealand', neighbor_chunks: 0, n_documents: 1, diversify })).map((d) => `${d.url} ${d.section}`)).size;
    const plain = await sections(0);
    const diverse = await sections(0.5);
    console.log(`wiki diversify: ${plain} distinct section(s) at 0, ${diverse} at 0.5`);
    expect(diverse).toBeGreaterThan(plain);
  });

  it('full_articles returns each article whole, once', async () => {
    const docs = await wiki.search({ query: 'Hermitian matrix eigenvalues', full_articles: true, n_documents: 2 });
    expect(docs.length).toBe(2);
    expect(new Set(docs.map((d) => d.url)).size).toBe(2);
    for (const d of docs) {
      const chunks = await db.all<{ seq: number; content: string }>('SELECT seq, content FROM wiki_chunks WHERE url = $1 ORDER BY seq', [d.url]);
      expect(d.chunks.map((c) => c.index)).toEqual(chunks.map((c) => c.seq));
      for (const c of chunks) expect(d.content).toContain(c.content);
    }
    expect(docs[0]!.url).toBe(HERMITIAN);
  });

  it('include_main_section puts the lead before a hit in a later section', async () => {
    const [d] = await wiki.search({ query: 'What is the Rayleigh quotient?', include_main_section: true, neighbor_chunks: 0, n_documents: 1 });
    const lead = await db.all<{ content: string }>("SELECT content FROM wiki_chunks WHERE url = $1 AND section = '' ORDER BY seq", [HERMITIAN]);
    expect(d!.section).toBe('Rayleigh quotient');
    expect(d!.content.startsWith(lead[0]!.content)).toBe(true);
    const [without] = await wiki.search({ query: 'What is the Rayleigh quotient?', neighbor_chunks: 0, n_documents: 1 });
    expect(without!.content).not.toContain(lead[0]!.content);
  });

  it('string_guarantee keeps only chunks holding every string; hybrid_search adds exact terms (BM25)', async () => {
    const docs = await wiki.search({ query: 'time loop film', string_guarantee: ['Groundhog Day'], neighbor_chunks: 0 });
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(d.content.toLowerCase()).toContain('groundhog day');
    const hybrid = await wiki.search({ query: 'Waitangi', hybrid_search: true, neighbor_chunks: 0, n_documents: 1 });
    expect(hybrid[0]!.url).toBe(NZ);
    expect(hybrid[0]!.content).toContain('Waitangi');
  });

  it('items carry the metadata of the interface: categories, revision time, cirrus metadata (derived popularity)', async () => {
    const [d] = await wiki.search({ query: 'What is the capital of New Zealand?', n_documents: 1 });
    expect(d).toMatchObject({ title: 'New Zealand', url: NZ, timestamp: '2019-09-26T11:35:37.000Z' });
    expect(d!.categories).toContain('Countries in Australasia');
    expect(d!.cirrus_metadata).toMatchObject({ create_timestamp: '2001-10-29T01:59:14.000Z', wikibase_item: 'Q664', version: 917976458 });
    expect(d!.cirrus_metadata!.popularity_score).toBeGreaterThanOrEqual(0);
    expect(d!.cirrus_metadata!.text_bytes).toBeGreaterThan(10_000);
    expect(d!.point_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('the DeepNews agent finds encyclopedia passages through its search_wiki tool (services.wiki.search(question, {limit}))', async () => {
    const tool = TOOLS.find((t) => t.name === 'search_wiki')!;
    const services = { wiki } as unknown as Services;
    expect(tool.available(services)).toBe(true);
    const found = await tool.run({ services, cutoffMs: null, onlyDomains: null, filterParams: null } as unknown as ToolContext, {
      query: 'What is SpiderMonkey?',
    });
    expect(found.web.length).toBeGreaterThan(0);
    expect(found.web[0]).toMatchObject({ title: 'Mozilla', url: MOZILLA, source: 'wikipedia' });
    expect(found.web[0]!.raw_text).toContain('SpiderMonkey');
  });

  it('loading the same pages twice changes no row', async () => {
    const before = await snapshot();
    const again = await wiki.load(PAGES);
    expect(again).toMatchObject({ pages: 4, loaded: 0, unchanged: 4, problems: [] });
    expect(await snapshot()).toBe(before);
    expect(wiki.index.articleCount).toBe(4);
  });
});
