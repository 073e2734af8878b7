/**
 * One DeepNews run: rounds of tool calls over the request's sources (planned by the model when
 * the model layer gives a tool-calling provider, else by the deterministic planner), then a
 * cited report written from everything found (articles, web pages, encyclopedia passages, forum
 * threads, graph facts, chart series), streamed as the writer writes it. The run is one stream
 * of events (thinking, tool calls with their results, the report's text, the sources); the
 * non-streamed response is that stream collected.
 */
import crypto from 'node:crypto';
import { DEFAULT_DEEPNEWS_MODEL, type ChartResponse, type DeepNewsSource, type SearchResponseDictItem, type WebSearchResult } from '../../spec/index.js';
import type { Services } from '../context.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import {
  isPassage,
  toolCaller,
  type AgentMessage,
  type ContextDoc,
  type LlmMessage,
  type LlmProvider,
  type PassageDoc,
  type SourceDoc,
  type ToolSpec,
} from '../llm/index.js';
import { countTokens, promptTokens } from '../llm/tokens.js';
import { byokKeys, recentTurns, requestTurns, type ChatLog } from '../chat/completion.js';
import { hitRecorder, searchParamsOf } from '../chat/retrieve.js';
import { followUpQuery } from '../chat/follow-up.js';
import { AnswerWriter, answers, type AnswerEvent } from '../chat/answer.js';
import type { InlineCitations } from '../chat/citations.js';
import type { NewsArticle } from '../article/model.js';
import { toDict } from '../search/format.js';
import { terms } from '../text/tokenize.js';
import { ARCHIVE_SOURCES, NO_DATA_SOURCES, TOOLS, toolByName, type Found, type Tool, type ToolContext } from './tools.js';
import { askedKeys, firstRound, nextRound, questionParts, type PlannedCall } from './planner.js';
import { reportRequest, reportTail, reportWriter, writerMessages } from './report.js';
import { chartSources, graphSource, webSource, type Gathered, type GraphFound, type WebKind } from './sources.js';

export interface DeepNewsBody {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  model?: string | null;
  filter_params?: Record<string, unknown> | null;
  search_depth: number;
  max_depth: number;
  sources: DeepNewsSource | DeepNewsSource[];
  inline_citations: InlineCitations;
  start_citation_number: number;
  return_sources: boolean;
  only_cited_sources: boolean;
  append_references: boolean;
  journalist_mode: boolean;
  conversational_awareness: boolean;
  include_entities: boolean;
  include_graphs: boolean;
  include_coordinates: boolean;
  asknews_watermark: boolean;
  stream: boolean;
  stop?: string | string[] | null;
  temperature: number;
  top_p: number;
  n: number;
  max_tokens: number;
  presence_penalty: number;
  frequency_penalty: number;
  user?: string | null;
  thread_id?: string | null;
  max_parallel_tool_calls: number;
  engine: 'v1' | 'v1.5' | 'v2.0';
  enable_source_pruning: boolean;
  cutoff_datetime?: string | null;
}

export type SourceEvent =
  | { kind: 'news'; data: SearchResponseDictItem }
  | { kind: 'web'; data: WebSearchResult }
  | { kind: 'chart'; data: ChartResponse }
  | { kind: 'graph'; data: string };

export type AgentEvent =
  | { type: 'thinking'; text: string }
  /** a finished tool call: its input and a short account of its result */
  | { type: 'tool'; id: string; name: string; input: Record<string, unknown>; result: string }
  /** a piece of report `index` as the writer writes it, or its end */
  | AnswerEvent
  | { type: 'source'; source: SourceEvent };

export interface DeepNewsSources {
  news: SearchResponseDictItem[];
  web: WebSearchResult[];
  charts: ChartResponse[];
}

export interface DeepNewsRun {
  id: string;
  created: number;
  /** the model that really writes the report */
  model: string;
  threadId: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; tool_usage: Record<string, number> };
  /** complete once events() is done */
  sources: DeepNewsSources;
  /** `signal`: the caller went away (the model's requests are aborted) */
  events(signal?: AbortSignal): AsyncGenerator<AgentEvent>;
}

