/**
 * POST /v1/news/graph (spec/news.ts) and its capability URLs (extensions): the page drawing a stored
 * graph, its edges as CSV, and the script the page loads. The graph itself is service/graph/.
 */
import { ERROR_CODES } from '../../spec/index.js';
import type { GroupHandlers, RequestCtx } from '../context.js';
import { publicBase } from '../config.js';
import { HttpError, notFound } from '../errors/index.js';
import { toDict } from '../search/format.js';
import type { GraphService } from '../graph/service.js';
import { CAPABILITY_HEADERS, cytoscapeScript, graphPage, triplesCsv } from '../graph/render.js';
import { BudgetExceeded } from '../../lib/threads/budget-pool.js';

/** A build past its time budget (its thread terminated and replaced): 503 with what to send instead, never a 500. */
async function withinBudget<T>(build: Promise<T>): Promise<T> {
  try {
    return await build;
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    throw new HttpError(
      503,
      ERROR_CODES.unavailable,
      `${e.message} (this server's NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS) and was stopped: send fewer or shorter docs_upload, or fewer articles (filter_params.n_articles)`,
    );
  }
}

function graphService(ctx: RequestCtx): GraphService {
  const g = ctx.services.graph;
  if (!g) throw new HttpError(503, ERROR_CODES.unavailable, 'this server was started without a news store: graphs are unavailable');
  return g;
}

/**
 * Capability URLs are absolute (browsers open them as they are) and start with the configured
 * public base URL, never with the request's Host or X-Forwarded-* headers: a caller cannot make
 * a shared link point at a host of its choosing.
 */
const origin = (ctx: RequestCtx) => publicBase(ctx.services.config);

async function stored(ctx: RequestCtx & { params: { graph_id: string } }) {
  const id = ctx.params.graph_id;
  const g = await graphService(ctx).store.get(id);
  if (!g) throw notFound(`no graph ${id.toLowerCase()} (unknown, or expired)`);
  return g;
}

export const graphHandlers: GroupHandlers = {
  build_graph: async (ctx) => {
    const body = ctx.body;
    const raw = (ctx.req.body as { filter_params?: Record<string, unknown> | null } | null)?.filter_params;
    const r = await withinBudget(graphService(ctx).build(body, { principal: ctx.principal, rawFilterParams: raw && typeof raw === 'object' ? raw : null }));
    const base = `${origin(ctx)}/v1/news/graph/${r.stored.graphId}`;
    if (body.return_articles && r.articles.length) {
      const news = ctx.services.news!;
      const p = ctx.principal;
      news.hits.record(
        r.articles.map((a) => ({
          ts: new Date(news.clock()),
          kind: 'surface' as const,
          keyId: p?.keyId ?? null,
          orgId: p?.org?.id ?? null,
          domain: a.domain,
          articleId: a.articleId,
          query: r.params.query || null,
        })),
      );
    }
    return {
      full_graph: {
        nodes: r.built.graph.nodes,
        edges: r.built.graph.edges,
        graph_id: r.stored.graphId,
        expires_at: r.stored.expiresAt.toISOString(),
        n_articles: r.articles.length,
        n_documents: r.docs.length,
      },
      disambiguations: r.built.disambiguations,
      articles: body.return_articles ? r.articles.map((a) => toDict(a, { graphs: false, geo: body.geo_disambiguation, fullText: false })) : null,
      query: r.params.query,
      docs_enhanced: body.docs_upload ? r.docs : null,
      triples_url: `${base}/triples`,
      visualize_url: body.visualize_with === 'html' ? `${base}/view` : null,
    };
  },

  view_graph: async (ctx) => {
    const { html, csp } = graphPage(await stored(ctx));
    return ctx.reply
      .code(200)
      .headers({ ...CAPABILITY_HEADERS, 'content-security-policy': csp })
      .type('text/html; charset=utf-8')
      .send(html);
  },

  get_graph_triples: async (ctx) => {
    const g = await stored(ctx);
    return ctx.reply
      .code(200)
      .headers({ ...CAPABILITY_HEADERS, 'content-disposition': `attachment; filename="graph-${g.graphId}.csv"` })
      .type('text/csv; charset=utf-8')
      .send(triplesCsv(g));
  },

  get_graph_asset: async (ctx) =>
    ctx.reply
      .code(200)
      .headers({ 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' })
      .type('text/javascript; charset=utf-8')
      .send(cytoscapeScript()),
};
