/**
 * Charts: a question -> ChartParameters -> a plotly figure of index counts (POST /v1/chat/charts,
 * and the DeepNews charts tool through `chart`).
 *
 * Reading the question (rule-based, no model call):
 *  - chart type: "percent / share / proportion / relative / %" -> bar_pct (stacked bars with
 *    plotly's barnorm "percent": the traces keep the raw counts); "bar / histogram / column" ->
 *    bar; else line;
 *  - series: "X vs Y", "X versus Y", "X compared to|with Y", "X against Y", or "compare X, Y and
 *    Z" -> one series per subject (at most CHART_MAX_SERIES); else one series;
 *  - each subject is read by the autofilter (service/autofilter/); its people, organizations,
 *    places, categories, publisher places, languages, sentiment, voice, domains become the
 *    series' index-count filters; a subject with none of these counts articles containing its
 *    words (string_guarantee);
 *  - filters that scope the whole question ("in British media", "positive") and the caller's
 *    filter_params apply to every series; a subject's own filters win;
 *  - window: the question's time window, else the last 30 days to now (the service clock);
 *  - sampling: "hourly / daily / weekly / monthly", else by span: up to 3 days 1h, up to 120
 *    days 1d, up to 3 years 1w, longer 1m; coarsened until at most CHART_MAX_BUCKETS buckets.
 * Counts are the index-count capability (service/counts/index-counts.ts, given to `Charts` by
 * service/server.ts) with the series' parameters parsed by the same schema as GET
 * /v1/index_counts: a series' values equal that endpoint's counts for the same parameters.
 */
import {
  CHART_MAX_SERIES,
  DATETIME_RANGE,
  IndexCountsQuery,
  SeriesConfig,
  type ChartParameters,
  type ChartResponse,
  type IndexCountsQueryParsed,
} from '../../spec/index.js';
import type { Principal } from '../auth/principal.js';
import type { NewsService } from '../news/service.js';
import { HttpError, validationError } from '../errors/index.js';
import { autofilter, validFilters, type FilterParamsOut } from '../autofilter/index.js';
import { parseTimeWindow } from '../autofilter/time.js';

type ChartType = ChartParameters['chart_type'];
/** One bucket of a series: what GET /v1/index_counts answers per bucket. */
export interface CountBucket {
  start: string;
  end: string;
  count: number;
}
/** The index counts of parsed GET /v1/index_counts parameters as `principal` sees them (service/counts `indexCounts`). */
export type CountSeries = (q: IndexCountsQueryParsed, news: NewsService, principal: Principal | null) => CountBucket[];
type Sampling = IndexCountsQueryParsed['sampling'];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Most buckets per series a chart draws (a readable chart; GET /v1/index_counts allows more). */
export const CHART_MAX_BUCKETS = 1000;
export const CHART_DEFAULT_DAYS = 30;
const SAMPLINGS: Sampling[] = ['5m', '1h', '12h', '1d', '1w', '1m'];
const SAMPLING_MS: Record<Sampling, number> = { '5m': 300_000, '1h': HOUR, '12h': 12 * HOUR, '1d': DAY, '1w': 7 * DAY, '1m': 30.44 * DAY };
/** The latest end of a chart: a month bucket ending before 9999-12-31T23:59:59Z. */
const LATEST = Date.parse('9999-11-01T00:00:00Z');
const SAMPLING_WORD: Record<Sampling, string> = { '5m': '5 minutes', '1h': 'hour', '12h': '12 hours', '1d': 'day', '1w': 'week', '1m': 'month' };

/** Filters that narrow the whole chart (not what a series is about). */
const SCOPE_KEYS = [
  'countries',
  'countries_blacklist',
  'continents',
  'languages',
  'domain_url',
  'bad_domain_url',
  'sentiment',
  'reporting_voice',
  'provocative',
  'page_rank',
] as const;
/** Filters that say what a subject is. */
const SUBJECT_KEYS = [
  'entity_guarantee',
  'entity_guarantee_op',
  'reverse_entity_guarantee',
  'categories',
  'string_guarantee',
  'string_guarantee_op',
  'reverse_string_guarantee',
  ...SCOPE_KEYS,
] as const;

