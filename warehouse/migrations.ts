/** The warehouse's schema: one version per step (tables, views, the lake's lock rows), each applied once, in order. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { withLakeRetry, type LakeTx } from './lake.js';
import { NEWS_TABLES, TABLES, type TableDef } from './tables/index.js';
import { DISTRIBUTION_TABLES } from './tables/distribution.js';
import { ALERT_TABLES } from './tables/alerts.js';
import { INDEX_COUNT_TABLES } from './tables/index-counts.js';
import { STORY_TABLES } from './tables/stories.js';
import { GRAPH_TABLES } from './tables/graph.js';
import { RESEARCH_TABLES } from './tables/research.js';
import { PIPELINE_TABLES } from './tables/pipelines.js';
import { FEED_TABLES } from './tables/feeds.js';
import { NOTICE_TABLES } from './tables/notices.js';
import { SCHEMA_CHANGES_DDL } from './schema-ledger.js';

/** DuckLake has no primary keys: the merge key lives in the table definition and in `land`'s MERGE. */
export const createTable = (t: TableDef) => `CREATE TABLE ${t.name} (${t.columns.map((c) => `${c.name} ${c.sql}`).join(', ')})`;

/**
 * Kinds renamed to their one name (workflows/kinds.ts: the project file's `kind`): `_loads.kind`
 * rows written before say the old name. Rewritten once (migration 30) and after an import of an
 * older warehouse file; `_loads.pipeline` keeps its value (it is the pipeline's name, which a
 * user may have chosen equal to an old kind name).
 */
export const RENAME_OLD_KINDS = `UPDATE _loads SET kind = CASE kind WHEN 'news-ingest' THEN 'news' WHEN 'story-tracker' THEN 'stories'
  WHEN 'deep-research' THEN 'research' WHEN 'index-count-sampler' THEN 'index-counts' WHEN 'distribution-pull' THEN 'distribution' END
  WHERE kind IN ('news-ingest', 'story-tracker', 'deep-research', 'index-count-sampler', 'distribution-pull')`;

