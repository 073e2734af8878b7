/**
 * The gather step of DeepNews: rounds of tool calls, planned by the model (when the provider
 * calls tools) or by the deterministic planner (./planner.ts), at most max_parallel_tool_calls at
 * once, each result merged into the pool and said in the stream. The research ends at its depth,
 * when the model stops calling tools, or when a round brings nothing new.
 */
import type { ChartResponse, DeepNewsSource, WebSearchResult } from '../../spec/index.js';
import type { AgentMessage, ToolCaller, ToolSpec } from '../llm/index.js';
import { countTokens } from '../llm/tokens.js';
import type { NewsArticle } from '../article/model.js';
import { TOOLS, toolByName, type Found, type Tool } from './tools.js';
import { askedKeys, firstRound, nextRound, questionParts, type PlannedCall } from './planner.js';
import type { GraphFound, WebKind } from './sources.js';
import type { AgentEvent, DeepNewsJob } from './job.js';
import { PLANNER, type SourcePlan } from './plan.js';

/** Full texts read per round (full_text_discovery, deterministic planner). */
const FULL_TEXT_PER_ROUND = 3;
const RRF_K = 60;

/** The kind of web result each tool brings. */
const WEB_KIND: Partial<Record<DeepNewsSource, WebKind>> = { google: 'web', wiki: 'wiki', reddit: 'forum' };

/** What the research found so far: articles pooled by reciprocal rank over the calls, web results (in the order found), charts, graphs. */
export class Pool {
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

/** What the research gathered: the pool and how many rounds ran. */
export interface Gathering {
  pool: Pool;
  roundsRun: number;
}

class Research {
  readonly pool = new Pool();
  /** what was asked already (the planner does not ask it again) */
  private readonly asked = new Set<string>();
  private callSeq = 0;
  roundsRun = 0;

  constructor(
    private readonly job: DeepNewsJob,
    private readonly plan: SourcePlan,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Run a round's calls (at most max_parallel_tool_calls at once), yield them in plan order; returns new items and each call's result. */
  async *execute(calls: PlannedCall[], main: (c: PlannedCall) => boolean): AsyncGenerator<AgentEvent, { fresh: number; results: Found[] }> {
    const { job, signal, pool } = this;
    const tool = (c: PlannedCall) => toolByName(c.tool)!;
    const jobs = calls.map((c) => async (): Promise<Found | Error> => {
      // the client left: no further tool call starts (a result, not a rejection: the round stops at the check below, and the calls not awaited then reject nothing)
      if (signal?.aborted) return new Error('the client left');
      try {
        return await tool(c).run(job.ctx, c.input);
      } catch (e) {
        job.log?.error({ err: e, tool: c.tool }, 'deepnews tool failed');
        return e instanceof Error ? e : new Error(String(e));
      }
    });
    const pending = limited(jobs, job.body.max_parallel_tool_calls);
    let fresh = 0;
    const results: Found[] = [];
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]!;
      const r = await pending[i]!;
      signal?.throwIfAborted();
      job.usage.tool_usage[c.tool] = (job.usage.tool_usage[c.tool] ?? 0) + 1;
      for (const k of askedKeys(c)) this.asked.add(k);
      const id = `toolu_${String(++this.callSeq).padStart(3, '0')}`;
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

  /** The full texts to read next: the best articles whose text was not read yet. */
  private readFullText(): PlannedCall[] {
    if (!this.plan.enabled.has('full_text_discovery') || !this.plan.canUse('read_full_text')) return [];
    const ids = this.pool
      .ranked()
      .filter((a) => !this.asked.has(`t:${a.articleId}`))
      .slice(0, FULL_TEXT_PER_ROUND)
      .map((a) => a.articleId);
    return ids.length ? [{ tool: 'read_full_text', input: { article_ids: ids }, weight: 0, keys: ids.map((id) => `t:${id}`) }] : [];
  }

  /** The model plans: each turn's tool calls are one round. */
  async *modelRounds(caller: ToolCaller): AsyncGenerator<AgentEvent, void> {
    const { job, plan, signal } = this;
    const { body, usage } = job;
    const offered: Tool[] = TOOLS.filter((t) => plan.enabled.has(t.source) && plan.canUse(t.name));
    const specs: ToolSpec[] = offered.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    const msgs: AgentMessage[] = [
      { role: 'system', content: PLANNER({ depth: plan.rounds, max: body.max_depth, parallel: body.max_parallel_tool_calls, cutoff: job.cutoff }) },
      ...job.conversation.filter((m) => m.role !== 'system').map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
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
      this.roundsRun = round;
      const known = turn.toolCalls.filter((c) => offered.some((t) => t.name === c.name));
      const planned: PlannedCall[] = known.map((c) => ({ tool: c.name, input: c.input, weight: 1 }));
      const { results } = yield* this.execute(planned, () => round === 1);
      msgs.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
      for (const c of turn.toolCalls) {
        const i = known.indexOf(c);
        msgs.push({ role: 'tool', toolCallId: c.id, name: c.name, content: i >= 0 ? forModel(results[i]!) : `unknown tool ${c.name}` });
      }
    }
  }

  /** The deterministic planner: the question's parts first, then what the pool suggests, until a round brings nothing new. */
  async *plannedRounds(): AsyncGenerator<AgentEvent, void> {
    const { job, plan, pool } = this;
    const parts = questionParts(job.question);
    for (let round = 1; round <= plan.rounds; round++) {
      const calls =
        round === 1
          ? firstRound(parts, plan.enabled, plan.canUse)
          : nextRound(parts, plan.enabled, plan.canUse, {
              ranked: pool.ranked(),
              storyOf: (id) => job.services.stories?.members.get(id)?.storyId ?? null,
              asked: this.asked,
            });
      yield {
        type: 'thinking',
        text: `Round ${round}: ${calls.length ? calls.map((c) => `${c.tool}(${JSON.stringify(c.input)})`).join(', ') : 'nothing left to ask'}.\n`,
      };
      if (!calls.length) break;
      this.roundsRun = round;
      const main = (c: PlannedCall) => round === 1 && c.tool === 'search_news' && c.input.query === parts.full && c.input.start_timestamp === undefined;
      let { fresh } = yield* this.execute(calls, main);
      const full = this.readFullText();
      if (full.length) fresh += (yield* this.execute(full, () => false)).fresh;
      yield { type: 'thinking', text: `Round ${round} brought ${fresh} new item(s); ${pool.articles.size} articles so far.\n` };
      if (fresh === 0) {
        yield { type: 'thinking', text: 'Nothing new: the research ends here.\n' };
        break;
      }
    }
  }
}

/** Run the research rounds of `plan`; `signal`: the client left (no further call starts). */
export async function* gather(job: DeepNewsJob, plan: SourcePlan, signal?: AbortSignal): AsyncGenerator<AgentEvent, Gathering> {
  const r = new Research(job, plan, signal);
  if (job.caller) yield* r.modelRounds(job.caller);
  else yield* r.plannedRounds();
  return { pool: r.pool, roundsRun: r.roundsRun };
}
