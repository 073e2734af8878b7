/** The warehouse: `sql`, `export`, `warehouse migrate`, `warehouse maintain`. */
import path from 'node:path';
import type { Command } from 'commander';
import type { SqlFormat } from '../../warehouse/read.js';
import { WAREHOUSE_FILE } from '../../warehouse/files.js';
import { InvalidArgumentError } from 'commander';
import { CliError, dataDirOpt, intArg, table, warehouseOf, warehouseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const shell = () => import('../run/sql-shell.js');

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const read = () => import('../../warehouse/read.js');

/** a number >= 0 (a retention of 0 days expires every snapshot but the last) */
const nonNegative = (name: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a number >= 0`);
  return n;
};

const FORMATS: SqlFormat[] = ['table', 'csv', 'json', 'arrow', 'parquet'];

export function register(program: Command): void {
  registerQueries(program);
  registerLake(program);
  registerReprocess(program);
  registerSchema(program);
}

/** `sql`, `export`, `usage`: reading the warehouse. */
function registerQueries(program: Command): void {
  program
    .command('sql [query]')
    .description('run SQL on the warehouse (a REPL without a query); safe while pipelines are landing')
    .option('--format <f>', 'table, csv, json, arrow or parquet (a file any tool reads: needs --out)', 'table')
    .option('--out <file>', 'write to a file (arrow output needs it unless stdout is redirected; parquet always)')
    .option('--at <load_id>', 'read the warehouse as it was after that load (time travel; load ids are in _loads)')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (query: string | undefined, o: { format: string; out?: string; at?: string; warehouse?: string; dataDir?: string }) => {
      if (!FORMATS.includes(o.format as SqlFormat)) throw new CliError(`unknown --format "${o.format}"; use table, csv, json, arrow or parquet`);
      if (o.format === 'parquet' && !o.out) throw new CliError('--format parquet writes a file: give it with --out, e.g. --out articles.parquet');
      if (o.format === 'parquet' && !query)
        throw new CliError('--format parquet takes one query, e.g. newsflow sql "SELECT * FROM articles" --format parquet --out a.parquet');
      if (!(await (await shell()).sqlShell({ warehouseDir: warehouseOf(o), query, format: o.format as SqlFormat, out: o.out, at: o.at }))) process.exitCode = 1;
    });

  program
    .command('export')
    .description('export warehouse tables to Parquet, hive-partitioned by month (written atomically)')
    .option('--table <name>', 'one table (default: all)')
    .option('--out <dir>', 'output folder', './export')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { table?: string; out: string; warehouse?: string; dataDir?: string }) => {
      const counts = await (await read()).exportParquet(warehouseOf(o), path.resolve(o.out), o.table ? [o.table] : undefined);
      console.log(JSON.stringify(counts));
    });

  program
    .command('usage')
    .description("what each pipeline cost against the API since a time, from _loads: loads, rows, requests, retries, 429s, credits (the service's pricing)")
    .option('--since <when>', 'a duration back from now (30m, 12h, 7d, 2w) or an ISO date', '7d')
    .option('--json', 'one JSON array, a row per pipeline')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { since: string; json?: boolean; warehouse?: string; dataDir?: string }) => {
      const { sinceTime, usageSince, usageTable } = await import('../run/usage.js');
      const since = sinceTime(o.since);
      const rows = await usageSince(warehouseOf(o), since);
      console.log(o.json ? JSON.stringify(rows) : usageTable(rows, since));
    });
}

/** `warehouse migrate`, `warehouse maintain`: the lake itself. */
function registerLake(program: Command): void {
  const wh = program.command('warehouse').description('the warehouse lake: migrate, maintain');
  wh.command('migrate')
    .description(`move a single-file warehouse of an older newsflow (${WAREHOUSE_FILE}) into the lake, every row kept`)
    .option('--from <file>', `the old warehouse file (default: ${WAREHOUSE_FILE} in the warehouse folder)`)
    .option('--force', 'replace the tables of a lake that holds rows already')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { from?: string; force?: boolean; warehouse?: string; dataDir?: string }) => {
      const dir = warehouseOf(o);
      const { Warehouse, WarehouseMigrateError } = await import('../../warehouse/warehouse.js');
      const { lakeOf, useProject } = await import('../config/index.js');
      const w = await Warehouse.open(dir, lakeOf(useProject()));
      try {
        const counts = await w.importFile(o.from ? path.resolve(o.from) : path.join(dir, WAREHOUSE_FILE), { force: o.force });
        for (const [t, n] of Object.entries(counts)) console.log(`${t.padEnd(28)} ${n}`);
        console.log(JSON.stringify(counts));
      } catch (e) {
        if (e instanceof WarehouseMigrateError) throw new CliError(e.message);
        throw e;
      } finally {
        w.close();
      }
    });

  wh.command('maintain')
    .description(
      'keep the lake fast: flush inlined rows, rewrite files with many deleted rows, merge small files, expire snapshots past the retention, delete unreferenced files (safe while pipelines land)',
    )
    .option('--dry-run', 'print per table the files it would rewrite, merge or delete and the snapshots it would expire; change nothing')
    .option(
      '--retention <days>',
      'expire snapshots older than this many days (default: the maintenance pipeline of the project file, else 7)',
      nonNegative('--retention'),
    )
    .option('--target-file-size <size>', 'merge small files up to this size, e.g. 256MB (default: the maintenance pipeline, else 256MB)')
    .option(
      '--grace <minutes>',
      'files unreferenced for longer than this are deleted (default 60: readers that started before may still scan them)',
      nonNegative('--grace'),
    )
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { dryRun?: boolean; retention?: number; targetFileSize?: string; grace?: number; warehouse?: string; dataDir?: string }) => {
      const { useProject, durationMs, lakeOf } = await import('../config/index.js');
      const project = useProject();
      const p = project.pipelines.find((x) => x.kind === 'maintenance');
      const retentionDays = o.retention ?? (p ? durationMs(p.retention) / 86_400_000 : undefined);
      const targetFileSize = o.targetFileSize ?? p?.target_file_size;
      const { sizeBytes } = await import('../../warehouse/maintain.js');
      if (targetFileSize !== undefined) {
        try {
          sizeBytes(targetFileSize);
        } catch (e) {
          throw new CliError(`--target-file-size: ${(e as Error).message}`);
        }
      }
      const { Warehouse, formatMaintainReport } = await import('../../warehouse/warehouse.js');
      // the project's lake (warehouse.catalog, warehouse.data: PostgreSQL, S3), as the worker's
      const w = await Warehouse.open(warehouseOf(o), lakeOf(project));
      try {
        const r = await w.maintain({
          dryRun: o.dryRun,
          retentionDays,
          targetFileSize,
          deleteThreshold: p?.delete_threshold,
          cleanupGraceMs: o.grace !== undefined ? o.grace * 60_000 : undefined,
          pipeline: p?.name,
          log: (line) => console.log(line),
        });
        for (const line of formatMaintainReport(r)) console.log(line);
      } finally {
        w.close();
      }
    });
}

/** `reprocess`: a table rebuilt from the raw responses its rows kept. */
function registerReprocess(program: Command): void {
  program
    .command('reprocess <table>')
    .description(
      "rebuild a table's columns and child tables from the raw responses its rows kept, with no API request (after a row mapper changed); one lake snapshot per batch",
    )
    .option('--from <time>', 'rows whose time column (articles: pub_date) is at or after this (ISO date or date-time)')
    .option('--to <time>', 'rows whose time column is before this')
    .option('--pipeline <name>', 'rows a named pipeline landed')
    .option('--batch <n>', 'rows per batch (one lake snapshot each)', intArg('--batch'), 500)
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (name: string, o: { from?: string; to?: string; pipeline?: string; batch: number; warehouse?: string; dataDir?: string }) => {
      const time = (v: string | undefined, flag: string) => {
        if (v === undefined) return undefined;
        const t = Date.parse(v);
        if (Number.isNaN(t)) throw new CliError(`${flag} "${v}" is not an ISO date, e.g. 2026-01-15 or 2026-01-15T06:00:00Z`);
        return new Date(t);
      };
      const from = time(o.from, '--from');
      const to = time(o.to, '--to');
      if (o.batch < 1) throw new CliError('--batch must be at least 1');
      const { Warehouse } = await import('../../warehouse/warehouse.js');
      const { reprocess, ReprocessError } = await import('../../warehouse/reprocess.js');
      const w = await Warehouse.open(warehouseOf(o));
      try {
        const r = await reprocess(w, name, { from, to, pipeline: o.pipeline, batch: o.batch });
        console.log(
          `${r.table}: ${r.rows} rows read, ${r.updated} rewritten, ${r.withoutRaw} without raw (left as they were), ${r.batches} batches; load ${r.loadId}`,
        );
        console.log(JSON.stringify(r));
      } catch (e) {
        if (e instanceof ReprocessError) throw new CliError(e.message);
        throw e;
      } finally {
        w.close();
      }
    });
}

/** `schema changes`, `schema ack`: what the loads saw the API add or drop. */
function registerSchema(program: Command): void {
  const schema = program.command('schema').description('schema changes the loads saw (fields the API added or dropped)');
  schema
    .command('changes')
    .description('list the open schema changes: table, path, new or vanished, first load, example value type, what the contract did')
    .option('--all', 'acknowledged ones too')
    .option('--table <name>', 'one table')
    .option('--format <f>', 'table or json', 'table')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { all?: boolean; table?: string; format: string; warehouse?: string; dataDir?: string }) => {
      if (o.format !== 'table' && o.format !== 'json') throw new CliError(`unknown --format "${o.format}"; use table or json`);
      const { Warehouse } = await import('../../warehouse/warehouse.js');
      const w = await Warehouse.open(warehouseOf(o));
      try {
        const rows = await w.schemaChanges({ all: o.all, table: o.table });
        if (o.format === 'json') console.log(JSON.stringify(rows));
        else if (!rows.length) console.log(o.all ? 'no schema changes recorded' : 'no open schema changes');
        else
          console.log(
            table(
              rows.map((r) => ({
                table: r.table_name,
                path: r.path,
                change: r.change,
                type: r.value_type ?? '',
                first_load: r.first_load_id ?? '',
                first_seen: r.first_seen_at ?? '',
                contract: r.contract ?? '',
                action: r.column_name ? `column ${r.column_name} ${r.column_type}` : r.action,
                ...(o.all ? { status: r.status } : {}),
              })),
            ),
          );
      } finally {
        w.close();
      }
    });
  schema
    .command('ack <table> [path]')
    .description("mark a table's open schema changes (or one path's) as seen")
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (name: string, p: string | undefined, o: { warehouse?: string; dataDir?: string }) => {
      const { Warehouse } = await import('../../warehouse/warehouse.js');
      const w = await Warehouse.open(warehouseOf(o));
      try {
        const n = await w.acknowledgeSchemaChanges(name, p);
        console.log(`${n} schema change${n === 1 ? '' : 's'} of ${name}${p ? `.${p}` : ''} acknowledged`);
      } finally {
        w.close();
      }
    });
}
