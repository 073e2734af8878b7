/** Activities of the news ingest pipeline: fetch one search page through the client, land it. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { SearchResponseDictItem } from '../spec/index.js';
import type { NewsClient } from '../client/index.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { failingFast } from './api-failure.js';
import { ARTICLES, articleBatch } from '../warehouse/tables/articles.js';
import { SchemaContractError, type SchemaContract } from '../warehouse/schema.js';
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
  /** the pipeline's schema contract for fields the API adds or drops (warehouse/schema.ts); default evolve */
  schema?: SchemaContract;
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
      const { def } = await deps.warehouse.checkSchema(ARTICLES, items, { loadId: input.loadId, contract: input.schema }).catch((e: unknown) => {
        // the same response breaks the contract the same way: no retry
        if (e instanceof SchemaContractError) throw ApplicationFailure.nonRetryable(e.message, 'SchemaContract', { table: e.table, changes: e.changes });
        throw e;
      });
      const { rows, children } = articleBatch(items as SearchResponseDictItem[]);
      const counts = await deps.warehouse.land(def, deps.warehouse.withEvolved(def, rows), children, input.loadId);
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
