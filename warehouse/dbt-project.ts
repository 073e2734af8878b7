/**
 * `newsflow dbt init`: a dbt project (dbt-duckdb) over the project's lake, written beside the
 * project file. Its profile attaches the lake READ_ONLY and loads DuckDB's extensions from the
 * install's files (autoinstall and autoload off), so dbt runs offline; its sources are every
 * warehouse table (warehouse/tables, and the tables of the project's own pipelines), each with
 * its description and a `loaded_at_field`; three example models read them.
 *
 * dbt-duckdb loads an extension named by a file path with INSTALL '<file>' (a copy into the
 * profile's extension_directory, the dbt project's target/duckdb_extensions, made once) and then
 * LOAD '<file>' (by path): nothing is downloaded. Paths are written absolute, as resolved when the
 * command ran, each inside an env_var() whose variable moves it (NEWSFLOW_WAREHOUSE_DIR,
 * NEWSFLOW_DUCKDB_EXTENSIONS, NEWSFLOW_DBT_DIR): the project runs from any folder, and a moved
 * lake, install or dbt folder is one variable away (or `newsflow dbt init --force` again).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TableDef } from './tables/index.js';
import { catalogSpec, dataPathOf, LAKE_CATALOG_FILE, LAKE_DATA_DIR } from './lake.js';
import { DUCKDB_VERSION, type ExtensionName } from './extensions.js';

/** The dbt source all tables are in, and the database the profile attaches the lake as. */
export const DBT_SOURCE = 'newsflow';
const LAKE_DB = 'lake';

/** dbt freshness of a table one of the project's pipelines lands: a day old warns, a week old fails. */
export const DEFAULT_FRESHNESS = { warn_after: { count: 1, period: 'day' }, error_after: { count: 7, period: 'day' } } as const;

export interface DbtProjectInput {
  /** the folder to write (absolute) */
  dir: string;
  /** the warehouse folder (absolute) and the project's lake settings */
  warehouseDir: string;
  lake: { catalog?: string; data?: string };
  /** the folder holding v<version>/<name>.duckdb_extension (NEWSFLOW_DUCKDB_EXTENSIONS or the install's .duckdb/extensions) */
  extensionsBase: string;
  /** the tables to declare: newsflow's and the project's own */
  tables: TableDef[];
  /** the tables the project's pipelines land (they get DEFAULT_FRESHNESS; others none) */
  landed: Set<string>;
}

/** A YAML scalar: JSON's double-quoted string is YAML's. */
const y = (s: string) => JSON.stringify(s);
/** A string literal inside a Jinja expression. */
const jinjaStr = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
const envPath = (name: string, value: string) => `{{ env_var('${name}', ${jinjaStr(value)}) }}`;
const slash = (p: string) => p.split(path.sep).join('/');

/**
 * A table's `loaded_at_field`: its `loaded_at` column; else when the load that last changed any
 * of its rows finished (`last_load_id`/`load_id` into `_loads`); else, for a child table, its
 * parent's; else the table's own `loadedAt` expression. Undefined when none applies.
 */
export function loadedAtField(t: TableDef, all: TableDef[]): string | undefined {
  const has = (d: TableDef, c: string) => d.columns.some((x) => x.name === c);
  const loads = `${LAKE_DB}.main._loads`;
  const viaLoads = (d: TableDef) => {
    const col = has(d, 'last_load_id') ? 'last_load_id' : has(d, 'load_id') ? 'load_id' : null;
    return col ? `(select max(l.finished_at) from ${loads} l where l.load_id in (select ${col} from ${LAKE_DB}.main.${d.name}))` : undefined;
  };
  if (has(t, 'loaded_at')) return 'loaded_at';
  const own = viaLoads(t);
  if (own) return own;
  if (t.replaceBy) {
    const key = t.replaceBy.join(',');
    const parent = all.find((p) => !p.replaceBy && p.mergeKey.join(',') === key);
    if (parent && viaLoads(parent)) {
      const pk = t.replaceBy.join(', ');
      const col = has(parent, 'last_load_id') ? 'last_load_id' : 'load_id';
      return `(select max(l.finished_at) from ${loads} l join ${LAKE_DB}.main.${parent.name} p on p.${col} = l.load_id where (${pk.replace(/(\w+)/g, 'p.$1')}) in (select ${pk} from ${LAKE_DB}.main.${t.name}))`;
    }
  }
  return t.loadedAt;
}

