/**
 * Preflight: before a pipeline runs (`run`, `start`, `worker`, `alerts sync`), one short look at
 * the API with the key the pipeline will use. It answers; the key is valid; the key may call what
 * the pipeline calls (scopes, organization and plan from spec/routes.ts); for distribution, the
 * key's organization owns the requested domains. Each failure is one line saying what is wrong
 * and how to fix it, raised as a PreflightError (the CLI prints it and exits 1).
 *
 * How, so that it works against the hosted API as well as our service:
 * - `GET /v1/profiles/me/limits` (any valid key, consumes no rate tokens): the API answers, the
 *   key is valid. (`/v1/profiles/me` would tell no scopes, and needs the profile scope itself.)
 * - one cheap request (one result, a one-day window) per scope the pipeline needs, to an
 *   operation the pipeline itself calls: 403 means this key may not call it, whatever the reason
 *   (scope, personal key, publisher key, plan), and the API's own detail says which.
 * - distribution: `domain_hit_share` over the requested domains (customer-facing; `get_domain`
 *   is internal on the hosted API). 403 when the organization owns none of them; a domain missing
 *   from the answer is asked alone, and a 403 then means it is not the organization's.
 */
import { UserError } from '../../lib/errors.js';
import { ApiError, AuthError, NetworkError, NewsClient, NotFoundError, ServerError } from '../../client/index.js';
import { normaliseDomain, route, type Scope } from '../../spec/index.js';
import { findKind, kindOfWorkflow, kinds } from '../config/kinds/index.js';

/** True when the project's pipelines run against an API of its own (api.url and api.key: no service, no corpus of ours). */
export const remoteApi = (p: { api: { url?: string; key?: string } }) => Boolean(p.api.url && p.api.key);

/** The operations of each kind that calls the API (the registry's, pipelines/config/kinds): what its key must be allowed to call. */
export const kindOperations = (): Record<string, readonly string[]> =>
  Object.fromEntries(kinds().flatMap((k) => (k.operations.length ? [[k.name, k.operations]] : [])));

const operationsOf = (kind: string): readonly string[] => findKind(kind)?.kind.operations ?? [];

export interface PreflightNeed {
  /** the kind (its one name) */
  kind: string;
  /** distribution: the domains it will ask for */
  domains?: string[];
}

/** The kinds of schedule declarations (spec/routes.ts scopes follow from them), distribution with its domains. */
export function scheduledNeeds(decls: { workflowType: string; args: unknown[] }[]): PreflightNeed[] {
  const out = new Map<string, PreflightNeed>();
  for (const d of decls) {
    const k = kindOfWorkflow(d.workflowType);
    // (a kind that calls no API operation, e.g. maintenance, needs nothing of the key)
    if (!k || !k.operations.length) continue;
    const domains = k.domains?.((d.args[0] as Record<string, unknown> | undefined) ?? {});
    const key = `${k.name}:${domains?.join(',') ?? ''}`;
    if (!out.has(key)) out.set(key, domains ? { kind: k.name, domains } : { kind: k.name });
  }
  return [...out.values()];
}

/** A check failed: the message is one line, what is wrong and how to fix it. */
export class PreflightError extends UserError {}
/** The API and the key are fine, but the key may not do what this pipeline does. */
class PipelineRefused extends PreflightError {}

/** A cheap request per probed operation: one result, a one-day window ending now. */
const PROBES: Record<string, (domains: string[]) => Record<string, unknown>> = {
  search_news: () => ({ query: 'news', n_articles: 1, method: 'kw' }),
  get_index_counts: () => ({ sampling: '1d', start_datetime: new Date(Date.now() - 86_400_000).toISOString(), end_datetime: new Date().toISOString() }),
  get_stories: () => ({ limit: 1 }),
  get_alerts: () => ({ page: 1, per_page: 1 }),
  get_user_profile: () => ({}),
  domain_hit_share: (domains) => ({ domain_names: domains, start_date: Math.floor(Date.now() / 1000) - 86_400, end_date: Math.floor(Date.now() / 1000) }),
};

