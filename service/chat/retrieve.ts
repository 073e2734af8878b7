/**
 * Retrieval for chat: the question (earlier user turns folded in with conversational awareness)
 * searched through the news index with the request's `filter_params` (any search parameter,
 * validated by the search schema; a bad one is a 422 located under `filter_params`).
 * Chat defaults: `method` both (kw when the service has no embedder), `historical` true (the whole
 * index, not only the last 48 hours), 10 articles; `filter_params` override any of them.
 */
import { SearchParams, type SearchParamsParsed } from '../../spec/index.js';
import type { NewsService } from '../news/service.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import type { ContextDoc, LlmMessage } from '../llm/index.js';
import { validationError, zodIssuesToItems } from '../errors.js';

/** How many earlier user turns fold into the retrieval query. */
const FOLDED_TURNS = 2;

export function retrievalQuery(messages: LlmMessage[], conversational: boolean): string {
  const users = messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content.trim())
    .filter(Boolean);
  const last = users[users.length - 1] ?? '';
  if (!conversational) return last;
  return [...users.slice(Math.max(0, users.length - 1 - FOLDED_TURNS), -1), last].join(' ');
}

export function searchParamsOf(
  filterParams: Record<string, unknown> | null | undefined,
  query: string,
  hasEmbedder: boolean,
): { p: SearchParamsParsed; given: Set<string> } {
  const fp = Object.fromEntries(Object.entries(filterParams ?? {}).filter(([, v]) => v !== null && v !== undefined));
  const input = {
    method: hasEmbedder ? 'both' : 'kw',
    historical: true,
    n_articles: 10,
    ...fp,
    query: typeof fp.query === 'string' && fp.query.trim() ? fp.query : query,
    return_type: 'dicts',
  };
  const r = SearchParams.safeParse(input);
  if (!r.success) {
    const items = zodIssuesToItems('body', r.error.issues, input).map((it) => ({ ...it, loc: ['body', 'filter_params', ...it.loc.slice(1)] }));
    throw validationError(items);
  }
  return { p: r.data, given: new Set(Object.keys(fp)) };
}

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