/** Articles the writer reads (the best of the pool). */
export const REPORT_DOCS = 12;
/** Other sources the writer reads, at most: per kind of web result (web, wiki, forum), graphs, chart series. */
export const REPORT_PASSAGES = { web: 5, wiki: 5, forum: 5, graph: 2, chart: 4 } as const;
/** Sources returned when only_cited_sources is false (the best of the pool). */
export const MAX_SOURCES = 50;
/** Full texts read per round (full_text_discovery, deterministic planner). */
const FULL_TEXT_PER_ROUND = 3;
const RRF_K = 60;

/** The kind of web result each tool brings. */
const WEB_KIND: Partial<Record<DeepNewsSource, WebKind>> = { google: 'web', wiki: 'wiki', reddit: 'forum' };

/** What the research found so far: articles pooled by reciprocal rank over the calls, web results (in the order found), charts, graphs. */
class Pool {
  readonly articles = new Map<string, { a: NewsArticle; score: number }>();
  readonly fullText = new Map<string, string>();
  readonly web = new Map<string, { w: WebSearchResult; kind: WebKind }>();
  readonly charts: ChartResponse[] = [];
  readonly graphs = new Map<string, GraphFound>();
  /** the articles the main question's search ranked (kept by pruning) */
  readonly main = new Set<string>();

  /** Merge one call's results; returns how many are new. */
  add(f: Found, weight: number, main: boolean, kind: WebKind = 'web'): number {
    let fresh = 0;
    f.news.forEach((a, i) => {
      const cur = this.articles.get(a.articleId);
      if (!cur) fresh++;
      this.articles.set(a.articleId, { a: cur?.a ?? a, score: (cur?.score ?? 0) + weight / (RRF_K + i + 1) });
      if (main) this.main.add(a.articleId);
    });
    for (const [id, t] of f.fullText) this.fullText.set(id, t);
    for (const w of f.web) {
      if (this.web.has(w.url)) continue;
      this.web.set(w.url, { w, kind });
      fresh++;
    }
    this.charts.push(...f.charts);
    fresh += f.charts.length;
    for (const g of f.graphs) {
      if (this.graphs.has(g.uri)) continue;
      this.graphs.set(g.uri, g);
      fresh++;
    }
    return fresh;
  }

  ranked(): NewsArticle[] {
    return [...this.articles.values()].sort((x, y) => y.score - x.score || (x.a.articleId < y.a.articleId ? -1 : 1)).map((e) => e.a);
  }
}

/** A short account of a tool's result (the stream and the model planner read it). */
function account(f: Found, fresh: number): string {
  const parts: string[] = [];
  if (f.news.length)
    parts.push(
      `${f.news.length} articles (${fresh} new): ${f.news
        .slice(0, 3)
        .map((a) => a.title)
        .join(' | ')}`,
    );
  if (f.fullText.size) parts.push(`full text of ${f.fullText.size} articles`);
  if (f.web.length)
    parts.push(
      `${f.web.length} results: ${f.web
        .slice(0, 3)
        .map((w) => w.title)
        .join(' | ')}`,
    );
  if (f.charts.length) parts.push(`${f.charts.length} chart`);
  if (f.graphs.length) parts.push(`graph ${f.graphs[0]!.uri}`);
  return parts.join('; ') || 'nothing found';
}

/** What a model planner reads of a tool's result: one line per article with its id. */
function forModel(f: Found): string {
  const lines = f.news
    .slice(0, 10)
    .map((a) => `[${a.articleId}] ${a.title} (${a.domain}, ${a.pubDate.toISOString().slice(0, 10)}): ${a.summary.slice(0, 240)}`);
  for (const w of f.web.slice(0, 5)) lines.push(`[web] ${w.title} (${w.url}): ${w.key_points.join(' ').slice(0, 240)}`);
  for (const g of f.graphs) lines.push(`[graph] ${g.facts.slice(0, 4).join(' ').slice(0, 480)}`);
  for (const c of f.charts) lines.push(`[chart] ${c.parameters?.title ?? c.query ?? 'chart'}: ${JSON.stringify(c.context?.totals ?? {})}`);
  if (f.fullText.size) lines.push(`(read the full text of ${f.fullText.size} articles)`);
  return lines.join('\n') || 'nothing found';
}