export function chartTypeOf(q: string): ChartType {
  if (/\bbar_pct\b|\bper ?cent(?:age)?s?\b|\bshares?\b|\bproportions?\b|\bfractions?\b|\brelative\b|\bnormali[sz]ed\b|%/i.test(q)) return 'bar_pct';
  if (/\bbars?\b|\bhistograms?\b|\bcolumns?\b/i.test(q)) return 'bar';
  return 'line';
}

function samplingWord(q: string): Sampling | null {
  if (/\bhourly\b|\bper hour\b|\bby hour\b|\beach hour\b/i.test(q)) return '1h';
  if (/\bdaily\b|\bper day\b|\bby day\b|\beach day\b/i.test(q)) return '1d';
  if (/\bweekly\b|\bper week\b|\bby week\b|\beach week\b/i.test(q)) return '1w';
  if (/\bmonthly\b|\bper month\b|\bby month\b|\beach month\b/i.test(q)) return '1m';
  return null;
}

/** Words that ask for a chart, not for news. */
const CHART_WORDS =
  /\b(?:(?:make|draw|plot|show|create|give|build)(?: me)?(?: an?| the)?|(?:line|bar|pie|column|stacked)[- ]?(?:charts?|graphs?|plots?)?|charts?|graphs?|plots?|bar_pct|histograms?|timelines?|time series|trends?|over time|per (?:hour|day|week|month)|by (?:hour|day|week|month)|each (?:hour|day|week|month)|hourly|daily|weekly|monthly|how many|number of|count of|counts?|volume of|amount of|share of|percentage of|proportion of|per ?cent(?:age)?s?|shares?|proportions?|relative|normali[sz]ed|coverage of|coverage|mentions? of|mentions|mentioned|mentioning|mention|articles? (?:about|on|mentioning)|articles|compare|comparing|comparison of|comparison)\b|%/gi;

/** The question without its time words and chart words, split into compared subjects. */
export function subjectsOf(q: string, now: number): string[] {
  const time = parseTimeWindow(q, now);
  const chars = [...q];
  for (const [s, e] of time.spans) for (let i = s; i < e; i++) chars[i] = ' ';
  const text = chars.join('').replace(CHART_WORDS, ' ').replace(/\s+/g, ' ').trim();
  let parts = text.split(/\s+(?:vs\.?|versus|compared (?:to|with)|against)\s+|\s*\bv\.?\s+/i);
  if (parts.length < 2 && /\b(?:compar|versus|vs\b)/i.test(q)) parts = text.split(/\s*,\s*(?:and\s+)?|\s+and\s+/i);
  return parts
    .map((p) =>
      p
        .replace(/^(?:between|of|the|for|on|about|and|in)\s+/i, '')
        .replace(/[?.!,;:]+$/, '')
        .trim(),
    )
    .filter((p) => /\w/.test(p))
    .slice(0, CHART_MAX_SERIES);
}

function pickSampling(from: number, to: number, asked: Sampling | null): Sampling {
  const span = to - from;
  let s: Sampling = asked ?? (span <= 3 * DAY ? '1h' : span <= 120 * DAY ? '1d' : span <= 3 * 365 * DAY ? '1w' : '1m');
  while (span / SAMPLING_MS[s] > CHART_MAX_BUCKETS && s !== '1m') s = SAMPLINGS[SAMPLINGS.indexOf(s) + 1]!;
  return s;
}

const has = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== '';
const list = (v: unknown): string[] | undefined => (v === undefined || v === null ? undefined : Array.isArray(v) ? v.map(String) : [String(v)]);