/** The ledger tables newsflow keeps beside the landed ones, as sources. */
const LEDGERS: { name: string; description: string; loadedAt: string; columns: string[] }[] = [
  {
    name: '_loads',
    description: 'one row per load (a news run, a distribution window, a tracker run ...): pipeline, kind, window, row counts, times, invariants, snapshot',
    loadedAt: 'finished_at',
    columns: ['load_id', 'pipeline', 'kind', 'window_start', 'window_end', 'rows_received', 'rows_inserted', 'rows_updated', 'started_at', 'finished_at'],
  },
  {
    name: '_schema_changes',
    description: 'one row per field a load saw that its table did not know (new) or that no object of a load carried (vanished)',
    loadedAt: 'first_seen_at',
    columns: ['table_name', 'path', 'change', 'value_type', 'first_seen_at', 'action', 'status'],
  },
];

export function sourcesYml(i: DbtProjectInput): string {
  const fresh = (indent: string) => [
    `${indent}freshness:`,
    `${indent}  warn_after: { count: ${DEFAULT_FRESHNESS.warn_after.count}, period: ${DEFAULT_FRESHNESS.warn_after.period} }`,
    `${indent}  error_after: { count: ${DEFAULT_FRESHNESS.error_after.count}, period: ${DEFAULT_FRESHNESS.error_after.period} }`,
  ];
  const out = [
    '# Written by `newsflow dbt init` from the table definitions (warehouse/tables): every table of the lake.',
    '# loaded_at_field: when the load that last changed a row finished (_loads.finished_at), or the',
    "# table's own time of landing. The tables the project's pipelines land have a freshness (a day",
    '# old warns, a week old fails); the others have none until a pipeline of yours lands them: add one.',
    'version: 2',
    '',
    'sources:',
    `  - name: ${DBT_SOURCE}`,
    '    description: "The newsflow warehouse: a DuckLake attached read-only as `lake` (profiles.yml)."',
    `    database: ${LAKE_DB}`,
    '    schema: main',
    '    tables:',
  ];
  const table = (name: string, description: string, loadedAt: string | undefined, freshness: boolean, columns: { name: string; sql?: string }[]) => {
    out.push(`      - name: ${name}`, `        description: ${y(description)}`, '        config:');
    if (loadedAt) out.push(`          loaded_at_field: ${y(loadedAt)}`);
    if (freshness && loadedAt) out.push(...fresh('          '));
    else out.push('          freshness: null');
    out.push('        columns:');
    for (const c of columns) out.push(`          - name: ${c.name}`, ...(c.sql ? [`            data_type: ${y(c.sql)}`] : []));
  };
  for (const t of i.tables) table(t.name, t.description, loadedAtField(t, i.tables), i.landed.has(t.name), t.columns);
  for (const l of LEDGERS)
    table(
      l.name,
      l.description,
      l.loadedAt,
      l.name === '_loads',
      l.columns.map((name) => ({ name })),
    );
  return `${out.join('\n')}\n`;
}

/** The extensions the lake needs: DuckLake, its catalog's scanner, httpfs for remote data. */
function lakeExtensions(i: DbtProjectInput): ExtensionName[] {
  const { kind } = catalogSpec({ dir: i.warehouseDir, catalog: i.lake.catalog });
  const remote = /^[a-z][a-z0-9+.-]*:\/\//i.test(dataPathOf({ dir: i.warehouseDir, dataPath: i.lake.data }));
  return ['ducklake', kind === 'sqlite' ? 'sqlite_scanner' : 'postgres_scanner', ...(remote ? (['httpfs'] as const) : [])];
}

