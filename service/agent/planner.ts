/**
 * The deterministic planner (no model): which tool calls a research round makes.
 *
 * Round 1 splits the question into sub-queries: the whole question (the request's search
 * method), each named entity (up to 3, keyword search), key phrases (runs of content words, up
 * to 2), and each absolute time expression (a year, or a month and year: the whole question
 * searched within that window); plus the stories matching the question, podcasts, and one call
 * to every other enabled external tool. Later rounds widen with what was found: the most named
 * entities of the best articles so far (not asked yet, not in the question) searched together
 * with the question's key terms, and the stories the best articles belong to. A round that
 * brings nothing new ends the research. Each round's plan depends only on the question and on
 * what earlier rounds found, never on how many rounds were asked for: a run of depth k is the
 * first k rounds of any deeper run.
 */
import type { DeepNewsSource } from '../../spec/index.js';
import { extractEntities } from '../enrich/entities.js';
import { MONTHS, SUBJECT_ENTITY_TYPES, contentWords } from '../chat/follow-up.js';
import type { NewsArticle } from '../article/model.js';

export interface PlannedCall {
  tool: string;
  input: Record<string, unknown>;
  /** weight of its results in the pooled ranking */
  weight: number;
  /** what it asks, beyond its query (a widening entity) */
  keys?: string[];
}

export interface QuestionParts {
  full: string;
  entities: string[];
  phrases: string[];
  /** the question's content words (widening queries carry them) */
  core: string;
  windows: { label: string; start: number; end: number }[];
}

export function questionParts(question: string): QuestionParts {
  const full = question.trim().replace(/\s+/g, ' ');
  const ents = extractEntities(full, '');
  const seen = new Set<string>();
  const entities: string[] = [];
  for (const t of SUBJECT_ENTITY_TYPES) {
    for (const e of ents[t] ?? []) {
      const k = e.toLowerCase();
      if (seen.has(k) || e.length < 2) continue;
      seen.add(k);
      entities.push(e);
    }
  }
  const runs = contentWords(full);
  const core = runs.flat().join(' ');
  const phrases = runs
    .filter((r) => r.length >= 2)
    .map((r) => r.join(' '))
    .filter((p) => !seen.has(p.toLowerCase()))
    .slice(0, 2);
  const windows: QuestionParts['windows'] = [];
  const monthYear = new RegExp(`\\b(${MONTHS.join('|')})\\s+(\\d{4})\\b`, 'gi');
  const covered = new Set<string>();
  for (const m of full.matchAll(monthYear)) {
    const mi = MONTHS.indexOf(m[1]!.toLowerCase());
    const y = Number(m[2]);
    covered.add(m[2]!);
    windows.push({ label: `${m[1]} ${y}`, start: Date.UTC(y, mi, 1) / 1000, end: Date.UTC(y, mi + 1, 1) / 1000 - 1 });
  }
  for (const m of full.matchAll(/\b(19\d{2}|20\d{2})\b/g)) {
    if (covered.has(m[1]!)) continue;
    covered.add(m[1]!);
    const y = Number(m[1]);
    windows.push({ label: m[1]!, start: Date.UTC(y, 0, 1) / 1000, end: Date.UTC(y + 1, 0, 1) / 1000 - 1 });
  }
  return { full, entities: entities.slice(0, 3), phrases, core: core || full, windows: windows.slice(0, 2) };
}

/** The external tools and the source that enables each (one call per round when available). */
const EXTERNAL: [DeepNewsSource, string][] = [
  ['wiki', 'search_wiki'],
  ['google', 'search_web'],
  ['reddit', 'search_forum'],
  ['charts', 'make_chart'],
  ['graph', 'build_graph'],
];

/** Articles the whole-question search asks for (the other searches: the request's n_articles, default 10). */
const MAIN_ARTICLES = 20;

