/**
 * Story and update summaries -> the interface's StoryResponse and StoryUpdate (spec/stories.ts).
 *
 * - headline: the title of the update's most central article (cosine to the update centroid);
 * - story / key_takeaways: extractive (service/enrich/summarize.ts) over the summaries of the
 *   update's distinct articles, most central first: the best two sentences make `story`, the best
 *   four the takeaways; each story sentence cites the article it came from, per citation_method:
 *   `brackets` "... [1]." with markdown_citations "[1]: [title](url)", `urls` "... ([domain](url))."
 *   with markdown_citations "[title](url)", `none` plain text and no citations;
 * - new_information: the first takeaway not already said by the previous update ('' for the first);
 * - counts (sources_urls by domain, languages, countries) with percentages of the update's
 *   articles (0-100); people, locations, keywords and entities by the number of articles naming them;
 * - relationships: the top Person/Organization/Location entities linked when an article names
 *   both (label mentioned_with), drawn again as a mermaid graph;
 * - intra_cluster_statistics: the update's share (percent) of everything indexed in its window:
 *   articles, domains, countries, languages; cluster_probabilities = each article's clustering score;
 * - no model writes prose or images here: contradictions are [], image_url a placeholder under the
 *   reserved `.invalid` domain, generate_image false;
 * - reddit (when asked, `BuildOptions.reddit`): reddit_threads = the forum threads about the update
 *   (service/forum/store.ts `related`); reddit_perspective: sentiment = their mean sentiment,
 *   relevant = any found, summary = the best thread's summary; the story's reddit_sentiment and
 *   reddit_sentiment_timestamps: that mean per update that has threads (chronological, the
 *   update's story_update_ts). Without reddit: [] and empty series.
 */
import { ENTITY_TYPES, type RedditThread } from '../../spec/index.js';
import type { NewsArticle } from '../article/model.js';
import { summarize, type DocFreq } from '../enrich/summarize.js';
import { toDict } from '../search/format.js';
import { words } from '../text/tokenize.js';
import { ranked, round, type StorySummary, type UpdateSummary, type WindowStats } from './summary.js';

export type CitationMethod = 'brackets' | 'urls' | 'none';
/** prompt_articles: the most central articles of an update */
export const PROMPT_ARTICLES = 3;
/** how many distinct articles the extractive story reads */
const STORY_SOURCES = 8;
const GRAPH_NODES = 12;
const GRAPH_EDGES = 20;
const IMAGE_BASE = 'https://images.newsflow.invalid/stories';

export interface BuildOptions {
  maxArticles: number;
  citation: CitationMethod;
  df: DocFreq;
  windowStats: (from: number, to: number) => WindowStats;
  /** forum threads about an update (the `reddit` parameter); absent: none */
  reddit?: (u: UpdateSummary) => RedditThread[];
}

function redditPerspective(threads: RedditThread[]): { sentiment: number; relevant: boolean; summary: string } {
  if (threads.length === 0) return { sentiment: 0, relevant: false, summary: '' };
  return { sentiment: round(threads.reduce((s, t) => s + t.sentiment, 0) / threads.length, 3), relevant: true, summary: threads[0]!.summary };
}

/** An Article of the interface (SearchResponseDictItem without as_string_key). */
export function articleDict(a: NewsArticle): Record<string, unknown> {
  const { as_string_key: _key, ...rest } = toDict(a, { graphs: false, geo: false, fullText: false });
  return rest;
}

const tokenSet = (s: string) => new Set(words(s));
function jaccard(a: Set<string>, b: Set<string>): number {
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  const union = a.size + b.size - both;
  return union ? both / union : 0;
}

/** The update's articles without near-duplicate headlines (token Jaccard >= 0.6), most central first. */
function distinct(articles: NewsArticle[], k: number): NewsArticle[] {
  const kept: { a: NewsArticle; t: Set<string> }[] = [];
  for (const a of articles) {
    const t = tokenSet(a.title);
    if (kept.some((x) => jaccard(x.t, t) >= 0.6)) continue;
    kept.push({ a, t });
    if (kept.length >= k) break;
  }
  return kept.map((x) => x.a);
}

export interface Extract {
  story: string;
  takeaways: string[];
  citations: string[];
}