export function profilesYml(i: DbtProjectInput): string {
  const wh = envPath('NEWSFLOW_WAREHOUSE_DIR', slash(i.warehouseDir));
  const dbtDir = envPath('NEWSFLOW_DBT_DIR', slash(i.dir));
  const ext = envPath('NEWSFLOW_DUCKDB_EXTENSIONS', slash(i.extensionsBase));
  // the default lake (the warehouse folder's lake.sqlite and lake/) moves with NEWSFLOW_WAREHOUSE_DIR; a catalog or data path of the project file is written as given
  const spec = catalogSpec({ dir: i.warehouseDir, catalog: i.lake.catalog });
  const catalog = i.lake.catalog ? `ducklake:${spec.spec}` : `ducklake:sqlite:${wh}/${LAKE_CATALOG_FILE}`;
  const data = i.lake.data ? dataPathOf({ dir: i.warehouseDir, dataPath: i.lake.data }) : `${wh}/${LAKE_DATA_DIR}/`;
  return [
    '# Written by `newsflow dbt init`. dbt-duckdb: the models are tables of newsflow.duckdb in this folder;',
    '# the lake is attached READ_ONLY as `lake` (never blocking a pipeline, never blocked by one).',
    `# Offline: DuckDB's autoinstall and autoload are off, and each extension is the install's file`,
    `# (DuckDB ${DUCKDB_VERSION}'s: pip install -r examples/dbt/requirements.txt pins that duckdb), which dbt-duckdb`,
    '# INSTALLs from its path (a copy into extension_directory, once) and LOADs by path.',
    '# Each path was resolved by `newsflow dbt init`; the env_var() around it moves it.',
    `${DBT_SOURCE}:`,
    '  target: lake',
    '  outputs:',
    '    lake:',
    '      type: duckdb',
    `      path: ${y(`${dbtDir}/newsflow.duckdb`)}`,
    '      threads: 1',
    '      config_options:',
    '        autoinstall_known_extensions: false',
    '        autoload_known_extensions: false',
    `        extension_directory: ${y(`${dbtDir}/target/duckdb_extensions`)}`,
    '      extensions:',
    ...lakeExtensions(i).map((n) => `        - ${y(`${ext}/v${DUCKDB_VERSION}/${n}.duckdb_extension`)}`),
    '      attach:',
    `        - path: ${y(catalog)}`,
    `          alias: ${LAKE_DB}`,
    '          read_only: true',
    '          is_ducklake: true',
    '          options:',
    `            data_path: ${y(data)}`,
    ...(spec.kind === 'sqlite' ? ['            meta_busy_timeout: 10000'] : []),
    '',
  ].join('\n');
}

export const DBT_PROJECT_YML = `# Written by \`newsflow dbt init\`: a dbt project over the newsflow warehouse (docs/warehouse.md, "From dbt").
#   pip install -r examples/dbt/requirements.txt   (of the newsflow install: dbt-core, dbt-duckdb, duckdb ${DUCKDB_VERSION})
#   cd dbt && dbt build && dbt source freshness    (profiles.yml is this folder's)
name: newsflow
version: "1.0.0"
config-version: 2
profile: ${DBT_SOURCE}
model-paths: [models]
target-path: target
clean-targets: [target, logs]
flags:
  send_anonymous_usage_stats: false
  version_check: false
models:
  newsflow:
    +materialized: table
`;

const DAILY_COVERAGE = `-- Daily coverage per news pipeline: per pipeline and publication day (UTC), the articles it landed,
-- how many domains and sources they came from, their languages and their mean sentiment.
-- pipeline_articles says which named pipeline landed which article (an article two pipelines
-- matched counts for both).
select
    pa.pipeline,
    cast(a.pub_date as date) as day,
    count(*) as articles,
    count(distinct a.domain_url) as domains,
    count(distinct a.source_id) as sources,
    count(distinct a.language) as languages,
    round(avg(a.sentiment), 3) as mean_sentiment
from {{ source('${DBT_SOURCE}', 'pipeline_articles') }} pa
join {{ source('${DBT_SOURCE}', 'articles') }} a on a.article_id = pa.article_id
group by all
`;

