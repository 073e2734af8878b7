/**
 * Retrieval for chat: the question (a follow-up made self-standing first: ./follow-up.ts)
 * searched through the news index with the request's `filter_params` (any search parameter,
 * validated by the search schema; a bad one is a 422 located under `filter_params`).
 * Chat defaults: `method` both (kw when the service has no embedder), `historical` true (the whole
 * index, not only the last 48 hours), 10 articles; `filter_params` override any of them.
 */
import type { SearchParamsParsed } from '../../spec/index.js';
import type { NewsService } from '../news/service.js';
import { filterSearchParams } from '../news/filter-params.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import type { ContextDoc } from '../llm/index.js';
import type { NewsArticle } from '../article/model.js';

/** Chat's and DeepNews' search: 10 articles by default (./../news/filter-params.ts). */
export const searchParamsOf = (filterParams: Record<string, unknown> | null | undefined, query: string, hasEmbedder: boolean) =>
  filterSearchParams(filterParams, query, { hasEmbedder, nArticles: 10 });

export async function retrieve(news: NewsService, principal: Principal | null, p: SearchParamsParsed, given: Set<string>): Promise<ContextDoc[]> {
  const onlyDomains = principal?.org?.publisher ? principal.org.domains : null;
  const r = await news.index.search(p, { now: news.clock(), given, onlyDomains, viewer: principal ? ownerOf(principal) : null });
  const full = new Map(
    (
      await news.store.byIds(
        r.docs.map((d) => d.articleId),
        true,
      )
    ).map((a) => [a.articleId, a.fullText]),
  );
  return r.docs.map((article, i) => ({ n: i + 1, article, fullText: full.get(article.articleId) ?? null }));
}

/**
 * The hit events of an answer (distribution metrics count them): `grounded` for each article
 * placed in the writer's context, `citation` for each one cited; `query` is what was searched.
 */
export function hitRecorder(news: NewsService, principal: Principal, query: string) {
  return (kind: 'grounded' | 'citation', articles: NewsArticle[]) =>
    news.hits.record(
      articles.map((a) => ({
        ts: new Date(news.clock()),
        kind,
        keyId: principal.keyId,
        orgId: principal.org?.id ?? null,
        domain: a.domain,
        articleId: a.articleId,
        query: query || null,
      })),
    );
}