export function firstRound(parts: QuestionParts, sources: Set<DeepNewsSource>, usable: (tool: string) => boolean): PlannedCall[] {
  const calls: PlannedCall[] = [];
  if (sources.has('asknews') && usable('search_news')) {
    calls.push({ tool: 'search_news', input: { query: parts.full, n_articles: MAIN_ARTICLES }, weight: 2 });
    for (const e of parts.entities) calls.push({ tool: 'search_news', input: { query: e, method: 'kw' }, weight: 0.5 });
    for (const p of parts.phrases) calls.push({ tool: 'search_news', input: { query: p, method: 'kw' }, weight: 0.75 });
    for (const w of parts.windows) calls.push({ tool: 'search_news', input: { query: parts.full, start_timestamp: w.start, end_timestamp: w.end }, weight: 1 });
  }
  if (sources.has('asknews') && usable('search_stories')) calls.push({ tool: 'search_stories', input: { query: parts.full }, weight: 0.75 });
  if (sources.has('podcasts') && usable('search_podcasts')) calls.push({ tool: 'search_podcasts', input: { query: parts.full }, weight: 0.5 });
  for (const [src, tool] of EXTERNAL) if (sources.has(src) && usable(tool)) calls.push({ tool, input: { query: parts.full }, weight: 1 });
  return calls;
}

export interface FoundSoFar {
  /** articles, best first */
  ranked: NewsArticle[];
  /** story id of an article, if it belongs to one */
  storyOf(articleId: string): string | null;
  /** queries and story ids already asked */
  asked: Set<string>;
}

/** How many of the best articles later rounds look at, and how many widenings a round makes. */
const WIDEN_FROM = 10;
const WIDEN_ENTITIES = 2;

export function nextRound(parts: QuestionParts, sources: Set<DeepNewsSource>, usable: (tool: string) => boolean, found: FoundSoFar): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const top = found.ranked.slice(0, WIDEN_FROM);
  const inQuestion = parts.full.toLowerCase();
  const counts = new Map<string, { name: string; n: number; first: number }>();
  top.forEach((a, i) => {
    for (const t of ['Person', 'Organization', 'Location', 'Event'] as const) {
      for (const e of a.entities[t] ?? []) {
        const k = e.toLowerCase();
        if (e.length < 3 || inQuestion.includes(k)) continue;
        const c = counts.get(k) ?? { name: e, n: 0, first: i };
        c.n++;
        counts.set(k, c);
      }
    }
  });
  const entities = [...counts.values()]
    .filter((c) => c.n >= 2)
    .sort((a, b) => b.n - a.n || a.first - b.first || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => c.name)
    .filter((e) => !found.asked.has(`q:${e.toLowerCase()}`))
    .slice(0, WIDEN_ENTITIES);
  if (sources.has('asknews') && usable('search_news')) {
    for (const e of entities)
      calls.push({ tool: 'search_news', input: { query: `${parts.core} ${e}`, method: 'kw' }, weight: 0.5, keys: [`q:${e.toLowerCase()}`] });
  }
  if (sources.has('asknews') && usable('search_stories')) {
    const story = top.map((a) => found.storyOf(a.articleId)).find((s): s is string => !!s && !found.asked.has(`s:${s}`));
    if (story) calls.push({ tool: 'search_stories', input: { story_id: story }, weight: 0.5 });
  }
  if (entities.length) {
    if (sources.has('podcasts') && usable('search_podcasts'))
      calls.push({ tool: 'search_podcasts', input: { query: `${parts.core} ${entities[0]}` }, weight: 0.25 });
    for (const [src, tool] of EXTERNAL)
      if (sources.has(src) && usable(tool)) calls.push({ tool, input: { query: `${parts.core} ${entities[0]}` }, weight: 0.5 });
  }
  return calls;
}

/** The keys a call is remembered by (so later rounds do not ask it again). */
export function askedKeys(c: PlannedCall): string[] {
  const keys = [...(c.keys ?? [])];
  if (typeof c.input.story_id === 'string') keys.push(`s:${c.input.story_id}`);
  if (typeof c.input.query === 'string') keys.push(`q:${c.input.query.toLowerCase()}`);
  return keys;
}
