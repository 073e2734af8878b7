/**
 * The write step of DeepNews: the sources the writer reads (the pool's best articles, then the
 * other sources numbered on, pruned when asked), the report streamed as the writer writes it
 * (n reports), then the hit events, the sources listed (cited or all) and the thread stored.
 */
import type { PassageDoc, ContextDoc, LlmProvider, SourceDoc } from '../llm/index.js';
import { isPassage } from '../llm/index.js';
import { promptTokens } from '../llm/tokens.js';
import { hitRecorder } from '../chat/retrieve.js';
import { AnswerWriter, answers } from '../chat/answer.js';
import type { WebSearchResult } from '../../spec/index.js';
import type { NewsArticle } from '../article/model.js';
import { toDict } from '../search/format.js';
import { terms } from '../text/tokenize.js';
import { reportRequest, reportTail, reportWriter, writerMessages } from './report.js';
import { chartSources, graphSource, webSource, type Gathered } from './sources.js';
import { MAX_SOURCES, REPORT_DOCS, REPORT_PASSAGES, type AgentEvent, type DeepNewsJob } from './job.js';
import type { Gathering, Pool } from './gather.js';
import type { SourcePlan } from './plan.js';

/** The other sources of the pool as numbered sources (from `first`): web results by kind, graphs, chart series; at most `caps` of each kind. */
export function gatheredSources(pool: Pool, first: number, origin: string, caps: Record<PassageDoc['kind'], number> | null): Gathered[] {
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

/** What the writer reads: the ranked articles (pruned), the first REPORT_DOCS of them, and the other sources numbered after them. */
interface Reading {
  ranked: NewsArticle[];
  articles: ContextDoc[];
  passages: Gathered[];
  docs: SourceDoc[];
}

/** The pool, pruned when asked: an article kept shares a term of the question or came from its main search; another source shares a term. */
function* reading(job: DeepNewsJob, pool: Pool): Generator<AgentEvent, Reading> {
  const { body, question, origin } = job;
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
  return { ranked, articles, passages, docs: [...articles, ...passages.map((g) => g.doc)] };
}

/** The research's account that ends every report: rounds, calls, the writer, the cutoff, what was not searched. */
function notes(job: DeepNewsJob, plan: SourcePlan, found: Gathering, writer: LlmProvider): string {
  const calls = Object.values(job.usage.tool_usage).reduce((s, n) => s + n, 0);
  const toolList = Object.entries(job.usage.tool_usage)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const noteParts = [
    `Research: ${found.roundsRun} round(s), ${calls} tool call(s)${toolList ? ` (${toolList})` : ''}; ${found.pool.articles.size} articles found.`,
  ];
  if (writer.name === 'extractive') noteParts.push('Written by the extractive writer (no model): every sentence is quoted from the source it cites.');
  if (job.cutoff) noteParts.push(`Knowledge cutoff: ${job.cutoff}; no source published after it was used.`);
  const notSearched = [...new Set(plan.skipped)];
  if (notSearched.length) noteParts.push(`Not searched: ${notSearched.join(', ')}.`);
  return noteParts.join(' ');
}

/** The report(s) streamed as the writer writes them; n reports from one call where the provider can (see choices). */
async function* report(job: DeepNewsJob, r: Reading, writer: LlmProvider, noteText: string, signal?: AbortSignal): AsyncGenerator<AgentEvent, AnswerWriter[]> {
  const { body, usage, stops } = job;
  const messages = writerMessages({ conversation: job.conversation, docs: r.docs, journalist: body.journalist_mode, cutoff: job.cutoff });
  const req = reportRequest(
    { model: writer.model, messages, docs: r.docs, question: job.question, journalist: body.journalist_mode, stops, maxTokens: body.max_tokens },
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
    reportTail({ notes: noteText, appendReferences: body.append_references, watermark: body.asknews_watermark, start: body.start_citation_number }, cited);
  const writers = Array.from(
    { length: body.n },
    () =>
      new AnswerWriter({ docs: r.docs, style: body.inline_citations, start: body.start_citation_number, stops, maxTokens: body.max_tokens, trim: true, tail }),
  );
  usage.prompt_tokens += promptTokens(messages) * (body.n > 1 && writer.streamChoices ? 1 : body.n);
  const base = usage.completion_tokens;
  for await (const e of answers(writer, req, writers)) {
    usage.completion_tokens = base + writers.reduce((s, w) => s + w.tokens, 0);
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    yield e;
  }
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  return writers;
}

/** The sources of the answer (return_sources): the cited ones in citation order, or the pool's best and all that was gathered. */
function* listSources(job: DeepNewsJob, pool: Pool, r: Reading, citedArticles: ContextDoc[], citedN: Set<number>): Generator<AgentEvent> {
  const { body, sources, origin } = job;
  const list = body.only_cited_sources ? citedArticles.map((d) => d.article) : r.ranked.slice(0, MAX_SOURCES);
  sources.news = list.map((a) => {
    const d = toDict(
      { ...a, fullText: pool.fullText.get(a.articleId) ?? null },
      { graphs: body.include_graphs, geo: body.include_coordinates, fullText: pool.fullText.has(a.articleId) },
    );
    if (!body.include_entities) d.entities = Object.fromEntries(Object.keys(d.entities).map((k) => [k, []])) as unknown as typeof d.entities;
    return d;
  });
  // the other sources: the cited ones in citation order, or all that were gathered
  const byN = new Map(r.passages.map((g) => [g.doc.n, g]));
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

/** Write the report from what was gathered, then record hits, list the sources and store the thread. */
export async function* write(job: DeepNewsJob, plan: SourcePlan, found: Gathering, signal?: AbortSignal): AsyncGenerator<AgentEvent, void> {
  const { services, principal, body, news, threadId } = job;
  const r = yield* reading(job, found.pool);
  const writer: LlmProvider = job.caller || job.provider.name !== 'extractive' ? job.provider : reportWriter(news.embedder);
  const noteText = notes(job, plan, found, writer);
  const kinds = r.passages.length ? ` and ${r.passages.length} other source(s) (${[...new Set(r.passages.map((g) => g.doc.kind))].join(', ')})` : '';
  yield { type: 'thinking', text: `Writing the report from ${r.articles.length} articles${kinds}.\n` };
  const writers = yield* report(job, r, writer, noteText, signal);

  // the cited sources of every report, in citation order
  const cited = new Map<number, SourceDoc>();
  for (const w of writers) for (const d of w.cited) cited.set(d.n, d);
  const citedArticles = [...cited.values()].filter((d): d is ContextDoc => !isPassage(d));
  const hit = hitRecorder(news, principal, job.question);
  hit(
    'grounded',
    r.articles.map((d) => d.article),
  );
  hit(
    'citation',
    citedArticles.map((d) => d.article),
  );
  if (body.return_sources) yield* listSources(job, found.pool, r, citedArticles, new Set(cited.keys()));
  if (!job.known) await services.threads.create(principal.userId, principal.keyId, threadId);
  await services.threads.append(threadId, [...job.incoming.filter((m) => m.role !== 'system'), { role: 'assistant', content: writers[0]?.text ?? '' }]);
}
