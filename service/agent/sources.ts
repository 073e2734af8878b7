/**
 * What DeepNews gathers besides news articles, as the writer reads it and as the response returns
 * it. Each gathered item becomes a numbered source of the writer's context (a `PassageDoc`, cited
 * with `[n]` like an article) and, once cited, an entry of the response's `sources` in the shape
 * spec/chat.ts gives its kind:
 *
 * | tool           | writer reads                                  | `sources` (final)        | stream source event |
 * |----------------|-----------------------------------------------|--------------------------|---------------------|
 * | search_web     | the page's text                               | `web` (WebSearchResult)  | `web`               |
 * | search_wiki    | the encyclopedia passage                      | `web` (WebSearchResult)  | `web`               |
 * | search_forum   | the thread's takeaways and summary            | `web` (WebSearchResult)  | `web`               |
 * | build_graph    | its facts: the most named entities, then the  | `web` (a WebSearchResult | `graph` (its page)  |
 * |                | relations between them, one a line            | naming the graph's page) |                     |
 * | make_chart     | one source per series: its total, peak, last  | `charts` (ChartResponse) | `chart`             |
 *
 * A graph has no place of its own in the final `sources` (news, web, charts), so a cited graph is
 * listed under `web`, its URL the graph's page; the stream names it with its own kind.
 */
import type { ChartResponse, WebSearchResult } from '../../spec/index.js';
import type { PassageDoc } from '../llm/index.js';
import type { Graph } from '../graph/service.js';

export type WebKind = 'web' | 'wiki' | 'forum';

/** A knowledge graph a tool built: its page (relative to the service) and its facts. */
export interface GraphFound {
  uri: string;
  query: string;
  facts: string[];
  /** when the newest article it was built from was published (within the run's cutoff) */
  published: Date;
}

/** A gathered item as the writer's numbered source, with what `sources` lists when it is cited. */
export interface Gathered {
  doc: PassageDoc;
  source: { kind: 'web'; data: WebSearchResult } | { kind: 'chart'; data: ChartResponse } | { kind: 'graph'; data: string; web: WebSearchResult };
}

/** Facts of a graph the writer reads (at most): the most named entities, then the strongest relations. */
const GRAPH_NODES = 8;
const GRAPH_EDGES = 12;

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** The facts of a graph built from `articles` articles, one a line: the entities named most, then the relations with most support. */
export function graphFacts(graph: Graph, query: string, articles: number): string[] {
  const nodes = [...graph.nodes].sort((a, b) => b.sources - a.sources || b.mentions - a.mentions || (a.id < b.id ? -1 : 1)).slice(0, GRAPH_NODES);
  const facts: string[] = [];
  if (nodes.length)
    facts.push(
      `The ${plural(articles, 'article')} found for "${query}" name most often: ${nodes.map((n) => `${n.id} (${n.type}, ${plural(n.sources, 'article')})`).join(', ')}.`,
    );
  // relations a verb names first, then what is only named together
  const edges = [...graph.edges].sort(
    (a, b) => Number(a.label === 'co-occurs') - Number(b.label === 'co-occurs') || b.weight - a.weight || (a.from + a.to < b.from + b.to ? -1 : 1),
  );
  for (const e of edges.slice(0, GRAPH_EDGES)) {
    facts.push(
      e.label === 'co-occurs'
        ? `${e.from} and ${e.to} are named in the same sentence in ${plural(e.weight, 'article')}.`
        : `${e.from} ${e.label} ${e.to} (in ${plural(e.weight, 'article')}).`,
    );
  }
  return facts;
}

const publisherOf = (w: WebSearchResult, kind: WebKind) => (kind === 'wiki' ? 'Wikipedia' : kind === 'forum' ? w.source.replace(/^reddit /, '') : w.source);