/** Search filters -> the index-count parameters of one series (GET /v1/index_counts names). */
function seriesOf(name: string, f: Record<string, unknown>, win: { from: number; to: number }, sampling: Sampling): SeriesConfig {
  let categories = list(f.categories)?.filter((c) => c !== 'All');
  let stringGuarantee = list(f.string_guarantee);
  let stringOp = (f.string_guarantee_op as string | undefined) ?? 'OR';
  if (categories?.includes('Economy')) {
    // index counts have no Economy category (spec/enums.ts `INDEX_COUNT_CATEGORIES`): count the economy's words instead
    categories = categories.filter((c) => c !== 'Economy');
    if (!categories.length && !stringGuarantee?.length) {
      stringGuarantee = ['economy', 'economic', 'inflation', 'recession'];
      stringOp = 'OR';
    }
  }
  const s: Record<string, unknown> = {
    name,
    start_datetime: new Date(win.from).toISOString(),
    end_datetime: new Date(win.to).toISOString(),
    sampling,
    time_filter: f.time_filter ?? 'pub_date',
    categories: categories?.length ? categories : undefined,
    domains: list(f.domain_url),
    bad_domain_url: list(f.bad_domain_url),
    page_rank: f.page_rank ?? undefined,
    string_guarantee: stringGuarantee,
    string_guarantee_op: stringOp,
    reverse_string_guarantee: list(f.reverse_string_guarantee),
    entity_guarantee: list(f.entity_guarantee),
    entity_guarantee_op: f.entity_guarantee_op ?? 'OR',
    countries: list(f.countries),
    countries_blacklist: list(f.countries_blacklist),
    continents: list(f.continents),
    languages: list(f.languages),
    sentiment: f.sentiment ?? undefined,
    reporting_voice: list(f.reporting_voice),
    provocative: f.provocative ?? 'all',
  };
  for (const k of Object.keys(s)) if (!has(s[k])) delete s[k];
  // keep only what the schema accepts (a caller's filter the index counts cannot take is dropped)
  for (let i = 0; i < 5; i++) {
    const r = SeriesConfig.safeParse(s);
    if (r.success) return r.data;
    for (const issue of r.error.issues) {
      const k = String(issue.path[0]);
      if (['name', 'start_datetime', 'end_datetime'].includes(k)) throw new Error(`series ${k}: ${issue.message}`);
      delete s[k];
    }
  }
  return SeriesConfig.parse(s);
}

/** The index-count request of a series: the same parameters GET /v1/index_counts reads. */
export function seriesQuery(s: SeriesConfig): IndexCountsQueryParsed {
  const { name: _n, ...params } = s;
  return IndexCountsQuery.parse(params);
}

function figure(type: ChartType, title: string, series: SeriesConfig[], counts: CountBucket[][]): Record<string, unknown> {
  const data = series.map((s, i) => ({
    type: type === 'line' ? 'scatter' : 'bar',
    ...(type === 'line' ? { mode: 'lines+markers' } : {}),
    name: s.name,
    x: counts[i]!.map((c) => c.start),
    y: counts[i]!.map((c) => c.count),
    hovertemplate: `%{y} articles<extra>${s.name.replace(/[<>]/g, '')}</extra>`,
  }));
  const layout: Record<string, unknown> = {
    title: { text: title },
    xaxis: { title: { text: `${SAMPLING_WORD[series[0]!.sampling]} (UTC, bucket start)` }, type: 'date' },
    yaxis: { title: { text: type === 'bar_pct' ? 'share of articles (%)' : 'articles' }, rangemode: 'tozero' },
    showlegend: true,
    template: 'plotly_white',
  };
  if (type === 'bar') layout.barmode = 'group';
  if (type === 'bar_pct') Object.assign(layout, { barmode: 'stack', barnorm: 'percent' });
  return { data, layout };
}

/**
 * The charts capability on Services (`services.charts`): POST /v1/chat/charts and the DeepNews
 * charts tool. The chart of a question: ChartParameters read from it, counted on the index,
 * drawn as a plotly figure. `filters` (search filter params) narrow every series; `cutoff`
 * (epoch ms) stands in for now when earlier: nothing after it is drawn. 422 for a question with
 * nothing to chart is not raised: an empty subject charts all articles of the window.
 */
export class Charts {
  constructor(
    private readonly news: NewsService | undefined,
    private readonly count: CountSeries,
  ) {}

  async chart(question: string, opts: { filters?: FilterParamsOut | null; principal?: Principal | null; cutoff?: number | null } = {}): Promise<ChartResponse> {
    return chartOn(this.news, this.count, question, opts.filters ?? null, opts.principal ?? null, opts.cutoff ?? null);
  }
}

