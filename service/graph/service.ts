/**
 * The graph capability: build a knowledge graph from what a search finds (and documents the
 * caller uploads), store it behind a capability id, render it. POST /v1/news/graph calls it; so
 * can any other route or tool (the DeepNews agent's graph tool) through `Services.graph`.
 */
import { GRAPH_LIMITS, type GraphRequestParsed, type SearchParamsParsed } from '../../spec/index.js';
import type { NewsService } from '../news/service.js';
import { filterSearchParams } from '../news/filter-params.js';
import type { NewsArticle } from '../article/model.js';
import { ownerOf, type Principal } from '../auth/principal.js';
import type { BuiltGraph } from './builder.js';
import { graphThreads } from './thread.js';
import type { GraphSource } from './mentions.js';
import { GraphStore, type StoredGraph } from './store.js';

export type { Graph, GraphEdge, GraphNode } from './builder.js';
export type { Disambiguation } from './disambiguation.js';

/** Characters of an article's full text the graph reads (its first sentences carry its entities). */
const FULL_TEXT_CHARS = 3000;

export interface GraphBuild {
  built: BuiltGraph;
  articles: NewsArticle[];
  docs: { id: string; title: string | null; url: string | null; entities: string[]; entity_types: Record<string, string[]> }[];
  stored: StoredGraph;
  params: SearchParamsParsed;
}

/**
 * Search parameters of a graph request: graph defaults (`historical` true, `method` both when the
 * service embeds, else kw, GRAPH_LIMITS.defaultArticles articles), `filter_params` over them (any
 * search parameter, validated by the search schema: a bad one is a 422 under `filter_params`),
 * the body's `query` unless filter_params names one.
 */
export const graphSearchParams = (filterParams: Record<string, unknown> | null | undefined, query: string, hasEmbedder: boolean) =>
  filterSearchParams(filterParams, query, { hasEmbedder, nArticles: GRAPH_LIMITS.defaultArticles });

export class GraphService {
  readonly store: GraphStore;
  constructor(
    private readonly news: NewsService,
    /** the time budget of a build in its graph thread (ServiceConfig.graphBuildTimeoutMs) */
    readonly budget: { buildTimeoutMs: number },
  ) {
    this.store = new GraphStore(news.db, news.clock);
  }

  /** Build, store and return a graph. `rawFilterParams`: filter_params as sent (the parsed ones carry every search default). */
  async build(body: GraphRequestParsed, o: { principal: Principal | null; rawFilterParams?: Record<string, unknown> | null }): Promise<GraphBuild> {
    const { p, given } = graphSearchParams(o.rawFilterParams ?? null, body.query, this.news.embedder !== null);
    const onlyDomains = o.principal?.org?.publisher ? o.principal.org.domains : null;
    const found = await this.news.index.search(p, { now: this.news.clock(), given, onlyDomains, viewer: o.principal ? ownerOf(o.principal) : null });
    const withText = new Map(
      (
        await this.news.store.byIds(
          found.docs.map((d) => d.articleId),
          true,
        )
      ).map((a) => [a.articleId, a.fullText]),
    );
    const sources: GraphSource[] = found.docs.map((a) => ({
      id: a.articleId,
      kind: 'article',
      title: a.title,
      text: [a.summary, ...a.keyPoints, (withText.get(a.articleId) ?? '').slice(0, FULL_TEXT_CHARS)].filter(Boolean).join('\n'),
      entities: a.entities,
    }));
    const uploads = (body.docs_upload ?? []).map((d, i) => ({ id: d.id ?? `doc-${i + 1}`, title: d.title ?? '', text: d.text, url: d.url ?? null }));
    // the uploads' entities and the graph in a graph thread (thread.ts), within the build's budget:
    // past it BudgetExceeded, and this event loop never waited on it
    const { built, uploadEntities } = await graphThreads().run(
      {
        sources,
        uploads: uploads.map(({ id, title, text }) => ({ id, title, text })),
        opts: { minClusterProbability: body.min_cluster_probability, geo: body.geo_disambiguation, constraints: body.constrained_disambiguations ?? [] },
      },
      { timeoutMs: this.budget.buildTimeoutMs },
    );
    const docs = uploads.map((d, i) => ({
      id: d.id,
      title: body.docs_upload![i]!.title ?? null,
      url: d.url,
      entity_types: uploadEntities[i] as Record<string, string[]>,
    }));
    const stored = await this.store.save(built.graph, { query: p.query, keyId: o.principal?.keyId ?? null });
    return {
      built,
      articles: found.docs,
      params: p,
      stored,
      docs: docs.map((d) => ({ ...d, entities: built.entitiesOf.get(d.id) ?? [] })),
    };
  }
}
