/** Which named pipeline landed what: an article matched by two news pipelines is one `articles` row and two rows here. */
import type { ColKind } from '../../lib/duckdb/stage.js';
import type { Column, TableDef } from './table-def.js';

const c = (name: string, sql: string, kind: ColKind): Column => ({ name, sql, kind });

export const PIPELINE_ARTICLES: TableDef = {
  name: 'pipeline_articles',
  description: 'one row per (pipeline, article) a named news pipeline landed (merge on pipeline, article_id); last_load_id is the load that first landed it',
  mergeKey: ['pipeline', 'article_id'],
  columns: [
    c('pipeline', 'VARCHAR', 'varchar'),
    c('article_id', 'UUID', 'varchar'),
    c('row_hash', 'VARCHAR', 'varchar'),
    c('last_load_id', 'VARCHAR', 'varchar'),
  ],
};
export const PIPELINE_TABLES: TableDef[] = [PIPELINE_ARTICLES];
