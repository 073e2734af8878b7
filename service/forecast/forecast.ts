/**
 * GET /v1/chat/forecast: evidence from the archive (./evidence.ts), optionally forum threads
 * (`use_reddit`, the forum store) and live web results (`web_search`, the web source), then the
 * judgement.
 *
 * With a model provider (NEWSFLOW_LLM_URL, or a BYOK key for claude-* models) the model judges
 * (./judge.ts): `forecast`, `reasoning`, `probability`, `likelihood`, `confidence`,
 * `llm_confidence`, `choice`, `resolution_criteria`, `opposite_request`; `model_used` and
 * `candidate_models` name it. A failing provider is a 502 (as in chat).
 *
 * Without one (the offline default) nothing predicts, and the judgement fields say so
 * (FORECAST_NOT_JUDGED): `probability` -1, `confidence` -1, `llm_confidence` -1, `likelihood` and
 * `choice` "not judged", `forecast` and `reasoning` sentences saying no model judged,
 * `opposite_request` "", `model_used` "newsflow-extractive", `candidate_models` []. The evidence
 * fields are filled the same either way. `resolution_criteria` without a model is the question
 * restated against the window's end, not a judgement.
 *
 * Web results whose date is known and outside the window are left out; forum threads inside the
 * window join the timeline. A failing web source or forum store is a note, not an error.
 *
 * `expert_information` carries what the service did: expert, window, articles, whether a model
 * judged, and notes (e.g. a web or forum source this service does not have).
 */
import type { z } from 'zod';
import { FORECAST_NOT_JUDGED, type WebSearchResult as WebSearchResultSchema } from '../../spec/index.js';

type WebSearchResult = z.output<typeof WebSearchResultSchema>;
import type { Services } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { byokAllowed, ownerOf } from '../byok/store.js';
import { EXTRACTIVE_MODEL, type LlmProvider } from '../llm/index.js';
import { toDict } from '../search/format.js';
import { MAX_ARTICLES, gatherEvidence, windowOf, type Window } from './evidence.js';
import { judge, type Judgement } from './judge.js';

export interface ForecastParams {
  query: string;
  lookback: number;
  articles_to_use: number;
  method: 'kw';
  model: string;
  /** epoch ms (the parsed cutoff_date); null = the service's now */
  cutoff: number | null;
  use_reddit: boolean;
  additional_context?: string;
  web_search: boolean;
  expert: 'general' | 'sports';
}

/**
 * The web source a forecast asks when `web_search` is set: the shape of GET /v1/chat/websearch.
 * Provided by `services.web` when the service has one.
 */
export interface ForecastWebSource {
  search(q: { queries: string[]; start_datetime?: string; end_datetime?: string }): Promise<{ as_dicts: WebSearchResult[] }>;
}
/** The forum store a forecast asks when `use_reddit` is set (`services.forum`, ForumService.search). */
export interface ForecastForumSource {
  search(p: {
    keywords: string[];
    n_threads: number;
    method: 'kw' | 'nl';
    time_filter: 'all';
    sort: 'relevance';
  }): Promise<{ title: string; date: string; subreddit_name: string; summary: string; url: string }[]>;
}

type MaybeSources = Services & { web?: ForecastWebSource; forum?: ForecastForumSource };

/** Threads and results only count inside the window. */
const within = (w: Window, iso: string) => {
  const t = Date.parse(iso);
  return Number.isFinite(t) && t >= w.from && t <= w.to;
};

async function byokKeys(services: Services, principal: Principal | null, model: string): Promise<Record<string, string>> {
  if (!principal || !/^(claude|gemini)-/i.test(model) || !byokAllowed(principal)) return {};
  try {
    return await services.byok.keys(ownerOf(principal));
  } catch {
    return {};
  }
}

