/** The warehouse: `sql`, `export`, `warehouse migrate`. */
import path from 'node:path';
import type { Command } from 'commander';
import type { SqlFormat } from '../../warehouse/read.js';
import { WAREHOUSE_FILE } from '../../warehouse/files.js';
import { CliError, dataDirOpt, warehouseOf, warehouseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const shell = () => import('../run/sql-shell.js');

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const read = () => import('../../warehouse/read.js');

const FORMATS: SqlFormat[] = ['table', 'csv', 'json', 'arrow'];

export function register(program: Command): void {
  program
    .command('sql [query]')
    .description('run SQL on the warehouse (a REPL without a query); safe while pipelines are landing')
    .option('--format <f>', 'table, csv, json or arrow', 'table')
    .option('--out <file>', 'write to a file (arrow output needs it unless stdout is redirected)')
    .option('--at <load_id>', 'read the warehouse as it was after that load (time travel; load ids are in _loads)')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (query: string | undefined, o: { format: string; out?: string; at?: string; warehouse?: string; dataDir?: string }) => {
      if (!FORMATS.includes(o.format as SqlFormat)) throw new CliError(`unknown --format "${o.format}"; use table, csv, json or arrow`);
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

  const wh = program.command('warehouse').description('the warehouse lake: migrate');
  wh.command('migrate')
    .description(`move a single-file warehouse of an older newsflow (${WAREHOUSE_FILE}) into the lake, every row kept`)
    .option('--from <file>', `the old warehouse file (default: ${WAREHOUSE_FILE} in the warehouse folder)`)
    .option('--force', 'replace the tables of a lake that holds rows already')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { from?: string; force?: boolean; warehouse?: string; dataDir?: string }) => {
      const dir = warehouseOf(o);
      const { Warehouse, WarehouseMigrateError } = await import('../../warehouse/warehouse.js');
      const w = await Warehouse.open(dir);
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
}