const norm = normaliseDomain;
const apiText = (e: ApiError) => `HTTP ${e.status} (code ${e.code}): ${typeof e.detail === 'string' ? e.detail : JSON.stringify(e.detail)}`;
const cause = (e: unknown) => {
  const c = (e as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (e as Error).message;
};

/** The scopes (and whether an organization key is needed) of a kind, from the route table. */
export function kindNeeds(kind: string): { scopes: Scope[]; orgOnly: boolean } {
  const defs = operationsOf(kind).map(route);
  return { scopes: [...new Set(defs.flatMap((d) => d.scopes ?? []))], orgOnly: defs.some((d) => d.orgOnly) };
}

const keyFix = (kind: string) => {
  const { scopes, orgOnly } = kindNeeds(kind);
  return `use a key with the ${scopes.join(', ')} scope${scopes.length > 1 ? 's' : ''}${orgOnly ? ' of an organization that owns the domains' : ''} (self-hosted: newsflow keys create --name NAME ${orgOnly ? '--org ORG ' : ''}--scopes ${scopes.join(',')})`;
};

export interface PreflightOptions {
  /** the API (the project's api.url; default http://127.0.0.1:8080) */
  apiUrl?: string;
  /** the key (the project's api.key) */
  apiKey?: string;
  /**
   * strict (default): any failed check throws. worker: the API and the key must pass; a scheduled
   * pipeline the key cannot run is a warning line (a worker also serves runs started elsewhere,
   * e.g. a distribution backfill, whatever is scheduled).
   */
  mode?: 'strict' | 'worker';
  /** where warnings go (default: stderr) */
  warn?: (line: string) => void;
}

/** Check the API and key for `needs`; throws a PreflightError with a one-line message. */
export async function preflight(needs: PreflightNeed[], opts: PreflightOptions = {}): Promise<void> {
  const apiKey = opts.apiKey;
  const url = (opts.apiUrl || 'http://127.0.0.1:8080').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/i.test(url) || !URL.canParse(url)) {
    throw new PreflightError(`NEWSFLOW_API_URL "${url}" is not an http(s) URL: set it to the API's address, e.g. http://127.0.0.1:8080`);
  }
  const needed = [...new Set(needs.map((n) => n.kind))];
  if (!apiKey) {
    const scopes = [...new Set(needed.flatMap((k) => kindNeeds(k).scopes))];
    throw new PreflightError(
      `no API key: set NEWSFLOW_API_KEY to a key of the API at ${url}${scopes.length ? ` with the ${scopes.join(', ')} scope${scopes.length > 1 ? 's' : ''}` : ''} (self-hosted: newsflow keys create --name NAME --scopes ${scopes.join(',') || 'news'})`,
    );
  }
  // a few quick tries, never the pipelines' patient retries: a preflight answers within seconds
  const client = new NewsClient({ baseUrl: url, apiKey, retry: { max: 2, baseDelayMs: 250, maxDelayMs: 1000 }, timeoutMs: 5000, validate: 'off' });
  const warn = opts.warn ?? ((l: string) => console.error(l));
  try {
    await checkKey(client, url);
    for (const need of needs) {
      try {
        await checkPipeline(client, url, need);
      } catch (e) {
        // the API or the key failing half-way is no pipeline's matter
        if (!(e instanceof PipelineRefused) || opts.mode !== 'worker') throw e;
        const leave = findKind(need.kind)?.kind.leaveOut;
        warn(`warning: ${e.message}; its runs will fail on this worker${leave ? ` (to leave it out: ${leave})` : ''}`);
      }
    }
  } finally {
    await client.close();
  }
}