export async function forecast(services: Services, principal: Principal | null, q: ForecastParams) {
  const news = services.news!;
  const cutoff = q.cutoff ?? news.clock();
  const window = windowOf(cutoff, q.lookback);
  const notes: string[] = [];
  if (q.articles_to_use > MAX_ARTICLES) notes.push(`articles_to_use ${q.articles_to_use} read as ${MAX_ARTICLES} (this service's maximum)`);
  const ev = await gatherEvidence(news, principal, q, window, services.llm.extractive);

  const extra: string[] = [];
  const timeline = [...ev.timeline];
  const src = services as MaybeSources;
  let webResults: WebSearchResult[] = [];
  if (q.web_search) {
    if (!src.web) notes.push('web_search: this service has no web source, so web_search_results is empty');
    else {
      try {
        const r = await src.web.search(
          {
            queries: [q.query],
            start_datetime: new Date(window.from).toISOString(),
            end_datetime: new Date(window.to).toISOString(),
          },
          principal ? ownerOf(principal) : null,
        );
        // a result whose date is known and outside the window is left out
        webResults = r.as_dicts.filter((w) => !Number.isFinite(Date.parse(w.published)) || within(window, w.published));
        if (webResults.length)
          extra.push(`Web results:\n${webResults.map((w, i) => `(w${i + 1}) ${w.published} ${w.source} | ${w.title}\n${w.key_points.join(' ')}`).join('\n')}`);
      } catch (e) {
        notes.push(`web_search: the web source failed (${(e as Error).message.slice(0, 200)}), so web_search_results is empty`);
      }
    }
  }
  let forumThreads = 0;
  if (q.use_reddit) {
    if (!src.forum) notes.push('use_reddit: this service has no forum store, so no forum threads were used');
    else {
      let threads: Awaited<ReturnType<ForecastForumSource['search']>> = [];
      try {
        threads = (await src.forum.search({ keywords: [q.query], n_threads: 5, method: 'kw', time_filter: 'all', sort: 'relevance' })).filter((t) =>
          within(window, t.date),
        );
      } catch (e) {
        notes.push(`use_reddit: the forum store failed (${(e as Error).message.slice(0, 200)}); no forum threads were used`);
      }
      forumThreads = threads.length;
      for (const t of threads)
        timeline.push(`${new Date(t.date).toISOString().slice(0, 16).replace('T', ' ')} UTC: ${t.title.trim()} (forum r/${t.subreddit_name})`);
      timeline.sort();
      if (threads.length) extra.push(`Forum threads:\n${threads.map((t) => `${t.date} r/${t.subreddit_name} | ${t.title}\n${t.summary}`).join('\n')}`);
    }
  }

  const keys = await byokKeys(services, principal, q.model);
  const provider: LlmProvider = services.llm.provider(q.model, keys);
  const modelJudges = provider.model !== EXTRACTIVE_MODEL && provider.name !== 'extractive';
  const until = new Date(window.to).toISOString().slice(0, 16).replace('T', ' ');
  let j: Judgement;
  if (modelJudges) {
    j = await judge(provider, q, { ...ev, timeline }, extra);
  } else {
    const why =
      'No model judged this question: the service runs without a model provider (the extractive default; set NEWSFLOW_LLM_URL to have a model judge).';
    j = {
      ...FORECAST_NOT_JUDGED,
      forecast: `${why} Nothing here is a prediction; the evidence found is in summary, timeline, key_people and sources.`,
      reasoning: `${why} ${ev.docs.length} article(s) published in the window were found for the question.`,
      resolution_criteria: `Resolves on reporting after ${until} UTC about: ${q.query.trim()}`,
      opposite_request: '',
    };
  }

  news.hits.record(
    ev.docs.map((d) => ({
      ts: new Date(news.clock()),
      kind: 'grounded' as const,
      keyId: principal?.keyId ?? null,
      orgId: principal?.org?.id ?? null,
      domain: d.article.domain,
      articleId: d.article.articleId,
      query: q.query,
    })),
  );

  return {
    forecast: j.forecast,
    resolution_criteria: j.resolution_criteria,
    date: new Date(cutoff).toISOString(),
    reasoning: j.reasoning,
    sources: ev.docs.map((d) => toDict(d.article, { graphs: false, geo: false, fullText: false })),
    timeline,
    opposite_request: j.opposite_request,
    confidence: j.confidence,
    choice: j.choice,
    llm_confidence: j.llm_confidence,
    model_used: modelJudges ? provider.model : EXTRACTIVE_MODEL,
    likelihood: j.likelihood,
    probability: j.probability,
    web_search_results: webResults,
    summary: ev.summary,
    key_people: ev.keyPeople,
    key_facets: ev.keyFacets,
    reconciled_information: ev.reconciled,
    candidate_models: modelJudges ? [provider.model] : [],
    unique_information: ev.unique,
    expert_information: {
      expert: q.expert,
      judged_by_model: modelJudges,
      window: { start: new Date(window.from).toISOString(), end: new Date(window.to).toISOString() },
      articles_used: ev.docs.length,
      forum_threads_used: forumThreads,
      notes,
    },
  };
}
