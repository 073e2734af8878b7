/**
 * The search a chat, DeepNews or graph request runs: its own defaults (`method` both when the
 * service embeds, else kw; `historical` true, the whole index and not only the last 48 hours;
 * `nArticles`), then the request's `filter_params` over them (any search parameter, validated by
 * the search schema: a bad one is a 422 located under `filter_params`), then the request's query
 * unless filter_params names one.
 */
import { SearchParams, type SearchParamsParsed } from '../../spec/index.js';
import { validationError, zodIssuesToItems } from '../errors/index.js';

export function filterSearchParams(
  filterParams: Record<string, unknown> | null | undefined,
  query: string,
  o: { hasEmbedder: boolean; nArticles: number },
): { p: SearchParamsParsed; given: Set<string> } {
  const fp = Object.fromEntries(Object.entries(filterParams ?? {}).filter(([, v]) => v !== null && v !== undefined));
  const input = {
    method: o.hasEmbedder ? 'both' : 'kw',
    historical: true,
    n_articles: o.nArticles,
    ...fp,
    query: typeof fp.query === 'string' && fp.query.trim() ? fp.query : query,
    return_type: 'dicts',
  };
  const r = SearchParams.safeParse(input);
  if (!r.success) {
    throw validationError(zodIssuesToItems('body', r.error.issues, input).map((it) => ({ ...it, loc: ['body', 'filter_params', ...it.loc.slice(1)] })));
  }
  return { p: r.data, given: new Set(Object.keys(fp)) };
}