export function extract(u: UpdateSummary, df: DocFreq, citation: CitationMethod): Extract {
  const sources = distinct(u.articles, STORY_SOURCES);
  const textOf = (a: NewsArticle) => a.summary || a.title;
  const { summary, keyPoints } = summarize(u.headline, sources.map(textOf).join('\n'), 'en', df);
  const chosen = keyPoints.filter((kp) => summary.includes(kp));
  const sentences = chosen.length ? chosen : [summary];
  const cited: NewsArticle[] = [];
  const parts = sentences.map((s) => {
    const a = sources.find((x) => textOf(x).includes(s)) ?? sources[0];
    const m = /([.!?]+)["”’)]*$/.exec(s);
    const body = m ? s.slice(0, m.index) : s;
    const end = m ? m[1]!.slice(0, 1) : '.';
    if (!a || citation === 'none') return `${body}${end}`;
    if (citation === 'urls') return `${body} ([${a.domain}](${a.url}))${end}`;
    let n = cited.indexOf(a);
    if (n < 0) n = cited.push(a) - 1;
    return `${body} [${n + 1}]${end}`;
  });
  const link = (a: NewsArticle) => `[${a.title.replace(/[[\]]/g, '')}](${a.url})`;
  const citations =
    citation === 'brackets'
      ? cited.map((a, i) => `[${i + 1}]: ${link(a)}`)
      : citation === 'urls'
        ? [...new Set(sentences.map((s) => sources.find((x) => textOf(x).includes(s)) ?? sources[0]).filter((a): a is NewsArticle => !!a))].map(link)
        : [];
  return { story: parts.join(' '), takeaways: keyPoints, citations };
}

function counts(values: string[]): Record<string, number> {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return Object.fromEntries([...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}
function pcts(c: Record<string, number>): Record<string, number> {
  const total = Object.values(c).reduce((s, n) => s + n, 0) || 1;
  return Object.fromEntries(Object.entries(c).map(([k, n]) => [k, round((100 * n) / total, 2)]));
}

const GRAPH_TYPES = ['Person', 'Organization', 'Location'] as const;

/** Entities as nodes, linked when one article names both; and the same graph in mermaid. */
export function relationships(articles: NewsArticle[]): {
  relationships: { nodes: Record<string, string>[]; edges: Record<string, string>[] };
  mermaid: string;
} {
  const typeOf = new Map<string, string>();
  for (const t of GRAPH_TYPES) for (const a of articles) for (const v of a.entities[t]) if (!typeOf.has(v)) typeOf.set(v, t);
  const top = ranked(
    articles.map((a) => GRAPH_TYPES.flatMap((t) => a.entities[t])),
    GRAPH_NODES,
  ).filter((v) => typeOf.has(v));
  const inTop = new Set(top);
  const pairs = new Map<string, number>();
  for (const a of articles) {
    const named = [...new Set(GRAPH_TYPES.flatMap((t) => a.entities[t]).filter((v) => inTop.has(v)))].sort((x, y) => top.indexOf(x) - top.indexOf(y));
    for (let i = 0; i < named.length; i++)
      for (let j = i + 1; j < named.length; j++) {
        const k = `${named[i]}\u0000${named[j]}`;
        pairs.set(k, (pairs.get(k) ?? 0) + 1);
      }
  }
  const edges = [...pairs.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, GRAPH_EDGES)
    .map(([k]) => {
      const [from, to] = k.split('\u0000') as [string, string];
      return { from, to, label: 'mentioned_with' };
    });
  // story graph nodes are {id, type, detailed_type} (spec/stories.ts `StoryRelationships`); ner_type is the article graph's
  const nodes = top.map((id) => ({ id, type: typeOf.get(id)!, detailed_type: typeOf.get(id)! }));
  const key = new Map(top.map((id, i) => [id, `N${i}`]));
  const label = (s: string) => s.replace(/"/g, "'");
  const mermaid = [
    'graph LR',
    ...nodes.map((n) => `  ${key.get(n.id)}["${label(n.id)}"]`),
    ...edges.map((e) => `  ${key.get(e.from)} ---|${e.label}| ${key.get(e.to)}`),
  ].join('\n');
  return { relationships: { nodes, edges }, mermaid };
}

function newInformation(u: UpdateSummary, prev: UpdateSummary | null, o: BuildOptions): string {
  if (!prev) return '';
  const before = [prev.headline, ...extract(prev, o.df, 'none').takeaways].map(tokenSet);
  const mine = extract(u, o.df, 'none').takeaways;
  return mine.find((s) => before.every((b) => jaccard(b, tokenSet(s)) < 0.6)) ?? '';
}

export function updateDict(u: UpdateSummary, prev: UpdateSummary | null, o: BuildOptions): Record<string, unknown> {
  const arts = u.articles;
  const text = extract(u, o.df, o.citation);
  const graph = relationships(arts);
  const ws = o.windowStats(u.windowStart, u.windowStart + u.windowMs);
  const share = (mine: number, all: number) => (all ? round((100 * mine) / all, 2) : 0);
  const languages = counts(arts.map((a) => a.language));
  const countries = counts(arts.map((a) => a.country));
  const voices = ranked(
    arts.map((a) => [a.reportingVoice]),
    1,
  );
  const reddit = o.reddit?.(u) ?? [];
  return {
    uuid: u.id,
    cluster_articles: arts.slice(0, o.maxArticles).map(articleDict),
    prompt_articles: arts.slice(0, Math.min(PROMPT_ARTICLES, o.maxArticles)).map(articleDict),
    n_articles: arts.length,
    entities: Object.fromEntries(
      ENTITY_TYPES.map((t) => [
        t,
        ranked(
          arts.map((a) => a.entities[t]),
          10,
        ),
      ]),
    ),
    headline: u.headline,
    story: text.story,
    story_update_ts: u.ts,
    sources_urls: counts(arts.map((a) => a.domain)),
    languages_pct: pcts(languages),
    countries_pct: pcts(countries),
    key_takeaways: text.takeaways,
    contradictions: [],
    continent: u.continent,
    people: ranked(
      arts.map((a) => a.entities.Person),
      10,
    ),
    locations: ranked(
      arts.map((a) => a.entities.Location),
      10,
    ),
    new_information: newInformation(u, prev, o),
    image_url: `${IMAGE_BASE}/${u.id}.png`,
    url_safe_title: u.slug,
    story_uuid: u.storyId,
    categories: u.categories,
    image_prompt: `News illustration, no text: ${u.headline}`,
    reddit_perspective: redditPerspective(reddit),
    reddit_threads: reddit,
    languages,
    keywords: ranked(
      arts.map((a) => a.keywords),
      10,
    ),
    intra_cluster_statistics: {
      cluster_articles_pct: share(arts.length, ws.articles),
      cluster_countries_pct: share(new Set(arts.map((a) => a.country)).size, ws.countries.size),
      cluster_domains_pct: share(new Set(arts.map((a) => a.domain)).size, ws.domains.size),
      cluster_languages_pct: share(new Set(arts.map((a) => a.language)).size, ws.languages.size),
      cluster_probabilities: u.probabilities,
    },
    silhouette_score: { cohesion: u.cohesion, confidence: u.confidence, method: 'mean cosine of the articles to the update and story centroids' },
    article_ids: arts.map((a) => a.articleId),
    countries,
    markdown_citations: text.citations,
    confidence: u.confidence,
    provocative: u.provocative,
    reporting_voice: voices[0] ?? 'Reporting voice unknown.',
    relationships: graph.relationships,
    mermaid: graph.mermaid,
    cc_image_url: '',
    display_image_urls: [],
    alignment: 0,
  };
}

/** Rolling mean of the last three updates' sentiment. */
function rolling(xs: number[], w = 3): number[] {
  return xs.map((_, i) => {
    const win = xs.slice(Math.max(0, i - w + 1), i + 1);
    return round(win.reduce((s, x) => s + x, 0) / win.length, 3);
  });
}

/**
 * A StoryResponse: series (n_articles, sentiment, sentiment_timestamps, rolling_sentiment,
 * update_uuids) are chronological; `updates` holds `shown`, newest first.
 */
export function storyDict(s: StorySummary, requested: UpdateSummary, shown: UpdateSummary[], o: BuildOptions): Record<string, unknown> {
  const arts = s.updates.flatMap((u) => u.articles);
  const languages = counts(arts.map((a) => a.language));
  const countries = counts(arts.map((a) => a.country));
  const last = s.updates[s.updates.length - 1]!;
  const topics = ranked(
    arts.map((a) => (['Person', 'Organization', 'Location', 'Event'] as const).flatMap((t) => a.entities[t])),
    5,
  );
  const prevOf = new Map(s.updates.map((u, i) => [u.id, s.updates[i - 1] ?? null]));
  const redditSeries = o.reddit ? s.updates.map((u) => ({ ts: u.ts, p: redditPerspective(o.reddit!(u)) })).filter((x) => x.p.relevant) : [];
  return {
    uuid: s.id,
    categories: s.categories,
    countries,
    countries_pct: pcts(countries),
    current_update_uuid: last.id,
    requested_update_uuid: requested.id,
    generate_image: false,
    keywords: ranked(
      arts.map((a) => a.keywords),
      10,
    ),
    languages,
    languages_pct: pcts(languages),
    locations: ranked(
      arts.map((a) => a.entities.Location),
      10,
    ),
    meta_type: 'story',
    n_articles: s.updates.map((u) => u.articles.length),
    n_updates: s.updates.length,
    people: ranked(
      arts.map((a) => a.entities.Person),
      10,
    ),
    reddit_sentiment: redditSeries.map((x) => x.p.sentiment),
    reddit_sentiment_timestamps: redditSeries.map((x) => x.ts),
    rolling_sentiment: rolling(s.updates.map((u) => u.sentiment)),
    sentiment: s.updates.map((u) => u.sentiment),
    sentiment_timestamps: s.updates.map((u) => u.ts),
    sources: counts(arts.map((a) => a.sourceId)),
    sources_urls: counts(arts.map((a) => a.domain)),
    topic: topics.slice(0, 3).join(', ') || requested.headline,
    topics,
    updates: shown.map((u) => updateDict(u, prevOf.get(u.id) ?? null, o)),
    updated_ts: last.ts,
    update_uuids: s.updates.map((u) => u.id),
  };
}
