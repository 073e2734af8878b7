/**
 * Running an alert: which articles indexed since the last run match its query and filters, and
 * whether that fires the alert.
 *
 * Without an LLM (the default) the check is retrieval-based: the candidates are the articles whose
 * crawl_date lies in (last run, now] and that pass the `asknews` source's filters; with a query,
 * they are ranked by the source's `method` (default `nl` when the service has an embedder) and an
 * article matches when it clears `similarity_score_threshold` (default 0.5 on the calibrated
 * scale of the search endpoint) — for `kw`, when it shares a term with the query (BM25 > 0).
 * The alert fires when at least one article matches, or on every run when always_trigger is set.
 * Without a query every new article passing the filters matches.
 *
 * With NEWSFLOW_LLM_URL set (the model layer's OpenAI-compatible provider), the retrieved
 * candidates (up to 20, best first) go to the model with the alert's query, and the model's JSON
 * verdict `{alert, reasoning, article_ids}` decides; a failing model falls back to retrieval and
 * says so in the log's reasoning.
 */
import { SEARCH_LIMITS, SearchParams, type AlertLog, type SearchParamsParsed } from '../../spec/index.js';
import type { NewsService } from '../news/service.js';
import type { NewsArticle } from '../article/model.js';
import { conflict } from '../errors/index.js';
import type { AlertRow } from './store.js';
import { ownerOf } from '../auth/principal.js';
import { ProviderError, complete, type LlmProvider } from '../llm/index.js';

export interface CheckResult {
  alert: boolean;
  reasoning: string;
  articles: NewsArticle[];
  report: string | null;
  /** new articles in the window that passed the filters (before the query) */
  considered: number;
}

/** Source kinds this service can reach offline; the others are stored but cannot run here. */
const RUNNABLE = new Set(['asknews']);

export function unreachableSources(a: AlertRow): string[] {
  return (a.sources ?? []).map((s) => String((s as { identifier?: unknown }).identifier ?? 'asknews')).filter((k) => !RUNNABLE.has(k));
}

function sourceParams(a: AlertRow): Record<string, unknown> {
  const src = (a.sources ?? []).find((s) => (s as { identifier?: unknown }).identifier === 'asknews') as
    | { params?: Record<string, unknown> | null }
    | undefined;
  return src?.params ?? {};
}

export async function checkAlert(news: NewsService, a: AlertRow, window: { from: number; to: number }, llm: LlmProvider | null): Promise<CheckResult> {
  const bad = unreachableSources(a);
  // a valid request on an alert whose stored sources this server cannot run: the alert's state, 409
  if (bad.length) {
    throw conflict(
      `alert ${a.id} has source(s) ${bad.join(', ')} that this service cannot reach offline (it runs asknews sources only); ` +
        `remove them with PUT /v1/chat/alerts/${a.id}, or run this alert against the hosted API`,
    );
  }
  const given = sourceParams(a);
  const query = (a.query ?? String(given.query ?? '')).trim();
  const method = (given.method as SearchParamsParsed['method'] | undefined) ?? (news.embedder ? 'nl' : 'kw');
  const p = SearchParams.parse({
    ...given,
    query,
    method,
    n_articles: SEARCH_LIMITS.nArticlesMax,
    offset: 0,
    time_filter: 'crawl_date',
    historical: true,
    strategy: 'default',
    start_timestamp: Math.floor(window.from / 1000),
    end_timestamp: Math.ceil(window.to / 1000),
    diversify_sources: false,
  });
  const inWindow = (x: NewsArticle) => x.crawlDate !== null && x.crawlDate.getTime() > window.from && x.crawlDate.getTime() <= window.to;
  // the alert's owner sees its own indexed pages besides the shared corpus
  const viewer = ownerOf({ org: a.org_id ? { id: a.org_id } : null, userId: a.user_id });
  const all = await news.index.search({ ...p, query: '' }, { now: window.to, given: new Set(), onlyDomains: null, viewer });
  // (window bounds of the search are whole seconds; the exact bounds are applied to the returned docs)
  const considered = all.total;
  const ranked = query ? await news.index.search(p, { now: window.to, given: new Set(), onlyDomains: null, viewer }) : all;
  const matches = ranked.docs.filter(inWindow);
  const since = new Date(window.from).toISOString();
  const until = new Date(window.to).toISOString();
  let verdict: { alert: boolean; reasoning: string; articles: NewsArticle[] } | null = null;
  let llmNote = '';
  if (llm && query && matches.length) {
    try {
      verdict = await judge(llm, a, query, matches.slice(0, 20));
    } catch (e) {
      const why = e instanceof ProviderError && e.status ? `HTTP ${e.status}` : (e as Error).message.slice(0, 200);
      llmNote = ` (the model ${llm.model} failed: ${why}; decided by retrieval)`;
    }
  }
  if (!verdict) {
    const what = query
      ? `${matches.length} of ${considered} new article(s) matched "${query}" (${p.method}${p.method === 'kw' ? '' : `, similarity >= ${p.similarity_score_threshold}`})`
      : `${matches.length} new article(s) passed the filters`;
    const best = matches[0] ? `; best: "${matches[0].title}"` : '';
    verdict = { alert: matches.length > 0, reasoning: `${what} between ${since} and ${until}${best}${llmNote}`, articles: matches };
  }
  const fired = a.always_trigger || verdict.alert;
  const reasoning = a.always_trigger && !verdict.alert ? `${verdict.reasoning}; always_trigger is set` : verdict.reasoning;
  return { alert: fired, reasoning, articles: verdict.articles, report: fired && a.report ? report(a, verdict.articles, since, until) : null, considered };
}

