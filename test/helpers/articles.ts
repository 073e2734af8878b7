/**
 * Article pages in the shape news ingest lands them (articles + entities, keywords, categories),
 * deterministic from (day, index): for lake tests, the concurrent-reader test's writer and the
 * landing bench. Wide rows: a `raw` JSON of the whole dict, like the real activity keeps.
 */
import crypto from 'node:crypto';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS } from '../../warehouse/tables/index.js';

const WORDS = [
  'storm',
  'bank',
  'rates',
  'election',
  'football',
  'vaccine',
  'market',
  'climate',
  'energy',
  'court',
  'strike',
  'summit',
  'trade',
  'film',
  'chip',
  'rail',
  'port',
  'drought',
  'budget',
  'merger',
];
const PEOPLE = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Claude Shannon', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Frances Allen'];
const ORGS = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Stark Industries', 'Wayne Enterprises'];
const PLACES = ['London', 'Paris', 'Lagos', 'Lima', 'Osaka', 'Perth', 'Oslo', 'Quito'];
const CATEGORIES = ['Politics', 'Business', 'Sports', 'Science', 'Health', 'Technology', 'Entertainment', 'World'];

/** A UUID from a string (v4-shaped), so the same (day, i) is the same article. */
export const stableUuid = (s: string) => {
  const h = crypto.createHash('sha1').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export interface ArticlePage {
  rows: Record<string, unknown>[];
  entities: Record<string, unknown>[];
  keywords: Record<string, unknown>[];
  classes: Record<string, unknown>[];
}

/** `n` articles of day `day` (0 = 2026-01-01) from index `from`; `edit` changes their titles (an update). */
export function articlePage(day: number, n: number, from = 0, edit = ''): ArticlePage {
  const page: ArticlePage = { rows: [], entities: [], keywords: [], classes: [] };
  const t0 = Date.parse('2026-01-01T00:00:00Z') + day * 86_400_000;
  for (let i = from; i < from + n; i++) {
    const id = stableUuid(`${day}/${i}`);
    const w = (k: number) => WORDS[(i * 7 + day * 3 + k) % WORDS.length]!;
    const pub = t0 + (i % 1440) * 60_000;
    const ents = {
      person: [PEOPLE[(i + day) % PEOPLE.length]!, PEOPLE[(i * 3 + 1) % PEOPLE.length]!],
      organization: [ORGS[(i + 2 * day) % ORGS.length]!],
      location: [PLACES[(i * 5 + day) % PLACES.length]!],
    };
    const keywords = [w(0), w(1), w(2), w(3)];
    const categories = [CATEGORIES[(i + day) % CATEGORIES.length]!];
    const dict = {
      article_id: id,
      article_url: `https://example-${i % 50}.com/${day}/${i}`,
      domain_url: `example-${i % 50}.com`,
      source_id: `src-${i % 50}`,
      title: `${w(0)} ${w(1)} and ${w(2)}: the ${w(3)} story ${day}/${i}${edit}`,
      summary: `A report on ${w(0)}, ${w(1)} and ${w(2)} with comments from ${ents.person[0]} of ${ents.organization[0]} in ${ents.location[0]}. `.repeat(3),
      language: 'en',
      pub_date: new Date(pub).toISOString(),
      crawl_date: new Date(pub + 600_000).toISOString(),
      country: 'GB',
      continent: 'Europe',
      sentiment: ((i + day) % 5) - 2,
      provocative: 'low',
      reporting_voice: 'Objective',
      content_type: 'article',
      bias: 'center',
      page_rank: i % 10,
      entities: ents,
      keywords,
      classification: categories,
    };
    page.rows.push({
      article_id: id,
      article_url: dict.article_url,
      domain_url: dict.domain_url,
      source_id: dict.source_id,
      title: dict.title,
      summary: dict.summary,
      language: 'en',
      pub_date: pub * 1000,
      crawl_date: (pub + 600_000) * 1000,
      country: 'GB',
      continent: 'Europe',
      sentiment: dict.sentiment,
      provocative: 'low',
      reporting_voice: 'Objective',
      content_type: 'article',
      bias: 'center',
      page_rank: dict.page_rank,
      raw: JSON.stringify(dict),
    });
    for (const [type, values] of Object.entries(ents)) for (const value of values) page.entities.push({ article_id: id, type, value });
    for (const keyword of new Set(keywords)) page.keywords.push({ article_id: id, keyword });
    for (const category of categories) page.classes.push({ article_id: id, category });
  }
  return page;
}

/** The child tables of a page with their rows, as `Warehouse.land` takes them. */
export const pageChildren = (p: ArticlePage) => [
  { table: ARTICLE_ENTITIES, rows: p.entities },
  { table: ARTICLE_KEYWORDS, rows: p.keywords },
  { table: ARTICLE_CLASSIFICATIONS, rows: p.classes },
];

/** Land a page (its articles with their children) in one lake transaction, as news ingest does. */
export const landPage = (w: Warehouse, p: ArticlePage, loadId: string) => w.land(ARTICLES, p.rows, pageChildren(p), loadId);
