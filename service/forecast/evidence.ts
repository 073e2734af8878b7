/**
 * The evidence of a forecast, built without a model: the articles published in the window
 * [cutoff - lookback days, cutoff] that best match the question (BM25, `method` kw), and what
 * they say:
 * - `timeline`: one dated event per article, oldest first: `YYYY-MM-DD HH:MM UTC: <headline> (<domain>) [n]`,
 *   every date inside the window (an article's publication time);
 * - `key_people`: ./people.ts;
 * - `key_facets`: the entities (organizations, places, events, laws, ...) most of the articles
 *   name: `<value> (<type>; <k> of <n> sources)`;
 * - `summary`: the extractive writer's brief of the articles (sentences taken from them, cited [n]);
 * - `reconciled_information`: facets that two or more publishers report;
 * - `unique_information`: the lead key point of each publisher that only it carries.
 */
import { SEARCH_LIMITS, SearchParams, TIME_LIMITS } from '../../spec/index.js';
import type { NewsService } from '../news/service.js';
import type { NewsArticle } from '../article/model.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import { complete, type ContextDoc, type LlmProvider } from '../llm/index.js';
import { keyPeople, type KeyPerson } from './people.js';

/** The most articles a forecast reads (the search endpoint's n_articles maximum). */
export const MAX_ARTICLES = SEARCH_LIMITS.nArticlesMax;
/** Entity types that make facets (people are `key_people`; dates and numbers are not facets). */
const FACET_TYPES = ['Organization', 'Location', 'Event', 'Law', 'Politics', 'Sports', 'Product', 'Technology', 'Medicine', 'Arms', 'Nationality'];
const DAY_MS = 86_400_000;

export interface Window {
  from: number;
  to: number;
}

export interface Evidence {
  window: Window;
  docs: ContextDoc[];
  timeline: string[];
  keyPeople: KeyPerson[];
  keyFacets: string[];
  summary: string;
  reconciled: string;
  unique: string;
}

export const windowOf = (cutoff: number, lookbackDays: number): Window => ({ from: cutoff - lookbackDays * DAY_MS, to: cutoff });

const stamp = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export async function gatherEvidence(
  news: NewsService,
  principal: Principal | null,
  q: { query: string; articles_to_use: number; additional_context?: string },
  window: Window,
  writer: LlmProvider,
): Promise<Evidence> {
  const p = SearchParams.parse({
    query: q.query,
    method: 'kw',
    n_articles: Math.min(q.articles_to_use, MAX_ARTICLES),
    historical: true,
    time_filter: 'pub_date',
    // the search takes Unix seconds 0..9999-12-31; a window reaching before 1970 starts at 0
    start_timestamp: Math.min(Math.max(0, Math.floor(window.from / 1000)), TIME_LIMITS.unixSecondsMax),
    end_timestamp: Math.min(Math.max(0, Math.ceil(window.to / 1000)), TIME_LIMITS.unixSecondsMax),
    return_type: 'dicts',
  });
  const onlyDomains = principal?.org?.publisher ? principal.org.domains : null;
  const given = new Set(['start_timestamp', 'end_timestamp', 'time_filter', 'historical']);
  const r = await news.index.search(p, { now: news.clock(), given, onlyDomains, viewer: principal ? ownerOf(principal) : null });
  // the search's bounds are whole seconds; the window's exact bounds apply to what it returns
  const inWindow = (a: NewsArticle) => a.pubDate.getTime() >= window.from && a.pubDate.getTime() <= window.to;
  const found = r.docs.filter(inWindow);
  const full = new Map(
    (
      await news.store.byIds(
        found.map((d) => d.articleId),
        true,
      )
    ).map((a) => [a.articleId, a.fullText]),
  );
  const docs: ContextDoc[] = found.map((article, i) => ({ n: i + 1, article, fullText: full.get(article.articleId) ?? null }));

  const timeline = [...docs]
    .sort((a, b) => a.article.pubDate.getTime() - b.article.pubDate.getTime() || a.n - b.n)
    .map((d) => `${stamp(d.article.pubDate)}: ${d.article.title.trim()} (${d.article.domain}) [${d.n}]`);

  const facetCount = new Map<string, { value: string; type: string; articles: Set<string>; domains: Set<string> }>();
  for (const d of docs) {
    for (const type of FACET_TYPES) {
      for (const v of d.article.entities[type as keyof NewsArticle['entities']] ?? []) {
        const k = `${type}:${v.toLowerCase()}`;
        const f = facetCount.get(k) ?? { value: v, type, articles: new Set<string>(), domains: new Set<string>() };
        f.articles.add(d.article.articleId);
        f.domains.add(d.article.domain);
        facetCount.set(k, f);
      }
    }
  }
  const facets = [...facetCount.values()].sort((a, b) => b.articles.size - a.articles.size || a.value.localeCompare(b.value));
  const keyFacets = facets.slice(0, 10).map((f) => `${f.value} (${f.type}; ${f.articles.size} of ${docs.length} sources)`);
  const shared = facets.filter((f) => f.domains.size >= 2).slice(0, 10);
  const reconciled = shared.length
    ? `Reported by two or more publishers: ${shared.map((f) => `${f.value} (${f.domains.size} publishers)`).join('; ')}.`
    : docs.length
      ? 'No facet is reported by more than one publisher.'
      : '';
  const byDomain = new Map<string, ContextDoc[]>();
  for (const d of docs) byDomain.set(d.article.domain, [...(byDomain.get(d.article.domain) ?? []), d]);
  const uniqueLines: string[] = [];
  for (const [domain, ds] of byDomain) {
    const own = ds.flatMap((d) => d.article.keyPoints.map((kp) => ({ kp, n: d.n })));
    const other = docs.filter((d) => d.article.domain !== domain).map((d) => `${d.article.title}\n${d.article.keyPoints.join('\n')}`.toLowerCase());
    const pick = own.find(({ kp }) => !other.some((t) => t.includes(kp.toLowerCase().slice(0, 60))));
    if (pick) uniqueLines.push(`${domain}: ${pick.kp} [${pick.n}]`);
    if (uniqueLines.length >= 8) break;
  }

  const summary = docs.length
    ? (
        await complete(writer, { model: writer.model, messages: [{ role: 'user', content: q.query }], question: q.query, context: docs, journalistMode: true })
      ).trim()
    : `No article published between ${stamp(new Date(window.from))} and ${stamp(new Date(window.to))} matches the question.`;

  return { window, docs, timeline, keyPeople: keyPeople(found, full), keyFacets, summary, reconciled, unique: uniqueLines.join('\n') };
}