function chartOn(
  news: NewsService | undefined,
  count: CountSeries,
  question: string,
  filters: FilterParamsOut | null,
  principal: Principal | null,
  cutoff: number | null,
): ChartResponse {
  if (!news) throw new HttpError(503, 503000, 'charts need the news index, which this service was started without');
  const now = cutoff !== null && Number.isFinite(cutoff) ? Math.min(news.clock(), cutoff) : news.clock();
  // control characters are what this takes out
  // eslint-disable-next-line no-control-regex
  const q = question.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const chartType = chartTypeOf(q);
  const whole = autofilter(q, now);
  const caller = filters ? validFilters(filters) : {};
  const scope: Record<string, unknown> = { ...caller };
  for (const k of SCOPE_KEYS) if (has((whole.filter_params as Record<string, unknown>)[k])) scope[k] = (whole.filter_params as Record<string, unknown>)[k];
  if (caller.time_filter) scope.time_filter = caller.time_filter;

  // window: the question's, else the caller's timestamps, else the last 30 days
  let from = whole.window?.from ?? (typeof caller.start_timestamp === 'number' ? caller.start_timestamp * 1000 : null);
  let to = whole.window?.to ?? (typeof caller.end_timestamp === 'number' ? caller.end_timestamp * 1000 : null) ?? now;
  if (from === null) from = to - CHART_DEFAULT_DAYS * DAY;
  // instants a date-time can name, and at most CHART_MAX_BUCKETS months
  to = Math.min(Math.max(to, DATETIME_RANGE.min + DAY), LATEST);
  from = Math.min(Math.max(from, DATETIME_RANGE.min, to - CHART_MAX_BUCKETS * SAMPLING_MS['1m']), to - HOUR);
  if (to <= from) to = from + DAY;
  const sampling = pickSampling(from, to, samplingWord(q));

  const subjects = subjectsOf(q, now);
  const series: SeriesConfig[] = [];
  for (const part of subjects.length ? subjects : ['']) {
    const own = part ? autofilter(part, now) : null;
    const ownF = (own?.filter_params ?? {}) as Record<string, unknown>;
    const f: Record<string, unknown> = { ...scope };
    let named = false;
    for (const k of SUBJECT_KEYS) {
      if (has(ownF[k])) {
        f[k] = ownF[k];
        named = true;
      }
    }
    // a subject no filter names: the articles that contain its words
    if (!named && own?.topic) {
      f.string_guarantee = [own.topic];
      f.string_guarantee_op = 'OR';
    }
    series.push(seriesOf(own?.topic || part || 'All articles', f, { from, to }, sampling));
  }

  const counts = series.map((s) => {
    try {
      return count(seriesQuery(s), news, principal);
    } catch (e) {
      // the window is clamped above, so this is a guard: the question's fault, named as such
      if (e instanceof HttpError && e.status === 422) {
        throw validationError([
          { loc: ['body', 'query'], msg: `query: the chart of "${s.name}" cannot be counted (${JSON.stringify(e.detail)})`, type: 'value_error.chart' },
        ]);
      }
      throw e;
    }
  });
  const when = whole.window?.text.replace(/^(?:in|from|over|during|for|within)\s+(?:the\s+)?/i, '') ?? `last ${CHART_DEFAULT_DAYS} days`;
  const what = series.map((s) => s.name).join(' vs ');
  const title = `${chartType === 'bar_pct' ? 'Share of articles' : 'Articles'} per ${SAMPLING_WORD[sampling]}: ${what} (${when})`;
  const parameters: ChartParameters = { chart_type: chartType, title, series };
  const totals = Object.fromEntries(series.map((s, i) => [s.name, counts[i]!.reduce((n, c) => n + c.count, 0)]));
  const reasoning = [
    `chart type ${chartType}${chartType === 'line' ? ' (a trend over time)' : chartType === 'bar' ? ' (the question asks for bars)' : ' (the question asks for shares: stacked bars normalised to 100%)'}`,
    `${series.length} series (${what}), each the indexed articles per ${SAMPLING_WORD[sampling]} on ${series[0]!.time_filter}`,
    `from ${new Date(from).toISOString()} to ${new Date(to).toISOString()}`,
  ].join('; ');
  return {
    success: true,
    chart_json: figure(chartType, title, series, counts),
    query: question,
    reasoning,
    parameters,
    context: { totals, sampling, start_datetime: new Date(from).toISOString(), end_datetime: new Date(to).toISOString(), buckets: counts[0]?.length ?? 0 },
    iterations_used: 1,
    last_reasoning: null,
    last_parameters: null,
    png_data: null,
    png_url: null,
    chart_url: null,
  };
}
