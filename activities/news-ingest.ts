/** Activities of the news ingest pipeline: fetch one search page through the client, land it. */
import { Context } from '@temporalio/activity';
import { ENTITY_TYPES, type SearchResponseDictItem } from '../spec/index.js';
import type { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { failingFast } from './api-failure.js';
import { ARTICLES, ARTICLE_CLASSIFICATIONS, ARTICLE_ENTITIES, ARTICLE_KEYWORDS } from '../warehouse/tables/index.js';
import { PIPELINE_ARTICLES } from '../warehouse/tables/pipelines.js';

export interface IngestPageInput {
  loadId: string;
  /** the named pipeline (project file) whose run this is: its articles are mapped to it in pipeline_articles */
  pipeline?: string;
  query: string;
  /** extra search filters (any search parameter) */
  filters: Record<string, unknown>;
  /** window on crawl_date, ISO strings, inclusive */
  from: string;
  to: string;
  offset: number;
  pageSize: number;
}
export interface IngestPageResult {
  received: number;
  inserted: number;
  updated: number;
  nextOffset: number;
  done: boolean;
  /** article ids of the page, in order (small: at most 101) */
  ids: string[];
}

const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) * 1000 : null);

export function articleRows(items: SearchResponseDictItem[]) {
  const rows = items.map((a) => ({
    article_id: a.article_id,
    article_url: a.article_url,
    domain_url: a.domain_url,
    source_id: a.source_id,
    title: a.title,
    summary: a.summary,
    language: a.language,
    pub_date: ms(a.pub_date),
    crawl_date: ms(a.crawl_date ?? null),
    country: a.country,
    continent: a.continent ?? null,
    sentiment: a.sentiment,
    provocative: a.provocative ?? null,
    reporting_voice: a.reporting_voice ?? null,
    content_type: a.content_type ?? null,
    bias: a.bias ?? null,
    page_rank: a.page_rank,
    raw: JSON.stringify(a),
  }));
  const entities = items.flatMap((a) => ENTITY_TYPES.flatMap((t) => (a.entities?.[t] ?? []).map((value) => ({ article_id: a.article_id, type: t, value }))));
  const keywords = items.flatMap((a) => a.keywords.map((keyword) => ({ article_id: a.article_id, keyword })));
  const classes = items.flatMap((a) =>
    (Array.isArray(a.classification) ? a.classification : [a.classification]).map((category) => ({ article_id: a.article_id, category })),
  );
  return { rows, entities, keywords, classes };
}

export function createNewsIngestActivities(deps: { client: NewsClient; warehouse: Warehouse }) {
  return failingFast({
    async ingestPage(input: IngestPageInput): Promise<IngestPageResult> {
      Context.current().heartbeat({ offset: input.offset });
      const res = await deps.client.searchNews({
        time_filter: 'crawl_date',
        ...input.filters,
        query: input.query,
        historical: true,
        start_timestamp: Math.floor(Date.parse(input.from) / 1000),
        end_timestamp: Math.floor(Date.parse(input.to) / 1000),
        n_articles: input.pageSize,
        offset: input.offset,
        return_type: 'dicts',
      });
      const items = res.as_dicts ?? [];
      const { rows, entities, keywords, classes } = articleRows(items);
      const counts = await deps.warehouse.land(
        ARTICLES,
        rows,
        [
          { table: ARTICLE_ENTITIES, rows: entities },
          { table: ARTICLE_KEYWORDS, rows: keywords },
          { table: ARTICLE_CLASSIFICATIONS, rows: classes },
        ],
        input.loadId,
      );
      if (input.pipeline && items.length)
        await deps.warehouse.land(
          PIPELINE_ARTICLES,
          items.map((a) => ({ pipeline: input.pipeline, article_id: a.article_id })),
          [],
          input.loadId,
        );
      return { ...counts, nextOffset: input.offset + items.length, done: items.length < input.pageSize, ids: items.map((a) => a.article_id) };
    },
  });
}
export type NewsIngestActivities = ReturnType<typeof createNewsIngestActivities>;