/** Run `jobs` with at most `limit` at once; results in job order. */
function limited<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T>[] {
  let active = 0;
  const waiting: (() => void)[] = [];
  return jobs.map(async (job) => {
    if (active >= limit) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await job();
    } finally {
      active--;
      waiting.shift()?.();
    }
  });
}

/** The other sources of the pool as numbered sources (from `first`): web results by kind, graphs, chart series; at most `caps` of each kind. */
function gatheredSources(pool: Pool, first: number, origin: string, caps: Record<PassageDoc['kind'], number> | null): Gathered[] {
  const out: Gathered[] = [];
  const count = new Map<PassageDoc['kind'], number>();
  const room = (kind: PassageDoc['kind']) => !caps || (count.get(kind) ?? 0) < caps[kind];
  const push = (g: Gathered) => {
    count.set(g.doc.kind, (count.get(g.doc.kind) ?? 0) + 1);
    out.push(g);
  };
  for (const kind of ['wiki', 'web', 'forum'] as const)
    for (const { w, kind: k } of pool.web.values()) if (k === kind && room(kind)) push(webSource(first + out.length, w, kind));
  for (const g of pool.graphs.values()) if (room('graph')) push(graphSource(first + out.length, g, origin));
  for (const c of pool.charts) for (const g of chartSources(first + out.length, c, origin)) if (room('chart')) push(g);
  return out;
}

const PLANNER = (o: { depth: number; max: number; parallel: number; cutoff: string | null }) =>
  "You are a news research agent. Research the user's question with the tools before anyone writes the report: " +
  `search in about ${o.depth} rounds (at most ${o.max}), up to ${o.parallel} tool calls per round, widening from what you find ` +
  '(people, organisations, places, stories). Tool results list articles as [article_id] title. ' +
  'When you have enough, answer without a tool call, in one sentence, what you found.' +
  (o.cutoff ? ` Your knowledge ends at ${o.cutoff}: nothing published after it exists.` : '');