const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE _loads (
       load_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, workflow_id VARCHAR, run_id VARCHAR,
       window_start TIMESTAMP, window_end TIMESTAMP, rows_received BIGINT NOT NULL, rows_inserted BIGINT NOT NULL,
       rows_updated BIGINT NOT NULL, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, invariants JSON)`,
    ...NEWS_TABLES.map(createTable),
    `CREATE VIEW v_articles AS SELECT a.*, list(DISTINCT c.category) FILTER (WHERE c.category IS NOT NULL) AS categories
       FROM articles a LEFT JOIN article_classifications c USING (article_id) GROUP BY ALL`,
    `CREATE VIEW v_entity_mentions AS SELECT e.type, e.value, count(*) AS articles, min(a.pub_date) AS first_seen, max(a.pub_date) AS last_seen
       FROM article_entities e JOIN articles a USING (article_id) GROUP BY 1, 2`,
  ],
  [...DISTRIBUTION_TABLES.map(createTable)],
  [...ALERT_TABLES.map(createTable)],
];
/**
 * Migrations that name their version (a branch may take a later version than one another branch
 * adds: alert tables are version 3). Every version is applied once, in ascending order; a version
 * that arrives after a later one was applied is applied when it arrives.
 */
const VERSIONED_MIGRATIONS: [version: number, sql: string[]][] = [
  [4, INDEX_COUNT_TABLES.map(createTable)],
  [5, STORY_TABLES.map(createTable)],
  [7, GRAPH_TABLES.map(createTable)],
  [11, RESEARCH_TABLES.map(createTable)],
  // the lake: the snapshot that recorded a load (time travel), and one row per landed table that
  // every changing landing updates, so two writers landing into one table always conflict (and
  // one retries) instead of both inserting a new key (DuckLake sees no conflict in two appends)
  [
    16,
    [
      'ALTER TABLE _loads ADD COLUMN snapshot_id BIGINT',
      'CREATE TABLE _land_locks (table_name VARCHAR NOT NULL, n BIGINT NOT NULL)',
      `INSERT INTO _land_locks VALUES ${TABLES.filter((t) => !PIPELINE_TABLES.includes(t))
        .map((t) => `('${t.name}', 0)`)
        .join(', ')}`,
    ],
  ],
  // named pipelines (the project file): _loads.pipeline is the pipeline's name, _loads.kind its kind
  // (before: the kind in pipeline); which pipeline landed which article
  [
    17,
    [
      'ALTER TABLE _loads ADD COLUMN kind VARCHAR',
      'UPDATE _loads SET kind = pipeline',
      ...PIPELINE_TABLES.map(createTable),
      `INSERT INTO _land_locks VALUES ${PIPELINE_TABLES.map((t) => `('${t.name}', 0)`).join(', ')}`,
    ],
  ],
  // the feed poller's tables (their lock rows too, when migration 16 ran before they were declared)
  [
    20,
    [
      ...FEED_TABLES.map(createTable),
      ...FEED_TABLES.map((t) => `INSERT INTO _land_locks SELECT '${t.name}', 0 WHERE NOT EXISTS (SELECT 1 FROM _land_locks WHERE table_name = '${t.name}')`),
    ],
  ],
  // one name per kind: loads recorded under the kinds' former names say the one name
  [30, [RENAME_OLD_KINDS]],
  // what a load cost against the API (the worker's client, per workflow): requests, retries, 429s, credits
  // (NULL: recorded by a writer that did not count them)
  [
    33,
    [
      'ALTER TABLE _loads ADD COLUMN api_requests BIGINT',
      'ALTER TABLE _loads ADD COLUMN retries BIGINT',
      'ALTER TABLE _loads ADD COLUMN http_429 BIGINT',
      'ALTER TABLE _loads ADD COLUMN credits DOUBLE',
    ],
  ],
  // schema changes seen by the loads (warehouse/schema.ts)
  [34, [SCHEMA_CHANGES_DDL]],
  // a load's checks (the project file's `checks:`): each check's outcome, and the failure's message (NULL: passed, or none configured)
  [36, ['ALTER TABLE _loads ADD COLUMN checks JSON', 'ALTER TABLE _loads ADD COLUMN check_failed VARCHAR']],
  // the notices ledger (the project file's `notify:`): one row per (incident, event, channel), its lock row
  [
    37,
    [
      ...NOTICE_TABLES.map(createTable),
      ...NOTICE_TABLES.map((t) => `INSERT INTO _land_locks SELECT '${t.name}', 0 WHERE NOT EXISTS (SELECT 1 FROM _land_locks WHERE table_name = '${t.name}')`),
    ],
  ],
];

/**
 * Apply every pending migration (idempotent; safe from several processes at once): `conn` reads
 * `_migrations`, `tx` is the warehouse's lake transaction.
 */
export async function migrate(conn: DuckDBConnection, tx: LakeTx): Promise<void> {
  await withLakeRetry(() => conn.run('CREATE TABLE IF NOT EXISTS _migrations (version INTEGER NOT NULL, applied_at TIMESTAMP)'));
  const all = new Map(MIGRATIONS.map((stmts, i) => [i + 1, stmts] as const));
  for (const [v, stmts] of VERSIONED_MIGRATIONS) {
    if (all.has(v)) throw new Error(`warehouse migration ${v} is declared twice`);
    all.set(v, stmts);
  }
  const pending = async (conn: DuckDBConnection) => {
    const done = new Set((await conn.runAndReadAll('SELECT version FROM _migrations')).getRowObjectsJS().map((r) => Number(r.version)));
    return [...all.keys()].sort((a, b) => a - b).filter((v) => !done.has(v));
  };
  if ((await pending(conn)).length === 0) {
    await addColumns(conn, tx, TABLES);
    return;
  }
  // every pending version, in order, in one transaction (one commit): read again inside it, as
  // another process may have applied them meanwhile; two that apply them at once conflict on
  // commit and the loser finds them applied on its retry
  await tx({ op: 'migrate' }, async (c) => {
    for (const v of await pending(c)) {
      for (const s of all.get(v)!) await c.run(s);
      await c.run('INSERT INTO _migrations VALUES ($1, now())', [v]);
    }
  });
  await addColumns(conn, tx, TABLES);
}

/**
 * A column a table's definition has and its lake table lacks (a column added to a `TableDef` or a
 * `defineTable` after the table was created: `raw` of the distribution, index-count, graph and
 * research tables) is added (`ALTER TABLE ... ADD COLUMN`, NULL in the rows landed before), all in
 * one lake transaction; nothing is written when every table has its columns.
 */
export async function addColumns(conn: DuckDBConnection, tx: LakeTx, defs: TableDef[]): Promise<string[]> {
  const missing = async (c: DuckDBConnection) => {
    const have = new Set(
      (await c.runAndReadAll("SELECT table_name || '.' || column_name AS k FROM information_schema.columns WHERE table_catalog = current_database()"))
        .getRowObjectsJS()
        .map((r) => String(r.k)),
    );
    const tables = new Set([...have].map((k) => k.slice(0, k.indexOf('.'))));
    return defs.flatMap((d) => (tables.has(d.name) ? d.columns.filter((col) => !have.has(`${d.name}.${col.name}`)).map((col) => ({ d, col })) : []));
  };
  if ((await missing(conn)).length === 0) return [];
  return tx({ op: 'add columns' }, async (c) => {
    const todo = await missing(c);
    for (const { d, col } of todo) await c.run(`ALTER TABLE ${d.name} ADD COLUMN ${col.name} ${col.sql}`);
    return todo.map(({ d, col }) => `${d.name}.${col.name}`);
  });
}