/** The API answers and takes the key. */
async function checkKey(client: NewsClient, url: string): Promise<void> {
  try {
    await client.getLimits();
  } catch (e) {
    if (e instanceof NetworkError)
      throw new PreflightError(`cannot reach the API at ${url} (${cause(e)}): start it (newsflow serve) or set NEWSFLOW_API_URL to its address`);
    if (e instanceof AuthError) throw new PreflightError(`the API at ${url} refused the key, ${apiText(e)}: set NEWSFLOW_API_KEY to a valid key of this API`);
    if (e instanceof ServerError) throw new PreflightError(`the API at ${url} is failing, ${apiText(e)}: try again once it answers`);
    // an API without the limits route (404) or other answers: the probes below tell
    if (e instanceof NotFoundError || e instanceof ApiError) return;
    throw e;
  }
}

/** The one-line PreflightError for an error of a probe of `operationId`. */
function explain(e: unknown, url: string, kind: string, operationId: string): unknown {
  const d = route(operationId);
  if (e instanceof NetworkError)
    return new PreflightError(`cannot reach the API at ${url} (${cause(e)}): start it (newsflow serve) or set NEWSFLOW_API_URL to its address`);
  if (!(e instanceof ApiError)) return e;
  const what = `the key cannot run ${kind}: ${d.method} ${d.path} answered ${apiText(e)}`;
  if (e.status === 401) return new PreflightError(`the API at ${url} refused the key, ${apiText(e)}: set NEWSFLOW_API_KEY to a valid key of this API`);
  if (e.status === 403) return new PipelineRefused(`${what}; ${keyFix(kind)}`);
  if (e.status === 404) return new PreflightError(`${what}; is NEWSFLOW_API_URL (${url}) the news API?`);
  if (e instanceof ServerError) return new PreflightError(`the API at ${url} is failing, ${apiText(e)}: try again once it answers`);
  return new PipelineRefused(what);
}

const ask = (client: NewsClient, operationId: string, domains: string[]) => client.call(operationId, { query: PROBES[operationId]!(domains) });

/** One probe per scope the pipeline needs; for distribution, the domains are the organization's. */
async function checkPipeline(client: NewsClient, url: string, need: PreflightNeed): Promise<void> {
  const ops = operationsOf(need.kind);
  const domains = need.domains ?? [];
  const probed = new Set<Scope>();
  for (const op of ops) {
    if (!PROBES[op]) continue;
    const scopes = route(op).scopes ?? [];
    if (scopes.length && scopes.every((s) => probed.has(s))) continue;
    if (op === 'domain_hit_share') {
      await checkDomains(client, url, need.kind, domains);
    } else {
      await ask(client, op, domains).catch((e) => {
        throw explain(e, url, need.kind, op);
      });
    }
    scopes.forEach((s) => probed.add(s));
  }
}

async function checkDomains(client: NewsClient, url: string, kind: string, domains: string[]): Promise<void> {
  if (domains.length === 0) return;
  const notOwned = (list: string[], e: ApiError) =>
    new PipelineRefused(
      `the organization of this key does not own ${list.join(', ')} (${apiText(e)}): ask only for its domains (--domains), or use a key of the organization that owns them`,
    );
  // a 403 whose detail speaks of domains: not the organization's (else: the key may not call distribution at all)
  const aboutDomains = (e: unknown): e is ApiError =>
    e instanceof ApiError && e.status === 403 && /domain/i.test(typeof e.detail === 'string' ? e.detail : JSON.stringify(e.detail));
  let answer: { data?: { domain: string }[] };
  try {
    answer = (await ask(client, 'domain_hit_share', domains)) as typeof answer;
  } catch (e) {
    throw aboutDomains(e) ? notOwned(domains, e) : explain(e, url, kind, 'domain_hit_share');
  }
  const got = new Set((answer.data ?? []).map((x) => norm(x.domain)));
  const missing = [...new Set(domains.map(norm))].filter((d) => !got.has(d));
  const refused: string[] = [];
  let last: ApiError | null = null;
  for (const d of missing) {
    try {
      await ask(client, 'domain_hit_share', [d]);
    } catch (e) {
      if (!aboutDomains(e)) throw explain(e, url, kind, 'domain_hit_share');
      refused.push(d);
      last = e;
    }
  }
  if (last) throw notOwned(refused, last);
}