const ENTITY_TRENDS = `-- Entity trends per week: per entity (type and value) and ISO week of publication (Monday, UTC),
-- the articles that mention it, the week before's, the change, and its rank among the week's
-- entities of its type.
with weekly as (
    select
        e.type,
        e.value,
        cast(date_trunc('week', a.pub_date) as date) as week,
        count(distinct e.article_id) as articles
    from {{ source('${DBT_SOURCE}', 'article_entities') }} e
    join {{ source('${DBT_SOURCE}', 'articles') }} a on a.article_id = e.article_id
    group by all
)
select
    w.type,
    w.value,
    w.week,
    w.articles,
    coalesce(p.articles, 0) as articles_week_before,
    w.articles - coalesce(p.articles, 0) as change,
    rank() over (partition by w.week, w.type order by w.articles desc) as rank_in_week
from weekly w
left join weekly p on p.type = w.type and p.value = w.value and p.week = w.week - interval 7 day
`;

const HIT_SHARE = `-- Distribution hit share per month: per organization, domain set, month (of the window, UTC) and
-- domain, the domain's hit share (the API's stats/hit_share), its part of the set's shares that
-- month, and its rank in the set.
with monthly as (
    select
        org_id,
        domain_set,
        cast(date_trunc('month', window_start) as date) as month,
        domain,
        avg(hit_share) as hit_share,
        count(*) as windows
    from {{ source('${DBT_SOURCE}', 'distribution_hit_share') }}
    group by all
)
select
    *,
    hit_share / nullif(sum(hit_share) over (partition by org_id, domain_set, month), 0) as share_of_set,
    rank() over (partition by org_id, domain_set, month order by hit_share desc) as rank_in_set
from monthly
`;

const MODELS_YML = `version: 2

models:
  - name: daily_coverage
    description: "Per news pipeline and publication day (UTC): articles landed, domains, sources, languages, mean sentiment."
    data_tests:
      - unique:
          column_name: "pipeline || '/' || day"
    columns:
      - name: pipeline
        data_tests: [not_null]
      - name: day
        data_tests: [not_null]
      - name: articles
        data_tests: [not_null]
  - name: entity_trends_weekly
    description: "Per entity (type, value) and ISO week of publication: articles, the week before's, the change, rank in the week."
    data_tests:
      - unique:
          column_name: "type || '/' || value || '/' || week"
    columns:
      - name: week
        data_tests: [not_null]
  - name: distribution_hit_share_monthly
    description: "Per organization, domain set, month and domain: hit share, part of the set's shares, rank in the set."
    data_tests:
      - unique:
          column_name: "org_id || '/' || domain_set || '/' || month || '/' || domain"
    columns:
      - name: hit_share
        data_tests: [not_null]
`;

/** The files of the project, by path relative to its folder. */
export function dbtProjectFiles(i: DbtProjectInput): Record<string, string> {
  return {
    'dbt_project.yml': DBT_PROJECT_YML,
    'profiles.yml': profilesYml(i),
    'models/sources.yml': sourcesYml(i),
    'models/models.yml': MODELS_YML,
    'models/daily_coverage.sql': DAILY_COVERAGE,
    'models/entity_trends_weekly.sql': ENTITY_TRENDS,
    'models/distribution_hit_share_monthly.sql': HIT_SHARE,
    '.gitignore': 'target/\nlogs/\nnewsflow.duckdb\nnewsflow.duckdb.wal\n',
  };
}

/** Write the project into `i.dir` (made if missing); returns the files written, relative to it. */
export function writeDbtProject(i: DbtProjectInput): string[] {
  const files = dbtProjectFiles(i);
  for (const [rel, text] of Object.entries(files)) {
    const f = path.join(i.dir, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  }
  return Object.keys(files);
}