/** A web page, encyclopedia passage or forum thread as a numbered source. */
export function webSource(n: number, w: WebSearchResult, kind: WebKind): Gathered {
  const published = Date.parse(w.published);
  // the forum's takeaways are its own sentences; a wiki passage's key point is only its first 300 characters
  const text = kind === 'forum' ? [...w.key_points, w.raw_text].filter(Boolean).join('\n') : w.raw_text || w.key_points.join('\n');
  return {
    doc: { n, kind, title: w.title, url: w.url, publisher: publisherOf(w, kind), published: Number.isNaN(published) ? null : new Date(published), text },
    source: { kind: 'web', data: w },
  };
}

/** A graph as a numbered source (its page absolute under `origin`), dated by the newest article it was built from. */
export function graphSource(n: number, g: GraphFound, origin: string): Gathered {
  const url = `${origin}${g.uri}`;
  const title = `Knowledge graph: ${g.query}`;
  const web: WebSearchResult = {
    title,
    url,
    source: 'newsflow knowledge graph',
    published: g.published.toISOString(),
    key_points: g.facts.slice(0, 5),
    raw_text: g.facts.join('\n'),
    as_string_key: null,
  };
  return {
    doc: { n, kind: 'graph', title, url, publisher: web.source, published: g.published, text: web.raw_text },
    source: { kind: 'graph', data: g.uri, web },
  };
}

type Trace = { name?: unknown; x?: unknown; y?: unknown };
const day = (iso: string) => iso.slice(0, 10);

/** The GET /v1/index_counts URL that gives a series' counts (the same parameters the chart counted with). */
function countsUrl(origin: string, series: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(series)) {
    if (k === 'name' || v === null || v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) q.append(k, String(x));
  }
  return `${origin}/v1/index_counts?${q}`;
}

/** Each series of a chart as a numbered source: its total, its peak and its last count over the chart's window. */
export function chartSources(first: number, chart: ChartResponse, origin: string): Gathered[] {
  const traces = (Array.isArray(chart.chart_json.data) ? chart.chart_json.data : []) as Trace[];
  const series = (chart.parameters?.series ?? []) as unknown as Record<string, unknown>[];
  const sampling = typeof chart.context?.sampling === 'string' ? chart.context.sampling : '';
  const per = { '5m': '5 minutes', '1h': 'hour', '12h': '12 hours', '1d': 'day', '1w': 'week', '1m': 'month' }[sampling] ?? 'period';
  const out: Gathered[] = [];
  traces.forEach((t, i) => {
    const xs = Array.isArray(t.x) ? (t.x as string[]) : [];
    const ys = Array.isArray(t.y) ? (t.y as number[]) : [];
    if (!xs.length || xs.length !== ys.length) return;
    const name = typeof t.name === 'string' ? t.name : `series ${i + 1}`;
    const total = ys.reduce((s, y) => s + y, 0);
    let peak = 0;
    ys.forEach((y, j) => {
      if (y > ys[peak]!) peak = j;
    });
    const from = day(xs[0]!);
    const to = day(typeof chart.context?.end_datetime === 'string' ? chart.context.end_datetime : xs[xs.length - 1]!);
    const text = [
      `The news index holds ${plural(total, 'article')} on ${name} from ${from} to ${to}.`,
      total
        ? `Coverage of ${name} peaked in the ${per} starting ${day(xs[peak]!)} with ${plural(ys[peak]!, 'article')}; the last ${per} (from ${day(xs[xs.length - 1]!)}) has ${plural(ys[ys.length - 1]!, 'article')}.`
        : '',
    ]
      .filter(Boolean)
      .join('\n');
    const url = series[i] ? countsUrl(origin, series[i]!) : `${origin}/v1/index_counts`;
    out.push({
      doc: {
        n: first + out.length,
        kind: 'chart',
        title: `Articles per ${per}: ${name} (${from} to ${to})`,
        url,
        publisher: 'newsflow index counts',
        published: null,
        text,
      },
      source: { kind: 'chart', data: chart },
    });
  });
  return out;
}