/** An extractive report: the matching headlines with their summaries (no model needed). */
function report(a: AlertRow, articles: NewsArticle[], since: string, until: string): string {
  const lines = [`# ${a.title ?? a.query ?? 'Alert report'}`, '', `Articles indexed between ${since} and ${until}: ${articles.length}.`, ''];
  articles
    .slice(0, 25)
    .forEach((x, i) => lines.push(`${i + 1}. **${x.title}** (${x.domain}, ${x.pubDate.toISOString().slice(0, 10)}) ${x.summary}`.trim(), `   ${x.url}`));
  return lines.join('\n');
}

async function judge(
  llm: LlmProvider,
  a: AlertRow,
  query: string,
  candidates: NewsArticle[],
): Promise<{ alert: boolean; reasoning: string; articles: NewsArticle[] }> {
  const docs = candidates.map((x, i) => `[${i + 1}] id=${x.articleId} | ${x.title} | ${x.summary}`).join('\n');
  const text = await complete(llm, {
    model: llm.model,
    temperature: 0,
    json: true,
    messages: [
      {
        role: 'system',
        content:
          'You decide whether news articles satisfy an alert condition. Answer with JSON only: ' +
          '{"alert": boolean, "reasoning": string, "article_ids": [ids of the articles that satisfy it]}.',
      },
      { role: 'user', content: `Alert condition: ${query}\nAlert type: ${a.alert_type ?? 'AlwaysAlertWhen'}\n\nNew articles:\n${docs}` },
    ],
  });
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) throw new Error('no JSON object in the answer');
  const v = JSON.parse(m[0]) as { alert?: unknown; reasoning?: unknown; article_ids?: unknown };
  if (typeof v.alert !== 'boolean') throw new Error('the answer has no boolean "alert"');
  const ids = new Set(Array.isArray(v.article_ids) ? v.article_ids.map(String) : []);
  return { alert: v.alert, reasoning: `model ${llm.model}: ${String(v.reasoning ?? '')}`, articles: candidates.filter((x) => ids.has(x.articleId)) };
}

export function newLog(a: AlertRow, r: CheckResult, now: number, id: string, isTest: boolean): AlertLog {
  return {
    id,
    created_at: new Date(now).toISOString(),
    alert_id: a.id,
    user_id: a.user_id,
    alert: r.alert,
    reasoning: isTest ? `[test run] ${r.reasoning}` : r.reasoning,
    report: r.report,
    report_url: null,
    article_ids: r.articles.map((x) => x.articleId),
    // delivery to the alert's triggers is the alert runner's job (pipelines/alertRunner); test runs are never delivered
    webhook: isTest ? { test: true, delivery: 'none' } : null,
  };
}
