/**
 * Tables landed by deepResearch. A research run is one row, merged on its run id (the workflow
 * id of the run): each round lands the run as it stands (`status` running, `rounds_done` k), the
 * last round lands the final report (`status` complete), so a round replayed after a crash
 * rewrites the same row. The run's sources are replaced per run: the citation numbers of the
 * report, each an article (kind news, article_id set) or a web page (kind web, URL only).
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });

export const RESEARCH_RUNS: TableDef = {
  name: 'research_runs',
  description: 'one row per research run (merge on run_id): question, parameters, report, model, usage',
  mergeKey: ['run_id'],
  monthColumn: 'run_at',
  columns: [
    c('run_id', 'VARCHAR', 'varchar'),
    c('name', 'VARCHAR', 'varchar'),
    c('question', 'VARCHAR', 'varchar'),
    c('parameters', 'JSON', 'varchar'),
    c('status', 'VARCHAR', 'varchar'),
    c('rounds_done', 'INTEGER', 'int'),
    c('rounds', 'INTEGER', 'int'),
    c('report', 'VARCHAR', 'varchar'),
    c('model', 'VARCHAR', 'varchar'),
    c('usage', 'JSON', 'varchar'),
    c('n_sources', 'INTEGER', 'int'),
    c('run_at', 'TIMESTAMP', 'bigint'),
    c('row_hash', 'VARCHAR', 'varchar'),
    c('last_load_id', 'VARCHAR', 'varchar'),
  ],
};

export const RESEARCH_SOURCES: TableDef = {
  name: 'research_sources',
  description: 'the cited sources of each research run by citation number (replaced per run)',
  mergeKey: ['run_id', 'citation'],
  replaceBy: ['run_id'],
  columns: [
    c('run_id', 'VARCHAR', 'varchar'),
    c('citation', 'INTEGER', 'int'),
    c('kind', 'VARCHAR', 'varchar'),
    c('article_id', 'UUID', 'varchar'),
    c('url', 'VARCHAR', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('source', 'VARCHAR', 'varchar'),
    c('published', 'TIMESTAMP', 'bigint'),
  ],
};

export const RESEARCH_TABLES = [RESEARCH_RUNS, RESEARCH_SOURCES];