export async function startDeepNews(
  services: Services,
  principal: Principal,
  body: DeepNewsBody,
  o: {
    log?: ChatLog;
    /** the service's public base URL (config.ts publicBase), for the absolute URLs of graph pages and chart counts */
    origin?: string;
    /** the client left (HandlerCtx.signal): the follow-up rewrite stops; the research stops with the signal `events` is given */
    signal?: AbortSignal;
  } = {},
): Promise<DeepNewsRun> {
  const log = o.log;
  const origin = o.origin ?? '';
  const news = services.news!;
  // thread: a known thread continues; an unknown one is 404; none (or "") starts a thread
  const known = body.thread_id ? body.thread_id : null;
  let history: LlmMessage[] = [];
  if (known) {
    const stored = await services.threads.messages(known, principal.userId);
    if (!stored) throw notFound(`no thread ${known} for this user`);
    history = recentTurns(stored);
  }
  const threadId = known ?? crypto.randomUUID();
  const incoming: LlmMessage[] = requestTurns(body.messages.map((m) => ({ role: m.role, content: m.content })));
  const conversation = [...history, ...incoming];
  // filter_params are validated before anything runs (a bad one is a 422 under filter_params)
  searchParamsOf(body.filter_params, 'x', !!news.embedder);
  const model = body.model ?? DEFAULT_DEEPNEWS_MODEL;
  const provider: LlmProvider = services.llm.provider(model, await byokKeys(services, principal, model, log));
  const caller = toolCaller(provider);
  // a follow-up in a thread is made self-standing first (chat/follow-up.ts), as chat does
  const follow = await followUpQuery(conversation, { conversational: body.conversational_awareness, provider, user: body.user, signal: o.signal, log });
  o.signal?.throwIfAborted();
  const question = follow.query;
  // the parsed body holds the cutoff as RFC 3339 with an offset (spec normalises "no offset" to UTC)
  const cutoffMs = body.cutoff_datetime ? Date.parse(body.cutoff_datetime) : null;
  const cutoff = cutoffMs !== null && !Number.isNaN(cutoffMs) ? new Date(cutoffMs).toISOString() : null;
  const publisher = principal.org?.publisher ? principal.org : null;
  const ctx: ToolContext = {
    services,
    news,
    onlyDomains: publisher ? publisher.domains : null,
    viewer: ownerOf(principal),
    cutoffMs: cutoff ? Date.parse(cutoff) : null,
    filterParams: body.filter_params ?? null,
  };
  const stops = body.stop == null ? [] : (Array.isArray(body.stop) ? body.stop : [body.stop]).filter(Boolean);

  const usage = {
    prompt_tokens: follow.usage.prompt_tokens,
    completion_tokens: follow.usage.completion_tokens,
    total_tokens: follow.usage.prompt_tokens + follow.usage.completion_tokens,
    tool_usage: {} as Record<string, number>,
  };
  const sources: DeepNewsSources = { news: [], web: [], charts: [] };
  const run: DeepNewsRun = {
    id: `chatcmpl-${crypto.randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: provider.model,
    threadId,
    usage,
    sources,
    async *events(signal?: AbortSignal) {
      const pool = new Pool();
      const asked = new Set<string>();
      const requested = [...new Set(Array.isArray(body.sources) ? body.sources : [body.sources])];
      const enabled = new Set<DeepNewsSource>();
      const skipped: string[] = [];
      for (const s of requested) {
        if (NO_DATA_SOURCES.has(s)) {
          skipped.push(s);
          yield { type: 'thinking', text: `Source ${s}: no data on this service, skipped.\n` };
        } else if (publisher && !ARCHIVE_SOURCES.has(s)) {
          skipped.push(s);
          yield { type: 'thinking', text: `Source ${s}: a publisher key researches the news archive only, skipped.\n` };
        } else enabled.add(s);
      }
      const usable = new Map<string, boolean>();
      for (const t of TOOLS) {
        if (!enabled.has(t.source)) continue;
        const ok = t.available(services);
        usable.set(t.name, ok === true);
        if (ok !== true) {
          skipped.push(t.source);
          yield { type: 'thinking', text: `Tool ${t.name} (source ${t.source}) is unavailable: ${ok}.\n` };
        }
      }
      const canUse = (name: string) => usable.get(name) === true;
      const rounds = Math.min(body.search_depth, body.max_depth);
      yield {
        type: 'thinking',
        text:
          `Researching: ${question}\nSources: ${[...enabled].join(', ') || 'none'}. ${caller ? `The model ${provider.model} plans` : 'Deterministic plan'}: ${caller ? `up to ${body.max_depth}` : rounds} rounds, ${body.max_parallel_tool_calls} tool call(s) at a time.` +
          (cutoff ? ` Knowledge cutoff ${cutoff}: nothing published after it is used.` : '') +
          (publisher ? ` Restricted to ${publisher.domains.join(', ')}.` : '') +
          '\n',
      };

      let callSeq = 0;
      const tool = (c: PlannedCall) => toolByName(c.tool)!;
      /** Run a round's calls (at most max_parallel_tool_calls at once), yield them in plan order; returns new items and each call's result. */
      async function* execute(calls: PlannedCall[], main: (c: PlannedCall) => boolean): AsyncGenerator<AgentEvent, { fresh: number; results: Found[] }> {
        const jobs = calls.map((c) => async (): Promise<Found | Error> => {
          // the client left: no further tool call starts (a result, not a rejection: the round stops at the check below, and the calls not awaited then reject nothing)
          if (signal?.aborted) return new Error('the client left');
          try {
            return await tool(c).run(ctx, c.input);
          } catch (e) {
            log?.error({ err: e, tool: c.tool }, 'deepnews tool failed');
            return e instanceof Error ? e : new Error(String(e));
          }
        });
        const pending = limited(jobs, body.max_parallel_tool_calls);
        let fresh = 0;
        const results: Found[] = [];
        for (let i = 0; i < calls.length; i++) {
          const c = calls[i]!;
          const r = await pending[i]!;
          signal?.throwIfAborted();
          usage.tool_usage[c.tool] = (usage.tool_usage[c.tool] ?? 0) + 1;
          for (const k of askedKeys(c)) asked.add(k);
          const id = `toolu_${String(++callSeq).padStart(3, '0')}`;
          if (r instanceof Error) {
            results.push({ news: [], web: [], charts: [], graphs: [], fullText: new Map() });
            yield { type: 'tool', id, name: c.tool, input: c.input, result: `failed: ${r.message}` };
            continue;
          }
          const n = pool.add(r, c.weight, main(c), WEB_KIND[tool(c).source]);
          fresh += n;
          results.push(r);
          yield { type: 'tool', id, name: c.tool, input: c.input, result: account(r, n) };
        }
        return { fresh, results };
      }

      const readFullText = (): PlannedCall[] => {
        if (!enabled.has('full_text_discovery') || !canUse('read_full_text')) return [];
        const ids = pool
          .ranked()
          .filter((a) => !asked.has(`t:${a.articleId}`))
          .slice(0, FULL_TEXT_PER_ROUND)
          .map((a) => a.articleId);
        return ids.length ? [{ tool: 'read_full_text', input: { article_ids: ids }, weight: 0, keys: ids.map((id) => `t:${id}`) }] : [];
      };

      let roundsRun = 0;
      if (caller) {
        // the model plans: each turn's tool calls are one round
        const offered: Tool[] = TOOLS.filter((t) => enabled.has(t.source) && canUse(t.name));
        const specs: ToolSpec[] = offered.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
        const msgs: AgentMessage[] = [
          { role: 'system', content: PLANNER({ depth: rounds, max: body.max_depth, parallel: body.max_parallel_tool_calls, cutoff }) },
          ...conversation.filter((m) => m.role !== 'system').map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
        ];
        for (let round = 1; round <= body.max_depth && specs.length; round++) {
          usage.prompt_tokens += msgs.reduce((s, m) => s + countTokens(m.content) + 4, 3);
          const turn = await caller.toolTurn({
            messages: msgs,
            tools: specs,
            temperature: body.temperature,
            top_p: body.top_p,
            presence_penalty: body.presence_penalty,
            frequency_penalty: body.frequency_penalty,
            user: body.user ?? null,
            parallel: body.max_parallel_tool_calls,
            signal,
          });
          usage.completion_tokens += countTokens(turn.text) + countTokens(JSON.stringify(turn.toolCalls));
          if (turn.text.trim()) yield { type: 'thinking', text: `${turn.text.trim()}\n` };
          if (!turn.toolCalls.length) break;
          roundsRun = round;
          const known = turn.toolCalls.filter((c) => offered.some((t) => t.name === c.name));
          const planned: PlannedCall[] = known.map((c) => ({ tool: c.name, input: c.input, weight: 1 }));
          const gen = execute(planned, () => round === 1);
          let step = await gen.next();
          while (!step.done) {
            yield step.value;
            step = await gen.next();
          }
          const results = step.value.results;
          msgs.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
          for (const c of turn.toolCalls) {
            const i = known.indexOf(c);
            msgs.push({ role: 'tool', toolCallId: c.id, name: c.name, content: i >= 0 ? forModel(results[i]!) : `unknown tool ${c.name}` });
          }
        }
      } else {
        const parts = questionParts(question);
        for (let round = 1; round <= rounds; round++) {
          const calls =
            round === 1
              ? firstRound(parts, enabled, canUse)
              : nextRound(parts, enabled, canUse, { ranked: pool.ranked(), storyOf: (id) => services.stories?.members.get(id)?.storyId ?? null, asked });
          yield {
            type: 'thinking',
            text: `Round ${round}: ${calls.length ? calls.map((c) => `${c.tool}(${JSON.stringify(c.input)})`).join(', ') : 'nothing left to ask'}.\n`,
          };
          if (!calls.length) break;
          roundsRun = round;
          const gen = execute(calls, (c) => round === 1 && c.tool === 'search_news' && c.input.query === parts.full && c.input.start_timestamp === undefined);
          let step = await gen.next();
          while (!step.done) {
            yield step.value;
            step = await gen.next();
          }
          let fresh = step.value.fresh;
          const full = readFullText();
          if (full.length) {
            const g2 = execute(full, () => false);
            let s2 = await g2.next();
            while (!s2.done) {
              yield s2.value;
              s2 = await g2.next();
            }
            fresh += s2.value.fresh;
          }
          yield { type: 'thinking', text: `Round ${round} brought ${fresh} new item(s); ${pool.articles.size} articles so far.\n` };
          if (fresh === 0) {
            yield { type: 'thinking', text: 'Nothing new: the research ends here.\n' };
            break;
          }
        }
      }

      // the pool, pruned when asked: an article kept shares a term of the question or came from its main search
      let ranked = pool.ranked();
      if (body.enable_source_pruning) {
        const q = new Set(terms(question));
        const before = ranked.length;
        ranked = ranked.filter((a) => pool.main.has(a.articleId) || terms([a.title, a.summary, ...a.keyPoints].join(' ')).some((t) => q.has(t)));
        yield { type: 'thinking', text: `Source pruning removed ${before - ranked.length} of ${before} articles.\n` };
      }
      const articles: ContextDoc[] = ranked
        .slice(0, REPORT_DOCS)
        .map((article, i) => ({ n: i + 1, article, fullText: pool.fullText.get(article.articleId) ?? null }));
      // what the other tools brought, numbered on after the articles
      let passages = gatheredSources(pool, articles.length + 1, origin, REPORT_PASSAGES);
      if (body.enable_source_pruning) {
        const q = new Set(terms(question));
        const before = passages.length;
        passages = passages.filter((g) => terms(`${g.doc.title} ${g.doc.text}`).some((t) => q.has(t)));
        if (before) yield { type: 'thinking', text: `Source pruning removed ${before - passages.length} of ${before} other sources.\n` };
      }
      passages = passages.map((g, i) => ({ ...g, doc: { ...g.doc, n: articles.length + 1 + i } }));
      const docs: SourceDoc[] = [...articles, ...passages.map((g) => g.doc)];
      const calls = Object.values(usage.tool_usage).reduce((s, n) => s + n, 0);
      const toolList = Object.entries(usage.tool_usage)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      const writer: LlmProvider = caller || provider.name !== 'extractive' ? provider : reportWriter(news.embedder);
      const noteParts = [`Research: ${roundsRun} round(s), ${calls} tool call(s)${toolList ? ` (${toolList})` : ''}; ${pool.articles.size} articles found.`];
      if (writer.name === 'extractive') noteParts.push('Written by the extractive writer (no model): every sentence is quoted from the source it cites.');
      if (cutoff) noteParts.push(`Knowledge cutoff: ${cutoff}; no source published after it was used.`);
      const notSearched = [...new Set(skipped)];
      if (notSearched.length) noteParts.push(`Not searched: ${notSearched.join(', ')}.`);
      const kinds = passages.length ? ` and ${passages.length} other source(s) (${[...new Set(passages.map((g) => g.doc.kind))].join(', ')})` : '';
      yield { type: 'thinking', text: `Writing the report from ${articles.length} articles${kinds}.\n` };

      // the report streams as the writer writes it; n reports from one call where the provider can (see choices)
      const messages = writerMessages({ conversation, docs, journalist: body.journalist_mode, cutoff });
      const req = reportRequest(
        { model: writer.model, messages, docs, question, journalist: body.journalist_mode, stops, maxTokens: body.max_tokens },
        {
          temperature: body.temperature,
          top_p: body.top_p,
          presence_penalty: body.presence_penalty,
          frequency_penalty: body.frequency_penalty,
          user: body.user ?? null,
          signal,
        },
      );
      const tail = (cited: SourceDoc[]) =>
        reportTail(
          { notes: noteParts.join(' '), appendReferences: body.append_references, watermark: body.asknews_watermark, start: body.start_citation_number },
          cited,
        );
      const writers = Array.from(
        { length: body.n },
        () => new AnswerWriter({ docs, style: body.inline_citations, start: body.start_citation_number, stops, maxTokens: body.max_tokens, trim: true, tail }),
      );
      usage.prompt_tokens += promptTokens(messages) * (body.n > 1 && writer.streamChoices ? 1 : body.n);
      const base = usage.completion_tokens;
      for await (const e of answers(writer, req, writers)) {
        usage.completion_tokens = base + writers.reduce((s, w) => s + w.tokens, 0);
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
        yield e;
      }
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;

      // the cited sources of every report, in citation order
      const cited = new Map<number, SourceDoc>();
      for (const w of writers) for (const d of w.cited) cited.set(d.n, d);
      const citedArticles = [...cited.values()].filter((d): d is ContextDoc => !isPassage(d));
      const citedN = new Set(cited.keys());

      // sources: the cited ones (citation order) or the pool's best
      const hit = hitRecorder(news, principal, question);
      hit(
        'grounded',
        articles.map((d) => d.article),
      );
      hit(
        'citation',
        citedArticles.map((d) => d.article),
      );
      if (body.return_sources) {
        const list = body.only_cited_sources ? citedArticles.map((d) => d.article) : ranked.slice(0, MAX_SOURCES);
        sources.news = list.map((a) => {
          const d = toDict(
            { ...a, fullText: pool.fullText.get(a.articleId) ?? null },
            { graphs: body.include_graphs, geo: body.include_coordinates, fullText: pool.fullText.has(a.articleId) },
          );
          if (!body.include_entities) d.entities = Object.fromEntries(Object.keys(d.entities).map((k) => [k, []])) as unknown as typeof d.entities;
          return d;
        });
        // the other sources: the cited ones in citation order, or all that were gathered
        const byN = new Map(passages.map((g) => [g.doc.n, g]));
        const others = body.only_cited_sources ? [...citedN].map((n) => byN.get(n)).filter((g): g is Gathered => !!g) : gatheredSources(pool, 1, origin, null);
        // a graph is listed under web (the final sources have no place of their own for it); the stream names it as a graph
        const graphs = new Map<string, WebSearchResult>();
        for (const g of others) {
          const s = g.source;
          if (s.kind === 'web') sources.web.push(s.data);
          else if (s.kind === 'graph') {
            if (graphs.has(s.data)) continue;
            sources.web.push(s.web);
            graphs.set(s.data, s.web);
          } else if (!sources.charts.includes(s.data)) sources.charts.push(s.data);
        }
        // every chart found, a chart without a series to read included
        if (!body.only_cited_sources) sources.charts = [...pool.charts];
        const asGraph = new Set(graphs.values());
        for (const data of sources.news) yield { type: 'source', source: { kind: 'news', data } };
        for (const data of sources.web) if (!asGraph.has(data)) yield { type: 'source', source: { kind: 'web', data } };
        for (const data of sources.charts) yield { type: 'source', source: { kind: 'chart', data } };
        for (const data of graphs.keys()) yield { type: 'source', source: { kind: 'graph', data } };
      }
      if (!known) await services.threads.create(principal.userId, principal.keyId, threadId);
      await services.threads.append(threadId, [...incoming.filter((m) => m.role !== 'system'), { role: 'assistant', content: writers[0]?.text ?? '' }]);
    },
  };
  return run;
}
